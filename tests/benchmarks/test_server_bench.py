"""The server benchmark script keeps working (its figures live in the README, not here)."""

from __future__ import annotations

import json
import random
import sys

import pytest

from benchmarks import server as bench
from terrace.protocol import JSON, MSGPACK, encode


def test_a_tiny_run_reports_both_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--players", "4", "--seats", "2", "--seconds", "1", "--warmup", "0.2", "--json"]
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    game, echo = report["game"], report["echo"]
    for r in (game, echo):
        assert r["answers"] > 0 and r["per_s"] > 0
        assert 0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"]
        assert r["request_bytes"] > 0 and r["answer_bytes"] > r["request_bytes"]
    assert game["events"]["races created"] > 0 and game["events"]["pushes"] > 0
    assert game["server_handling"]["moves"] > 0 and game["server_handling"]["errors"] == {}
    # the echo frames are the game's median sizes, give or take a length prefix
    assert abs(echo["request_bytes"] - game["request_bytes"]) <= 2
    assert abs(echo["answer_bytes"] - game["answer_bytes"]) <= 2
    assert report["ratio"]["throughput"] > 0 and report["ratio"]["p50"] > 0


def test_a_server_that_fails_to_start_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [sys.executable, "-c", "print('no port for you'); raise SystemExit(3)"]
    monkeypatch.setattr(bench, "server_argv", lambda args: argv)
    assert bench.main(["--players", "2", "--seconds", "1"]) == 1
    err = capsys.readouterr().err
    assert "server benchmark failed: game server exited with code 3" in err
    assert "no port for you" in err  # the server's own output comes along


def test_the_policy_prefers_foundations_then_the_stock_and_avoids_undoing() -> None:
    rng = random.Random(1)
    assert bench.choose(["2-8", "5-F1", "S-W"], None, rng) == "5-F1"
    assert bench.choose(["2-8", "S-W"], None, rng) == "S-W"
    assert all(bench.choose(["3-7", "7-3"], "3-7", rng) == "3-7" for _ in range(20))
    assert bench.choose(["7-3"], "3-7", rng) == "7-3"  # an undo beats no move at all


@pytest.mark.parametrize("subprotocol", [MSGPACK, JSON])
@pytest.mark.parametrize("size", [45, 300, 556, 4000])
def test_padded_frames_have_the_size_asked_for(subprotocol: str, size: int) -> None:
    frame = encode(bench.padded({"type": "echo", "id": 1000}, size, subprotocol), subprotocol)
    assert size - 2 <= bench.frame_size(frame) <= size


def test_percentiles_are_nearest_rank() -> None:
    data = [float(x) for x in range(1, 101)]
    assert bench.percentile(data, 50) == 50 and bench.percentile(data, 99) == 99
    assert bench.percentile([7.0], 99) == 7.0
