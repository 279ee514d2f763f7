"""House bots waiting for people, and the swarm's load figures against the server's own metrics."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from collections.abc import Awaitable, Callable

import pytest

from bots.house.keeper import Slot, keep_house, parse_lineup
from bots.swarm import swarm
from server.app import RaceServer
from tests.poll import eventually
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]


def test_a_lineup_reads_names_counts_and_module_specs() -> None:
    assert parse_lineup("greedy:2,random") == [Slot("greedy", 2), Slot("random", 1)]
    assert parse_lineup("bots.samples.random_bot:RandomBot:3") == [
        Slot("bots.samples.random_bot:RandomBot", 3)
    ]
    assert parse_lineup("planner@fast,greedy@casual:2") == [
        Slot("planner", 1, "fast"),
        Slot("greedy", 2, "casual"),
    ]
    assert parse_lineup("bots.samples.greedy:GreedyBot@slow:2") == [
        Slot("bots.samples.greedy:GreedyBot", 2, "slow")
    ]
    with pytest.raises(ValueError, match="unknown pace 'brisk': choose one of full, fast, casual, slow"):
        parse_lineup("greedy@brisk")
    with pytest.raises(ValueError, match="at least 1"):
        parse_lineup("greedy:0")
    with pytest.raises(ValueError, match="no house bots"):
        parse_lineup(" , ")
    with pytest.raises(ValueError, match="expected MODULE:CLASS"):
        parse_lineup("nosuchbot:2")


async def test_a_person_queueing_alone_races_the_house_bots_at_once(
    server: RaceServer, connect: Connect
) -> None:
    house = asyncio.create_task(keep_house(server.url, [Slot("random", 3)], ["terrace"], races=1))

    def waiting() -> int:
        return sum(len(w.players) for w in server.matchmaking.queues.values())

    await eventually(lambda: waiting() == 3, what="the three house bots waiting")
    # the behaviour tested: house bots alone never start a race, however long the wait (waited out)
    await asyncio.sleep(server.config.queue_wait)
    assert waiting() == 3

    alice = await connect(name="alice")
    await alice.request("queue", variant="terrace")
    started = await alice.wait("started", timeout=3)  # four waiting: a full race at once
    assert [p["name"] for p in started["players"]] == [
        "alice",
        "house-random-1",
        "house-random-2",
        "house-random-3",
    ]
    assert (await alice.request("resign", race=started["race"]))["type"] == "resigned"
    results = await asyncio.wait_for(house, 30)
    assert {r.race for r in results} == {started["race"]}
    assert all(r.players == 4 and r.place is not None for r in results)


async def test_house_bots_wait_in_each_variant_given_under_names_that_fit(server: RaceServer) -> None:
    """With several variants a name carries the variant's short tag: queen-of-italy in full
    would make a planner's name longer than the server allows, and the house would not start."""
    lineup = [Slot("greedy", 1), Slot("planner", 1)]
    house = asyncio.create_task(keep_house(server.url, lineup, ["terrace", "louis", "queen-of-italy"]))
    try:
        await eventually(
            lambda: sum(len(w.players) for w in server.matchmaking.queues.values()) == 6,
            what="six bots waiting",
        )
        assert sorted(k[0] for k in server.matchmaking.queues) == ["louis", "queen-of-italy", "terrace"]
        names = sorted(p.name for w in server.matchmaking.queues.values() for p in w.players)
        assert names == [
            "house-greedy-louis-1",
            "house-greedy-queen-1",
            "house-greedy-terrace-1",
            "house-planner-louis-1",
            "house-planner-queen-1",
            "house-planner-terrace-1",
        ]
        assert not house.done()
    finally:
        house.cancel()
        with pytest.raises(asyncio.CancelledError):
            await house


def _metric(text: str, name: str) -> float:
    m = re.search(rf"^{name} (\S+)$", text, re.M)
    assert m, name
    return float(m.group(1))


async def test_swarm_counts_agree_with_the_servers_metrics(server: RaceServer) -> None:
    report = await swarm(server.url, players=6, races=3, bot="greedy")
    figures = report.summary()
    assert report.races >= 3
    assert report.connections_peak == 6
    assert figures["errors"] == {}
    assert report.moves > 0 and len(report.latencies) == report.moves
    lat = figures["latency_ms"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"]
    url = f"http://127.0.0.1:{server.port}/metrics"
    text = (await asyncio.to_thread(urllib.request.urlopen, url)).read().decode()
    assert _metric(text, "terrace_moves_total") == report.moves
    assert _metric(text, "terrace_races_finished_total") == report.races
    assert _metric(text, "terrace_connections") == 0  # every swarm connection closed


async def test_swarm_refuses_a_swarm_too_small_to_race(server: RaceServer) -> None:
    with pytest.raises(ValueError, match="at least 2 players"):
        await swarm(server.url, players=1, races=1)
