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
    argv = ["--players", "4", "--seats", "2", "--seconds", "1", "--warmup", "0.5", "--cache-sim", "--json"]
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["moves"] > 0 and report["instructions"] > 0
    assert report["instructions_per_move"] == report["instructions"] / report["moves"]
    assert report["estimated_cycles_per_move"] > report["instructions_per_move"]


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--seats", "9"])
    assert "--seats from 1 to 8" in capsys.readouterr().err
