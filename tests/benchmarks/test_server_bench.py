"""The server benchmark script keeps working (its figures live in docs/BENCHMARKS.md, not here)."""

from __future__ import annotations

import json
import sys

import pytest

from benchmarks import server as bench
from benchmarks import server_scenarios as scenarios
from tests.server.redis_server import require_redis_server


def test_a_tiny_run_reports_both_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--players", "4", "--seats", "2", "--seconds", "1", "--warmup", "0.2", "--no-redis", "--json"]
    argv += [
        "--race-moves",
        "5",
    ]  # short races: new ones are made within the window, even on a loaded machine
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    game, echo = report["rounds"][0]["memory"], report["rounds"][0]["echo"]
    for r in (game, echo):
        assert r["answers"] > 0 and r["per_s"] > 0
        assert 0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"]
        assert r["request_bytes"] > 0 and r["answer_bytes"] > r["request_bytes"]
    assert game["events"]["races created"] > 0 and game["events"]["pushes"] > 0
    assert game["server_handling"]["moves"] > 0 and game["server_handling"]["errors"] == {}
    # the echo frames are the game's median sizes, give or take a length prefix
    assert abs(echo["request_bytes"] - game["request_bytes"]) <= 2
    assert abs(echo["answer_bytes"] - game["answer_bytes"]) <= 2
    assert report["ratios"]["game_echo"]["median"] > 0 and report["ratios"]["game_echo_p99"]["median"] > 0
    assert report["ratios"]["cpu_echo_game"]["median"] > 0


def test_a_tiny_run_of_every_scenario_checks_the_redis_log_and_reports_each(
    capsys: pytest.CaptureFixture[str],
) -> None:
    require_redis_server()
    argv = ["--players", "4", "--seats", "2", "--seconds", "1", "--warmup", "0.2", "--views", "changes"]
    argv += [
        "--idle",
        "20",
        "--idle-players",
        "2",
        "--human",
        "4",
        "--human-seconds",
        "2",
        "--nodes",
        "--json",
    ]
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    redis = report["rounds"][0]["redis"]
    assert redis["answers"] > 0
    check = redis["log_check"]
    assert check["moves_acknowledged"] > 0 and check["acknowledged_not_in_log"] == 0
    assert check["moves_in_log"] >= check["moves_acknowledged"]
    assert report["ratios"]["redis_memory"]["median"] > 0
    idle = report["idle"]
    assert idle["connections"] == 20 and idle["closed_by_server"] == 0
    assert idle["rss_mib_idle"] > 0 and idle["game"]["answers"] > 0
    assert report["human"]["answers"] > 0
    assert report["nodes"]["one"]["answers"] > 0 and report["nodes"]["two"]["answers"] > 0
    assert report["nodes"]["ratio"] > 0
    # players asked for the view's changes: the answers are smaller than the full view's
    assert report["rounds"][0]["memory"]["answer_bytes"] < 400


def test_a_server_that_fails_to_start_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [sys.executable, "-c", "print('no port for you'); raise SystemExit(3)"]
    monkeypatch.setattr(scenarios, "server_argv", lambda args, **_: argv)
    assert bench.main(["--players", "2", "--seconds", "1"]) == 1
    err = capsys.readouterr().err
    assert "server benchmark failed: game0 server exited with code 3" in err
    assert "no port for you" in err  # the server's own output comes along
