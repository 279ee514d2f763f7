"""``terrace arena`` against a real server: list, show, verify (and a forged arena that fails),
and the join table racing one arena race after another."""

from __future__ import annotations

import asyncio
import json
import re
import time

from rich.console import Console

from bots.samples.greedy import GreedyBot
from bots.sdk import play
from client.arena import ArenaTable, arenas_table
from server.app import RaceServer
from terrace.race.arena import make_spec
from tests.poll import eventually

from .test_commands import _run

BUSY = {"address_rate": 100_000.0, "address_burst": 100_000}


def _spec(arena_id: str, seconds: float, delay: float = 0.5, pool: str = "bots"):  # type: ignore[no-untyped-def]
    return make_spec(arena_id, "terrace", pool, int((time.time() + delay) * 1000), seconds / 60)


async def test_list_shows_each_arena_with_its_state(server: RaceServer) -> None:
    code, out, _ = await _run("arena", "list", "--server", server.url)
    assert code == 0 and "No arenas on this server." in out
    now = int(time.time() * 1000)
    await server.arenas.create(make_spec("later", "signora", "all", now + 7_230_000, 30, name="Later cup"))
    await server.arenas.create(make_spec("on", "terrace", "bots", now - 60_000, 30))
    code, out, _ = await _run("arena", "list", "--server", server.url)
    assert code == 0
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("later"))
    later, below = lines[at], lines[at + 1]  # the id's row, then what the arena is
    assert "upcoming" in later and "starts in 2h0" in later and "Later cup · signora · all" in below
    on = next(line for line in out.splitlines() if line.strip().startswith("on"))
    assert "running" in on and re.search(r"ends in 2[89]:\d\d", on)
    code, out, _ = await _run("arena", "list", "--server", server.url, "--json")
    listed = json.loads(out)
    assert [a["id"] for a in listed["upcoming"]] == ["later"] and [a["id"] for a in listed["running"]] == [
        "on"
    ]


def test_the_arena_list_never_cuts_an_id_at_80_columns() -> None:
    now = 1_795_571_500_000
    row = {"goal": "terrace", "players": 3, "races": 7}
    longest = "queen-of-italy-humans-29926190"  # the longest id a schedule makes
    answer = {
        "now": now,
        "running": [
            {
                **row,
                "id": longest,
                "name": "queen-of-italy humans",
                "variant": "queen-of-italy",
                "pool": "humans",
                "starts_ms": now,
                "ends_ms": now + 90_000,
            },
        ],
        "upcoming": [],
        "finished": [
            {
                **row,
                "id": "friday-cup",
                "name": "Friday cup",
                "variant": "terrace",
                "pool": "all",
                "starts_ms": now - 9_000_000,
                "ends_ms": now - 7_200_000,
            },
        ],
    }
    console = Console(width=80, record=True)
    console.print(arenas_table(answer))
    lines = console.export_text().splitlines()
    header = next(line for line in lines if line.startswith("arena"))
    assert header.split() == ["arena", "state", "when", "players", "races"]  # none squeezed out
    first = next(i for i, line in enumerate(lines) if longest in line)
    assert "running" in lines[first] and "ends in 1:30" in lines[first] and lines[first].endswith("7")
    assert "queen-of-italy · humans" in lines[first + 1]  # a schedule's own name says no more
    cup = next(i for i, line in enumerate(lines) if "friday-cup" in line)
    assert "ended 11-24 23:51Z" in lines[cup] and "Friday cup · terrace · all" in lines[cup + 1]


async def test_show_and_verify_an_arena_raced_to_its_end_and_a_forged_one_fails(server: RaceServer) -> None:
    await server.arenas.create(_spec("short", 4))
    results = await asyncio.wait_for(
        asyncio.gather(
            *(play(GreedyBot, server.url, name=f"cli{i}", arena="short", races=None) for i in range(2))
        ),
        60,
    )
    played = sum(len(r) for r in results) // 2
    code, out, _ = await _run("arena", "show", "short", "--server", server.url)
    assert code == 0
    assert "cli0 (bot)" in out and "cli1 (bot)" in out and f"{played} races" in out
    code, out, _ = await _run("arena", "verify", "short", "--server", server.url)
    assert code == 0, out
    assert f"arena short: {played} races verified" in out
    code, out, _ = await _run("arena", "verify", "short", "--server", server.url, "--json")
    assert json.loads(out) == {"arena": "short", "races": played, "ok": True, "problems": []}
    # a store whose arena says more than its races do: verify says which player and exits 1
    first = (await server.store.arena_results("short"))[0]
    await server.store.arena_result("short", {**first, "race": "forged1"})
    code, out, _ = await _run("arena", "verify", "short", "--server", server.url)
    assert code == 1 and "race forged1" in out and "points published" in out


