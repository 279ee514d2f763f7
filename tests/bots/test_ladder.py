"""The bot ladder: ``terrace-bot run --ladder`` keeps registered bots in rated races of the bots
pool, race after race, through a server restart; the board counts their races and each bot's
page has its rated races with the rating after each."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import socket

from server.app import RaceServer
from terrace.wire.messages import LeaderboardQuery
from tests.poll import eventually
from tests.server.conftest import FAST
from tests.server.redis_server import redis_server, redis_url

from .test_cli import BIN, _cli

__all__ = ["redis_server", "redis_url"]  # fixtures: a private redis-server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_the_ladder_needs_a_registered_bot() -> None:
    code, _, err = await _cli("run", "greedy", "--ladder", "--server", "ws://127.0.0.1:1/ws")
    assert code == 2 and "--ladder needs an account: $TERRACE_TOKEN or --token-file" in err
    code, _, err = await _cli(
        "run", "greedy", "--ladder", "--token", "t", "--arena", "a", "--server", "ws://127.0.0.1:1/ws"
    )
    assert code == 2 and "leave out --arena" in err


async def _board(server: RaceServer) -> dict[str, int]:
    answer = await server.leaderboards.answer(
        LeaderboardQuery(board="rating", variant="terrace", pool="bots")
    )
    return {row["player"]["name"]: row["races"] for row in answer["rows"]}


async def test_ladder_bots_race_rated_races_around_the_clock_and_come_back_after_a_restart(
    redis_url: str,
) -> None:
    config = dataclasses.replace(FAST, redis_url=redis_url, port=_free_port())
    server = RaceServer(config)
    await server.start()
    procs: list[asyncio.subprocess.Process] = []
    try:
        tokens = []
        for name in ("ladda", "laddb"):
            code, out, err = await _cli("register", name, "--server", server.url, "--json")
            assert code == 0, err
            tokens.append(json.loads(out)["token"])
        for token in tokens:
            procs.append(
                await asyncio.create_subprocess_exec(
                    str(BIN),
                    "run",
                    "greedy",
                    "--ladder",
                    "--server",
                    server.url,
                    "--json",
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,  # a few warning lines: shown if the test fails
                    env={**os.environ, "TERRACE_TOKEN": token},  # as the docs show: never on the command line
                )
            )
        counted = await eventually(
            lambda: _at_least(server, 3), timeout=60, what="three rated races each on the ladder"
        )
        page = await server.leaderboards.player("ladda")
        assert page["player"]["kind"] == "bot"
        (rating,) = page["ratings"]
        assert (rating["pool"], rating["variant"]) == ("bots", "terrace") and rating["races"] >= 3
        history = page["history"]
        assert len(history) >= 3 and history[0]["rating"] == rating["value"]  # newest first: the rating now
        for entry in history[:3]:
            record = await server.store.record(entry["race"])
            assert record is not None and entry["players"] == 2 and entry["place"] in (1, 2)
            assert {r["player"]["name"] for r in record["results"]} == {"ladda", "laddb"}
        # the server restarts on the same port and store: the ladder carries on by itself
        await server.stop()
        server = RaceServer(config)
        await server.start()
        before = counted["ladda"]
        await eventually(lambda: _at_least(server, before + 2), timeout=90, what="races after the restart")
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            assert proc.stderr is not None
            err = (await asyncio.wait_for(proc.stderr.read(), 30)).decode()
            assert await asyncio.wait_for(proc.wait(), 30) == 0, err  # Ctrl-C stops the ladder cleanly
        await server.stop()


async def _at_least(server: RaceServer, n: int) -> dict[str, int] | None:
    board = await _board(server)
    return board if len(board) == 2 and min(board.values()) >= n else None


async def test_a_ladder_bot_started_while_its_server_is_down_races_once_it_is_up(redis_url: str) -> None:
    config = dataclasses.replace(FAST, redis_url=redis_url, port=_free_port())
    async with RaceServer(config) as server:
        tokens = []
        for name in ("earlya", "earlyb"):
            code, out, err = await _cli("register", name, "--server", server.url, "--json")
            assert code == 0, err
            tokens.append(json.loads(out)["token"])
    url = f"ws://127.0.0.1:{config.port}/ws"
    procs = [
        await asyncio.create_subprocess_exec(
            str(BIN),
            "run",
            "greedy",
            "--ladder",
            "--server",
            url,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "TERRACE_TOKEN": token},
        )
        for token in tokens
    ]
    try:
        for proc in procs:  # each says it found no server and will try again
            assert proc.stderr is not None
            line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
            assert "ladder:" in line and "again in" in line, line
        async with RaceServer(config) as server:
            await eventually(
                lambda: _at_least(server, 1), timeout=60, what="a rated race once the server is up"
            )
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            await asyncio.wait_for(proc.wait(), 30)
