"""The arena benchmark script keeps working (its figures live in docs/BENCHMARKS.md, not here)."""

from __future__ import annotations

import json

import pytest

from benchmarks import arena as bench


def test_a_short_arena_reports_races_gaps_and_a_verified_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--bots", "3", "--minutes", "0.1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verified"] is True and report["problems"] == []
    assert report["races"] >= 2 and report["races_per_bot"]["min"] >= 1
    gap = report["repair_gap_ms"]
    assert gap["n"] > 0 and 0 <= gap["median"] <= gap["p95"] <= gap["max"]


def test_two_nodes_need_a_store_they_share(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--nodes", "2"])
    assert "give --redis" in capsys.readouterr().err