async def test_show_and_verify_say_a_result_held_back_for_its_pace(server: RaceServer) -> None:
    from terrace.wire.protocol import MSGPACK
    from tests.server.wire import Client

    server.fairplay.pace = True  # (the suite's servers leave the pace check off)
    await server.arenas.create(_spec("paced", 60, delay=0, pool="all"))
    fast, calm = await Client.open(server.url, MSGPACK), await Client.open(server.url, MSGPACK)
    for c, name in ((fast, "Zip"), (calm, "Calm")):
        assert (await c.request("hello", name=name))["type"] == "welcome"
        assert (await c.request("arena_join", arena="paced"))["type"] == "arena_joined"
    started = await fast.wait("started", timeout=10)
    race = started["race"]
    await calm.wait("started", timeout=10)
    assert (await calm.request("resign", race=race))["type"] == "resigned"
    legal = started["legal"]
    for seq in range(1, 15):  # as fast as the answers come: a program's pace
        legal = (await fast.request("move", race=race, seq=seq, move="S-W" if "S-W" in legal else legal[0]))[
            "legal"
        ]
    assert (await fast.request("resign", race=race))["type"] == "resigned"
    for c in (fast, calm):
        await c.request("arena_leave", arena="paced")
        await c.close()

    async def counted() -> bool:
        return bool((await server.arenas.load("paced")).results)

    await eventually(counted, what="the race counted")
    code, out, _ = await _run("arena", "show", "paced", "--server", server.url)
    assert code == 0 and re.search(r"Zip\s+0 \(1 held\)", out), out
    code, out, _ = await _run("arena", "verify", "paced", "--server", server.url)
    assert code == 0, out
    assert "their places' points, less 1 result held back for fair play" in " ".join(out.split())


async def test_show_of_an_unknown_arena_is_refused_with_its_message(server: RaceServer) -> None:
    code, _, err = await _run("arena", "show", "nope", "--server", server.url)
    assert code == 1 and "There is no arena 'nope'" in err
    code, _, err = await _run("arena", "show", "--server", server.url)
    assert code == 2 and "terrace arena: error: show needs an arena id" in err
    assert err.startswith("usage: terrace arena ")  # the arena command's usage, not terrace's


async def test_the_join_table_races_one_arena_race_after_another_until_the_end(server: RaceServer) -> None:
    await server.arenas.create(_spec("tables", 6, pool="all"))
    table = ArenaTable(server.url, {"name": "Person"}, "tables")
    await table.connect()
    assert (await table.ask("arena_join", arena="tables"))["type"] == "arena_joined"
    bot = asyncio.ensure_future(play(GreedyBot, server.url, name="rival", arena="tables", races=None))
    raced: list[str] = []
    try:
        while (started := await asyncio.wait_for(table.next_started(), 30)) is not None:
            raced.append(started["race"])
            assert table.race["id"] == started["race"] and table.legal()
            assert (await table.ask("resign", race=started["race"]))["type"] == "resigned"
            assert table.finished is not None
            finished = await asyncio.wait_for(table.finished, 30)
            assert finished["race"] == started["race"]
            table.next_race()
            assert table.legal() == [] and table.race == {}
    finally:
        await asyncio.wait_for(bot, 30)
        await table.close()
    assert len(raced) >= 2 and len(set(raced)) == len(raced)
    standings = (await server.arenas.load("tables")).standings()
    person = next(r for r in standings if r["player"]["name"] == "Person")
    assert person["races"] == len(raced) and person["points"] == 0  # resigned every race: last each time


async def test_joining_from_the_terminal_the_end_screen_points_at_the_next_pairing_not_a_queue(
    server: RaceServer,
) -> None:
    """Between arena races the arena pairs the player again by itself, so the end screen
    offers the replay and the check but no ``terrace play --queue`` to race again."""
    from .test_terminal import _exit, _expect, _spawn

    await server.arenas.create(_spec("tty", 60, pool="all"))
    child = _spawn("arena", "join", "tty", "--name", "Person", "--server", server.url)
    # one race: then the person waits for a pairing that does not come, and leaves with Ctrl-C
    bot = asyncio.ensure_future(play(GreedyBot, server.url, name="rival", arena="tty", races=1))
    try:
        await _expect(child, "Joined arena tty as ")
        await _expect(child, "move>")
        child.sendline("resign")
        await _expect(child, "Type y to resign")
        child.sendline("y")
        end = await _expect(child, "Next race coming")
        assert "You resigned" in end or "You placed 2nd of 2" in end
        assert "step through it: terrace replay" in end and "check it: terrace verify" in end
        assert "race again" not in end and "terrace play --queue" not in end
        # the race just over in the arena: its place and points, and the arena so far
        assert "Arena tty: 2nd of 2 in this race, +0 points; 0 points after 1 race, rank 2 of 2." in end
        await asyncio.wait_for(bot, 30)
        child.sendintr()  # Ctrl-C while waiting to be paired leaves the arena
        await _expect(child, "You left the arena; your points so far stay")
        assert await _exit(child) == 0
        arena = await server.arenas.load("tty")
        assert "Person" not in [p["name"] for p in arena.players.values()]  # not paired again
        assert [r["player"]["name"] for r in arena.standings()] == ["rival", "Person"]  # the race counts
    finally:
        child.close(force=True)
        await asyncio.wait_for(bot, 30)


async def test_a_race_that_outlives_its_arena_ends_with_the_arena_over_not_a_next_race(
    server: RaceServer,
) -> None:
    from .test_terminal import _exit, _expect, _spawn

    await server.arenas.create(_spec("brief", 3, pool="all"))
    child = _spawn("arena", "join", "brief", "--name", "Person", "--server", server.url)
    bot = asyncio.ensure_future(play(GreedyBot, server.url, name="rival", arena="brief", races=None))
    try:
        await _expect(child, "move>")
        arena = await server.arenas.load("brief")
        ends = arena.spec.ends_ms + 500
        await eventually(lambda: time.time() * 1000 >= ends, what="the arena to end while this race goes on")
        child.sendline("resign")
        await _expect(child, "Type y to resign")
        child.sendline("y")
        end = await _expect(child, "The arena is over: no more races.")
        assert "Next race coming" not in end
        assert await _exit(child) == 0
    finally:
        child.close(force=True)
        await asyncio.wait_for(bot, 30)
