"""The house as a person meets it: bots at a person's pace, more bots as more people queue,
full speed among programs and once the person left, and a clear failure with no server."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import terrace
from bots.bot import Choice, View, load_bot
from bots.house.keeper import DEFAULT_LINEUP, House, Slot, keep_house, parse_lineup
from bots.house.pace import PACES, pace_named, split_pace
from bots.samples.greedy import GreedyBot
from bots.sdk import SDKError, play
from server.app import RaceServer
from server.config import Config
from terrace.race.places import Standing, places
from tests.poll import eventually
from tests.server.wire import Client

# The server's own defaults (a 3 s countdown, 10 s queue wait, 60 s grace), on a free port.
DEFAULTS = Config(host="127.0.0.1", port=0)


def test_a_pace_draws_think_times_around_its_median_within_its_bounds() -> None:
    rng = random.Random(7)
    casual = PACES["casual"]
    draws = [casual.draw(rng) for _ in range(2000)]
    assert 2.2 < statistics.median(draws) < 2.8
    assert min(draws) >= casual.floor and max(draws) <= casual.ceiling
    assert len(set(draws)) > 1000  # drawn, not a fixed delay
    firsts = [casual.draw(rng, first=True) for _ in range(2000)]
    assert statistics.median(firsts) > 1.7 * statistics.median(draws)  # reading the deal takes longer
    assert PACES["full"].draw(rng) == 0.0
    assert statistics.median(PACES["fast"].draw(rng) for _ in range(500)) < 1.6


def test_a_pace_is_named_after_an_at_sign_and_an_unknown_one_is_refused() -> None:
    assert split_pace("planner@fast") == ("planner", "fast")
    assert split_pace("mybots:Fast") == ("mybots:Fast", None)
    with pytest.raises(ValueError, match="unknown pace 'warp'"):
        split_pace("greedy@warp")
    with pytest.raises(ValueError, match="unknown pace"):
        pace_named("")


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    async with RaceServer(DEFAULTS) as srv:
        yield srv


@pytest.fixture
async def house(server: RaceServer) -> AsyncIterator[House]:
    """``terrace-bot house`` with its defaults, in this process so the test can look inside."""
    h = House(server.url, parse_lineup(DEFAULT_LINEUP), ["terrace"])
    task = asyncio.create_task(h.run())
    await eventually(lambda: _waiting(server) == 3, what="three house bots in the queue")
    yield h
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _waiting(server: RaceServer) -> int:
    return sum(len(w.players) for w in server.matchmaking.queues.values())


async def _person(server: RaceServer, name: str) -> Client:
    c = await Client.open(server.url)
    assert (await c.request("hello", name=name))["type"] == "welcome"
    return c


async def _queue_and_start(server: RaceServer, name: str) -> tuple[Client, dict[str, object], float]:
    person = await _person(server, name)
    t0 = time.monotonic()
    assert (await person.request("queue", variant="terrace"))["type"] == "queued"
    started = await person.wait("started", timeout=10)
    return person, started, time.monotonic() - t0


async def test_a_house_name_someone_else_holds_is_skipped_for_the_next_number(server: RaceServer) -> None:
    # another house of this operator's (or an account made before house names were kept) holds it
    squatter = await Client.open(server.url)
    hello = await squatter.request("hello", name="house-greedy-1", house_key=server.accounts.house_key)
    assert hello["type"] == "welcome", hello
    h = House(server.url, parse_lineup(DEFAULT_LINEUP), ["terrace"])
    task = asyncio.create_task(h.run())
    try:
        await eventually(lambda: _waiting(server) == 3, what="three house bots in the queue")
        names = sorted(p.name for w in server.matchmaking.queues.values() for p in w.players)
        assert names == ["house-greedy-2", "house-greedy-3", "house-planner-1"]
        assert not task.done()
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await squatter.close()


async def test_with_the_default_house_every_person_who_queues_is_racing_within_10_s(
    server: RaceServer, house: House
) -> None:
    first, race1, _ = await _queue_and_start(server, "ada")
    kinds = {p["name"]: p["kind"] for p in race1["players"]}  # type: ignore[attr-defined]
    assert kinds == {
        "ada": "human",
        "house-greedy-1": "bot",
        "house-greedy-2": "bot",
        "house-planner-1": "bot",
    }
    # the behaviour tested is the house over time at a person's pace: the second person comes 5 s
    # later, while the first race is under way (real time, waited out)
    await asyncio.sleep(5)
    _second, race2, waited = await _queue_and_start(server, "bea")
    assert waited < 10 and race2["race"] != race1["race"]
    assert sorted(p["kind"] for p in race2["players"]) == ["bot", "bot", "bot", "human"]  # type: ignore[attr-defined]

    # The bots of the first race play at a person's pace: none has finished, none is far ahead.
    seats = server.registry.drivers[str(race1["race"])].race.seats.values()
    bots = [s for s in seats if s.player["kind"] == "bot"]
    assert all(s.finish is None for s in bots)
    assert max(s.move_count for s in bots) <= 12, [s.move_count for s in bots]

    await first.close()  # the first person drops out of a race at human pace
    _third, race3, waited = await _queue_and_start(server, "cal")
    assert waited < 10 and race3["race"] not in (race1["race"], race2["race"])
    assert house.bots <= house.max_bots


async def test_when_the_person_leaves_the_house_bots_play_their_games_out_and_wait_again_within_30_s(
    server: RaceServer, house: House
) -> None:
    """At full speed a house bot's whole game takes a few seconds (a planner's longer, on a
    loaded machine); at a person's pace it would take many minutes."""
    person, started, _ = await _queue_and_start(server, "dee")
    race = str(started["race"])
    await asyncio.sleep(1)  # a second of the race at a person's pace (the behaviour tested): nobody done
    assert all(s.finish is None for s in server.registry.drivers[race].race.seats.values())
    assert (await person.request("leave", race=race))["type"] == "left"
    await eventually(lambda: race not in server.registry.drivers, timeout=30, what="the race to end")
    # the bots of that race queue again (three others were already waiting): none sits locked in a race
    await eventually(lambda: house.bots == _waiting(server), timeout=5, what="every house bot waiting")


