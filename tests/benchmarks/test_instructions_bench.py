"""The instruction-count benchmark keeps working (its figures live in docs/BENCHMARKS.md, not here)."""

from __future__ import annotations

import json
import shutil

import pytest

from benchmarks import instructions as bench
from tests.needs import missing


def test_a_tiny_count_reports_instructions_per_move(capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        missing("valgrind (with callgrind_control) is not installed")
    argv = ["--players", "4", "--seats", "2", "--seconds", "1", "--warmup", "0.5", "--idle-seconds", "0"]
    argv += ["--cache-sim", "--json"]
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["moves"] > 0 and report["instructions"] > 0
    assert report["instructions_per_move"] == report["instructions"] / report["moves"]
    assert report["estimated_cycles_per_move"] > report["instructions_per_move"]
    assert report["instructions_per_move_net"] is None  # no idle window counted


def test_whole_races_are_counted_from_the_first_move_to_the_last(capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        missing("valgrind (with callgrind_control) is not installed")
    argv = ["--players", "2", "--seats", "2", "--race-moves", "15", "--idle-seconds", "1", "--json"]
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["window"] == "1 whole race(s) a player"
    # the idle server's own instructions a second, taken from each move's figure
    assert report["idle_instructions_per_s"] > 0
    assert report["instructions_per_move_net"] == pytest.approx(
        (report["instructions"] - report["idle_instructions_per_s"] * report["window_seconds"])
        / report["moves"]
    )
    # the one race: at most 15 moves a player, counted once both are racing, until both are done
    assert 0 < report["moves"] <= 30
    assert report["instructions_per_move"] == report["instructions"] / report["moves"]


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--seats", "9"])
    assert "--seats from 1 to 8" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--players", "5", "--seats", "2"])
    assert "a multiple of --seats" in capsys.readouterr().err
