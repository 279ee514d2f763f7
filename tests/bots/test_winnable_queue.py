"""The bot SDK and ``terrace-bot run --winnable`` queueing for winnable deals against a real server:
matched only with each other, on a deal whose recorded ``solution`` verifies."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from bots.samples.random_bot import RandomBot
from bots.sdk import play
from server.app import RaceServer
from terrace.race.audit import audit
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]
TERRACE_BOT = str(Path(sys.executable).parent / "terrace-bot")


async def test_two_sdk_bots_queued_for_winnable_deals_race_on_one(
    server: RaceServer, connect: Connect
) -> None:
    a, b = await asyncio.gather(
        play(RandomBot, server.url, name="alpha", variant="queen-of-italy", deals="winnable"),
        play(RandomBot, server.url, name="beta", variant="queen-of-italy", deals="winnable"),
    )
    assert a[0].race == b[0].race and a[0].players == 2
    watcher = await connect()
    record = (await watcher.request("record", race=a[0].race))["race"]
    checked = audit(record)
    assert checked.ok and "solution" in record, checked.failed


async def test_terrace_bot_run_winnable_races_an_sdk_bot_on_a_proven_deal(
    server: RaceServer, connect: Connect
) -> None:
    cli = await asyncio.create_subprocess_exec(
        TERRACE_BOT,
        "run",
        "random",
        "--server",
        server.url,
        "--name",
        "clio",
        "--queue",
        "terrace",
        "--winnable",
        "--json",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    [mine] = await play(RandomBot, server.url, name="sdk", variant="terrace", deals="winnable")
    out, err = await asyncio.wait_for(cli.communicate(), 60)
    assert cli.returncode == 0, err.decode()
    theirs = json.loads(out.decode().strip().splitlines()[-1])
    assert theirs["race"] == mine.race
    watcher = await connect()
    record = (await watcher.request("record", race=mine.race))["race"]
    assert audit(record).ok and "solution" in record


async def test_a_bot_alone_in_the_winnable_queue_is_told_why_it_still_waits(server: RaceServer) -> None:
    cli = await asyncio.create_subprocess_exec(
        TERRACE_BOT, "run", "random", "--server", server.url, "--name", "lonely", "--winnable",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert cli.stderr is not None
        line = await asyncio.wait_for(cli.stderr.readline(), 30)
        assert b"lonely: still waiting in the terrace queue for winnable deals after 5 s" in line
        assert b"house bots wait in the any-deal queues only" in line
    finally:
        cli.kill()
        await cli.wait()


async def test_winnable_is_refused_beside_a_named_race() -> None:
    cli = await asyncio.create_subprocess_exec(
        TERRACE_BOT, "run", "random", "--race", "dc623571", "--winnable",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(cli.communicate(), 30)
    assert cli.returncode == 2
    assert "terrace-bot run: error: --winnable goes with queueing: leave out --race" in err.decode()
