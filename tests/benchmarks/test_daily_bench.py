"""The daily-deal drawing benchmark keeps working (its figures live in docs/BENCHMARKS.md, not here)."""

from __future__ import annotations

import json

import pytest

from benchmarks import daily as bench


def test_a_tiny_run_reports_candidates_and_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--variant", "terrace", "--days", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    r = report["variants"]["terrace"]
    assert r["days"] == 2 and 1 <= r["candidates_median"] <= r["candidates_max"]
    assert 0 < r["seconds_median"] <= r["seconds_max"]
