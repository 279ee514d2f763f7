"""``terrace play --winnable`` in a pseudo terminal against a real server: queued or created, the race
is on a deal the server proved winnable, and its record's ``solution`` verifies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pexpect

from server.app import RaceServer
from terrace.race.audit import audit
from tests.server.wire import Client

from .test_commands import _run
from .test_terminal import _exit, _expect, _spawn

Connect = Callable[..., Awaitable[Client]]


async def _resign(child: pexpect.spawn) -> None:
    child.sendline("resign")
    await _expect(child, "Type y to resign")
    child.sendline("y")
    await _expect(child, "You resigned")


async def test_play_queue_winnable_is_matched_with_a_winnable_queue_player(
    server: RaceServer, connect: Connect
) -> None:
    bob = await connect(name="bob")
    child = _spawn("play", "--server", server.url, "--queue", "terrace", "--winnable", "--name", "alice")
    await _expect(child, "winnable deals only\\), position 1")
    await _expect(child, "house bots race any deal, so they wait in the other queue")
    queued = await bob.request("queue", variant="terrace", deals="winnable")
    assert queued["position"] == 2
    started = await bob.wait("started", timeout=30)
    await _expect(child, "move>")
    await _resign(child)
    await bob.request("resign", race=started["race"])
    await _expect(child, "bob")
    await _expect(child, r"race again: terrace play --queue terrace --winnable")  # winnable kept
    assert await _exit(child) == 0
    record = (await bob.request("record", race=started["race"]))["race"]
    assert sorted(r["player"]["name"] for r in record["results"]) == ["alice", "bob"]
    checked = audit(record)
    assert checked.ok and [c.name for c in checked.checks].count("solution") == 1, checked.failed


async def test_play_create_winnable_makes_a_race_on_a_proven_deal(
    server: RaceServer, connect: Connect
) -> None:
    child = _spawn(
        "play", "--server", server.url, "--create", "terrace", "--seats", "1", "--winnable", "--name", "carol"
    )
    await _expect(child, "Drawing a deal the server's solver proves winnable")
    created = await _expect(child, "Created race ([0-9a-f]+)")
    race = str(child.match.group(1))
    assert race in created
    await _expect(child, "move>")
    await _resign(child)
    # the same kind of race again: created, with its seats, on a winnable deal
    await _expect(child, r"race again: terrace play --create terrace --seats 1 --winnable")
    assert await _exit(child) == 0
    watcher = await connect()
    record = (await watcher.request("record", race=race))["race"]
    assert audit(record).ok and "solution" in record


async def test_winnable_without_queue_or_create_is_a_usage_error() -> None:
    code, _, err = await _run("play", "--race", "abc", "--winnable")
    assert code == 2 and "--winnable goes with --queue or --create" in err