async def _some_moves_home(person: Client, started: dict[str, Any], most: int) -> int:
    """Play the base, then cards home while any goes (at most ``most`` moves); returns the moves made."""
    race, legal, seq = started["race"], list(started["legal"]), 1
    made = 0
    while made < most:
        home = [m for m in legal if m.partition("-")[2].startswith("F")]
        if not home:
            break
        answer = await person.request("move", race=race, seq=seq, move=home[0])
        assert answer["type"] == "moved", answer
        legal, seq, made = list(answer["legal"]), seq + 1, made + 1
    return made


async def test_a_person_who_resigns_against_the_house_is_placed_by_what_the_bots_then_play(
    server: RaceServer, house: House
) -> None:
    """The one rule at the end of a race with the house: once the last person resigns, the house
    bots play their own games out at full speed (no resigning for the person's sake), and the
    person's place is what the bots then played."""
    person, started, _ = await _queue_and_start(server, "ada")
    race = str(started["race"])
    assert await _some_moves_home(person, started, 10) >= 1
    core = server.registry.drivers[race].race
    bots = [s for s in core.seats.values() if s.player["kind"] == "bot"]
    assert len(bots) == 3 and all(s.finish is None for s in bots)
    before = {s.player["name"]: s.move_count for s in bots}
    assert (await person.request("resign", race=race))["type"] == "resigned"
    t0 = time.monotonic()
    finished = await person.wait("finished", timeout=90)
    # at a person's pace (2.5 s a move) the bots' games would take many minutes: full speed
    assert time.monotonic() - t0 < 60
    rows = {r["player"]["name"]: r for r in finished["results"]}
    # each bot played on after the person left, and ended its game as a game ends (the goal,
    # stuck, the time), not by resigning
    for name, moves in before.items():
        assert rows[name]["moves"] > moves, (name, moves, rows[name])
        assert rows[name]["finish"] != "resigned", rows[name]
    # the places are what was played: by the one placing rule, from the final rows
    standings = [
        Standing.of(
            goal_time=r["time"] if r["finish"] == "goal" else None,
            score=r["score"],
            terrace_left=r["terrace_left"],
            last_home=r["last_home"],
        )
        for r in finished["results"]
    ]
    assert [r["place"] for r in finished["results"]] == places(standings)
    me = standings[[r["player"]["name"] for r in finished["results"]].index("ada")]
    assert rows["ada"]["place"] == 1 + sum(s < me for s in standings)
    await person.close()


async def test_programs_only_race_at_full_speed(server: RaceServer, house: House) -> None:
    t0 = time.monotonic()
    [result] = await asyncio.wait_for(play(load_bot("greedy"), server.url, name="visitor"), 60)
    assert result.players == 4 and result.place is not None
    # At a person's pace the house bots would take minutes; among programs, seconds.
    assert time.monotonic() - t0 < 30


