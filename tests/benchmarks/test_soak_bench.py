"""The soak script keeps working, shortened to seconds (its figures live in docs/BENCHMARKS.md)."""

from __future__ import annotations

import json

import pytest

from benchmarks import soak


def test_a_tiny_soak_reports_memory_latency_and_what_the_limits_did(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--seconds", "4", "--warmup", "1", "--players", "4", "--seats", "2", "--slow-readers", "3"]
    argv += ["--flooders", "2", "--slow-cycle", "2", "--open-race-timeout", "1", "--sample", "0.5", "--json"]
    assert soak.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["answers"] > 0 and 0 < report["p50_ms"] <= report["p99_ms"]
    assert report["rss_mb_at_warmup"] > 0 and report["rss_mb_min_after"] <= report["rss_mb_max_after"]
    assert report["attack"].get("flood too_many_races", 0) > 0, report["attack"]  # the flood met the cap...
    assert report["attack"]["slow reader connected"] >= 3
    assert report["last_sample"]["terrace_races_expired_total"] > 0  # ...and its races expired
    assert report["server_log_errors"] == []
