"""The winnable-race and hindsight benchmark scripts keep working (their figures live in docs/BENCHMARKS.md)."""

from __future__ import annotations

import json

import pytest

from benchmarks import hindsight, winnable


def test_a_tiny_queue_run_reports_winnable_and_any_deal_queues(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        "sys.argv", ["winnable.py", "--queue", "--races", "2", "--variant", "terrace", "--json"]
    )
    assert winnable.main() == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["variants"]) == {"terrace winnable", "terrace any"}
    for figures in report["variants"].values():
        assert figures["races"] == 2 and 0 <= figures["p50_s"] <= figures["p99_s"] <= figures["max_s"]


def test_a_tiny_hindsight_run_counts_a_verdict_for_every_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["hindsight.py", "--deals", "1-2", "--nodes", "500", "--probes", "3", "--json"]
    monkeypatch.setattr("sys.argv", argv)
    assert hindsight.main() == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and sum(report["verdicts"].values()) == 2
    assert 0 < report["wall_p50_s"] <= report["wall_max_s"]