class _Visitor(GreedyBot):
    """Another author's bot: greedy, a move every 50 ms, resigning after ``RACES_FOR`` s."""

    RACES_FOR = 5.0

    def start(self, race: dict[str, Any]) -> None:
        self.until = time.monotonic() + self.RACES_FOR
        super().start(race)

    async def choose(self, view: View, legal: list[str]) -> Choice:  # type: ignore[override]
        await asyncio.sleep(0.05)  # its pace, which the house must outlast: the behaviour tested
        return None if time.monotonic() > self.until else super().choose(view, legal)


async def test_against_another_authors_bot_the_house_plays_its_games_out(
    server: RaceServer, house: House
) -> None:
    visitor = asyncio.create_task(play(_Visitor, server.url, name="visitor"))
    race = await eventually(lambda: next(iter(server.registry.drivers), None), what="the race")
    core = server.registry.drivers[race].race
    await eventually(lambda: core.state == "running", what="the race to start")
    seats = core.seats.values()
    # Well past the house's play-on time (2 s), while the visitor still races: no house
    # bot has resigned (one may be stuck at full speed; that is its game, not a resignation).
    # The play-on time is a real timeout, so it is waited out.
    await asyncio.sleep(_Visitor.RACES_FOR - 1)
    assert [s.finish for s in seats if s.player["name"] == "visitor"] == [None]
    assert [s.finish for s in seats if s.finish == "resigned"] == []
    [result] = await asyncio.wait_for(visitor, 30)
    assert result.finish == "resigned"
    # programs only: the house bots play their games out at full speed, never resigning
    await eventually(lambda: race not in server.registry.drivers, timeout=60, what="the race to end")
    record = await eventually(lambda: server.archive.record(race), what="the record")
    house_finishes = [r["finish"] for r in record["results"] if r["player"]["name"] != "visitor"]
    assert len(house_finishes) == 3 and "resigned" not in house_finishes, house_finishes


async def test_the_house_adds_bots_on_demand_only_up_to_its_cap() -> None:
    async with RaceServer(Config(host="127.0.0.1", port=0, countdown=0.05, queue_seats=2)) as srv:
        h = House(srv.url, [Slot("random", 1)], ["terrace"], max_bots=2)
        task = asyncio.create_task(h.run())
        try:
            await eventually(lambda: _waiting(srv) == 1, what="one house bot waiting")
            await _queue_and_start(srv, "eve")
            await eventually(lambda: _waiting(srv) == 1 and h.bots == 2, what="a second bot added")
            await _queue_and_start(srv, "fay")
            await eventually(lambda: h.waiting[0, "terrace"] == 0, what="the second bot seated")
            assert h.bots == 2 and _waiting(srv) == 0  # at the cap: no third bot
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def test_a_lineup_larger_than_the_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="more than --max-bots 2"):
        await keep_house("ws://127.0.0.1:9/ws", [Slot("random", 3)], ["terrace"], max_bots=2)


