"""benchmarks/replay.py runs a small replay and reports it (the figures come from real runs)."""

from __future__ import annotations

import json

import pytest

from benchmarks import replay


def test_the_replay_benchmark_replays_every_logged_move_of_every_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert replay.main(["--seats", "2", "--moves", "40", "--runs", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["seats"], report["moves"]) == (2, 80)
    assert report["replay_s"] > 0 and report["per_move_us"] > 0


def test_the_replay_benchmark_refuses_a_race_the_server_could_not_hold() -> None:
    with pytest.raises(SystemExit) as info:
        replay.main(["--seats", "9"])
    assert info.value.code == 2