async def test_terrace_bot_house_with_no_server_and_no_wait_fails_at_once_with_one_line() -> None:
    cli = Path(sys.executable).parent / "terrace-bot"
    proc = await asyncio.create_subprocess_exec(
        str(cli), "house", "--server", "ws://127.0.0.1:9/ws", "--wait", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TERRACE_SERVER": ""},
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 1
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("terrace-bot: cannot reach ws://127.0.0.1:9/ws"), lines
    assert "waiting" not in err.decode() and out == b""


async def test_terrace_bot_house_waits_for_a_server_that_comes_up_later_and_says_so(
    make_server: Any, unused_tcp_port: int
) -> None:
    """Started in the same breath as the server (the quick start), the house waits for it."""
    url = f"ws://127.0.0.1:{unused_tcp_port}/ws"
    cli = Path(sys.executable).parent / "terrace-bot"
    proc = await asyncio.create_subprocess_exec(
        str(cli), "house", "--server", url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "TERRACE_SERVER": ""},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert line.decode() == f"house: waiting for the server at {url} to answer…\n"
        server = await make_server(port=unused_tcp_port)
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert line.decode() == f"house: the server at {url} answered.\n"
        await eventually(
            lambda: _waiting(server) == 3, timeout=30, what="the house's three bots in the queue"
        )
    finally:
        proc.terminate()
        assert await asyncio.wait_for(proc.wait(), 15) == 0


async def test_house_wait_must_not_be_negative() -> None:
    cli = Path(sys.executable).parent / "terrace-bot"
    proc = await asyncio.create_subprocess_exec(
        str(cli), "house", "--wait", "-1", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2 and "--wait must be 0 or more seconds" in err.decode()


async def test_a_house_bot_the_server_refuses_stops_the_house_with_the_reason(server: RaceServer) -> None:
    house = House(server.url, [Slot("random", 2)], ["terrace"], prefix="9")  # a name must start with a letter
    with pytest.raises(SDKError, match="bad_name"):
        await asyncio.wait_for(house.run(), 20)


async def test_after_a_server_restart_the_house_still_plays_at_full_speed_once_the_person_resigned(
    unused_tcp_port: int,
) -> None:
    """The house's watcher comes back with its bots (which may have new ids): without it the
    bots kept a person's pace after the person resigned, and the race went on for minutes."""
    from dataclasses import replace

    from tests.server.conftest import FAST

    config = replace(FAST, port=unused_tcp_port, queue_wait=10.0)
    h = House(f"ws://127.0.0.1:{unused_tcp_port}/ws", parse_lineup(DEFAULT_LINEUP), ["terrace"])
    house = None
    try:
        async with RaceServer(config) as first:
            house = asyncio.create_task(h.run())
            await eventually(lambda: _waiting(first) == 3, what="three house bots in the queue")
        async with RaceServer(config) as again:  # the server restarted: nothing of the first kept
            await eventually(
                lambda: _waiting(again) == 3, timeout=30, what="the house bots back in the queue"
            )
            person, started, _ = await _queue_and_start(again, "ada")
            assert sorted(p["kind"] for p in started["players"]) == ["bot", "bot", "bot", "human"]  # type: ignore[attr-defined]
            assert (await person.request("resign", race=started["race"]))["type"] == "resigned"
            # the watcher is back: the bots play their games out at full speed once the person
            # resigned (at a casual 2.5 s a move that would take many minutes)
            t0 = time.monotonic()
            finished = await person.wait("finished", timeout=90)
            assert time.monotonic() - t0 < 60
            assert [r["finish"] for r in finished["results"] if r["player"]["kind"] == "human"] == [
                "resigned"
            ]
            await person.close()
    finally:
        if house is not None:
            house.cancel()
            await asyncio.gather(house, return_exceptions=True)


async def test_terrace_bot_house_variant_all_waits_in_every_variants_queue(server: RaceServer) -> None:
    cli = Path(sys.executable).parent / "terrace-bot"
    proc = await asyncio.create_subprocess_exec(
        str(cli), "house", "--server", server.url, "--variant", "all", "--bots", "greedy:1",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await eventually(lambda: _waiting(server) == 4, timeout=30, what="a house bot in each queue")
        assert sorted(k[0] for k in server.matchmaking.queues) == sorted(terrace.VARIANTS)
    finally:
        proc.terminate()
        assert await asyncio.wait_for(proc.wait(), 30) == 0


async def test_the_watcher_takes_an_empty_table_for_no_news_not_for_nobody_racing() -> None:
    from bots.house.watch import Watcher, _Race

    watcher = Watcher("ws://127.0.0.1:9/ws", frozenset({"g-bot"}))
    watcher.races["r1"] = state = _Race()
    watcher._saw("r1", [])  # a node that has no rows for the race yet
    assert state.known.is_set() and not state.people_done.is_set()
    person = {"player": {"id": "g-ada", "kind": "human"}, "finished": False}
    watcher._saw("r1", [person])
    assert not state.people_done.is_set()
    watcher._saw("r1", [], over=True)  # the race's `finished`: everyone is done
    assert state.people_done.is_set()


async def test_house_bots_wait_without_telling_their_operator_they_wait(
    server: RaceServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Waiting is a house bot's job: the notice a bot author gets after a while in the queue
    would fill the house's log, once a bot and a wait."""
    import bots.sdk

    monkeypatch.setattr(bots.sdk, "QUEUE_NOTICE", 0.2)
    caplog.set_level(logging.WARNING, logger="terrace.bot")
    h = House(server.url, [Slot("greedy", 1)], ["terrace"])
    task = asyncio.create_task(h.run())
    try:
        await eventually(lambda: _waiting(server) == 1, what="the house bot in the queue")
        # the notice is due after 0.2 s of waiting: that time is waited out (1.5 s), and nothing may be said
        await asyncio.sleep(1.5)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert "still waiting" not in caplog.text
