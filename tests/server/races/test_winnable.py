"""Winnable-only races end to end: a real server draws a deal the solver proved winnable, and the
record's ``solution`` proves it to anyone; a tampered solution fails the audit. Created races, and
queued ones (``queue {deals: "winnable"}``): winnable and any-deal queues never mix, on one node or
on two nodes sharing one Redis queue."""

from __future__ import annotations

import copy
import hashlib
import secrets
from typing import Any

import pytest

import terrace
from link.session import Session
from server.app import RaceServer
from server.races import winnable
from terrace.race.audit import audit
from terrace.rules.deal import commitment
from terrace.wire.protocol import JSON, MSGPACK
from tests.server.conftest import Connect, MakeServer
from tests.server.races.test_nodes import MakeNode, make_node
from tests.server.wire import Client

__all__ = ["make_node"]  # a fixture


async def test_a_winnable_race_records_a_solution_that_replays_to_a_won_game(connect: Connect) -> None:
    a = await connect(MSGPACK, name="Winner")
    created = await a.request("create", variant="terrace", seats=1, deals="winnable")
    assert created["type"] == "created", created
    assert created["race"]["deals"] == "winnable"  # the lobby says so before the deal
    race = created["race"]["id"]
    assert (await a.request("start", race=race))["type"] == "starting"
    started = await a.wait("started")
    assert (await a.request("move", race=race, seq=1, move="1-F1"))["type"] == "moved"
    await a.request("resign", race=race)
    await a.wait("finished")
    record = (await a.request("record", race=race))["race"]
    seed = bytes.fromhex(record["seed"])
    assert commitment(seed) == started["commitment"] == record["commitment"]
    game = terrace.replay("terrace", seed, record["solution"])  # anyone can check it, no trust needed
    assert record["deals"] == "winnable"
    assert game.status == "won"
    checked = audit(record)
    assert checked.ok, checked.failed
    assert [c.ok for c in checked.checks if c.name == "solution"] == [True]


async def test_a_tampered_solution_fails_verification(connect: Connect) -> None:
    a = await connect(JSON, name="Checker")
    created = await a.request("create", variant="queen-of-italy", seats=1, deals="winnable")
    race = created["race"]["id"]
    await a.request("start", race=race)
    await a.wait("started")
    await a.request("resign", race=race)
    await a.wait("finished")
    record = (await a.request("record", race=race))["race"]
    short = copy.deepcopy(record)
    short["solution"] = short["solution"][:-1]  # legal, but one card short of a win
    swapped = copy.deepcopy(record)
    swapped["solution"][0], swapped["solution"][-1] = swapped["solution"][-1], swapped["solution"][0]
    for bad in (short, swapped):
        failed = audit(bad).failed
        assert [c.name for c in failed] == ["solution"], failed


async def test_an_ordinary_race_has_no_solution(connect: Connect) -> None:
    a = await connect(MSGPACK, name="Plain")
    race = (await a.request("create", variant="terrace", seats=1, deals="any"))["race"]["id"]
    await a.request("start", race=race)
    await a.wait("started")
    await a.request("resign", race=race)
    await a.wait("finished")
    record = (await a.request("record", race=race))["race"]
    assert "solution" not in record and "deals" not in record
    assert "solution" not in [c.name for c in audit(record).checks]


async def test_no_deal_proven_in_time_is_refused_and_makes_no_race(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(winnable_seconds=0.001)
    a = await connect(MSGPACK, name="Hasty", srv=srv)
    refused = await a.request("create", variant="signora", seats=1, deals="winnable")
    assert refused["type"] == "error" and refused["code"] == "no_winnable_deal", refused
    assert (await a.request("races"))["races"] == []
    created = await a.request("create", variant="signora", seats=1)  # the player is still free
    assert created["type"] == "created"


async def test_a_winnable_signora_race_gets_a_deal_whose_solution_replays_to_a_won_game(
    make_server: MakeServer, connect: Connect
) -> None:
    # drawn from random seeds: the signora beam wins about one deal in three from its start
    # (docs/BENCHMARKS.md), so this takes a few seconds; the bound is wide so that a loaded
    # machine (wall time stretched, fewer seeds a second) cannot make it fail
    srv: RaceServer = await make_server(winnable_seconds=300.0)
    a = await connect(MSGPACK, name="Signora", srv=srv)
    created = await a.request("create", variant="signora", seats=1, deals="winnable")
    assert created["type"] == "created", created
    race = created["race"]["id"]
    await a.request("start", race=race)
    await a.wait("started")
    await a.request("resign", race=race)
    await a.wait("finished")
    record = (await a.request("record", race=race))["race"]
    game = terrace.replay("signora", bytes.fromhex(record["seed"]), record["solution"])
    assert game.status == "won"
    assert audit(record).ok


def test_a_signora_draw_passes_seeds_it_cannot_prove_and_keeps_the_first_it_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # fixed seeds, so the draw is the same every time: the first is not won within
    # SIGNORA_NODES_PER_SEED positions, the second is (measured: 14,797 positions with the
    # signora beam narrowed to the budget)
    seeds = [hashlib.sha256(b"signora-test:%d" % i).digest() for i in (0, 9)]
    given = iter(seeds)
    monkeypatch.setattr(secrets, "token_bytes", lambda n: next(given))  # what the draw calls
    drawn = winnable.draw("signora", terrace.RULES_VERSION, 120.0)
    assert drawn is not None and drawn.seed == seeds[1]
    assert terrace.replay("signora", drawn.seed, drawn.solution).status == "won"


async def test_a_bad_deals_word_is_refused(connect: Connect) -> None:
    a = await connect(MSGPACK, name="Odd")
    refused = await a.request("create", variant="terrace", deals="easy")
    assert refused["type"] == "error" and refused["code"] == "bad_field" and refused["field"] == "deals"


# ----- winnable deals from the queue -----------------------------------------------------


async def finish_and_record(clients: list[Client], race: str) -> dict[str, Any]:
    """Everyone resigns; the race's record."""
    for c in clients:
        assert (await c.request("resign", race=race))["type"] == "resigned"
    await clients[0].wait("finished")
    record: dict[str, Any] = (await clients[0].request("record", race=race))["race"]
    return record


async def test_players_queued_for_winnable_deals_race_on_one_and_its_solution_verifies(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(queue_seats=2)
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(JSON, name="Ben", srv=srv)
    queued = await a.request("queue", variant="terrace", deals="winnable")
    assert queued == {
        "type": "queued",
        "re": queued["re"],
        "variant": "terrace",
        "goal": "terrace",
        "pool": "all",
        "house": False,
        "position": 1,
        "deals": "winnable",
    }
    assert (await b.request("queue", variant="terrace", deals="winnable"))["position"] == 2
    started = [await c.wait("started", timeout=30) for c in (a, b)]  # the deal may still be drawing
    race = started[0]["race"]
    assert started[1]["race"] == race
    record = await finish_and_record([a, b], race)
    assert record["start"] == "full" and record["creator"] is None
    checked = audit(record)
    assert checked.ok, checked.failed
    assert [c.ok for c in checked.checks if c.name == "solution"] == [True]
    assert terrace.replay("terrace", bytes.fromhex(record["seed"]), record["solution"]).status == "won"


async def test_winnable_and_any_deal_queues_never_mix(make_server: MakeServer, connect: Connect) -> None:
    srv: RaceServer = await make_server(queue_seats=2, queue_wait=0.2)
    w1 = await connect(MSGPACK, name="Wanda", srv=srv)
    any1 = await connect(MSGPACK, name="Abe", srv=srv)
    assert (await w1.request("queue", variant="terrace", deals="winnable"))["position"] == 1
    plain = await any1.request("queue", variant="terrace")  # an older client: asks nothing new
    assert plain["position"] == 1 and "deals" not in plain  # a queue of its own, and the same answer as ever
    any2 = await connect(MSGPACK, name="Bea", srv=srv)
    assert (await any2.request("queue", variant="terrace", deals="any"))["position"] == 2
    plain_race = (await any1.wait("started"))["race"]
    assert (await any2.wait("started"))["race"] == plain_race
    assert not any(m["type"] == "started" for m in w1.inbox)  # still waiting for one of its kind
    w2 = await connect(MSGPACK, name="Will", srv=srv)
    assert (await w2.request("queue", variant="terrace", deals="winnable"))["position"] == 2
    won_race = (await w1.wait("started", timeout=30))["race"]
    assert (await w2.wait("started", timeout=30))["race"] == won_race != plain_race
    assert "solution" in await finish_and_record([w1, w2], won_race)
    assert "solution" not in await finish_and_record([any1, any2], plain_race)


async def test_a_bad_deals_word_in_the_queue_is_refused(connect: Connect) -> None:
    a = await connect(MSGPACK, name="Odd")
    refused = await a.request("queue", variant="terrace", deals="easy")
    assert refused["type"] == "error" and refused["code"] == "bad_field" and refused["field"] == "deals"
    assert (await a.request("unqueue"))["code"] == "not_queued"  # nothing changed


async def test_a_winnable_queue_player_may_leave_while_the_deal_is_drawn(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(queue_seats=2, winnable_seconds=1.0)  # short draws: a quick stop
    a = await connect(MSGPACK, name="Ann", srv=srv)
    assert (await a.request("queue", variant="signora", deals="winnable"))["type"] == "queued"
    assert (await a.request("unqueue"))["type"] == "unqueued"
    assert srv.matchmaking.queues == {}
    assert (await a.request("create", variant="terrace", seats=1))["type"] == "created"  # free again


async def test_winnable_queue_players_on_two_nodes_race_together_on_a_proven_deal(
    make_node: MakeNode,
) -> None:
    a, b = await make_node(queue_wait=0.5), await make_node(queue_wait=0.5)
    alice, bob = Session(a.url, name="alice"), Session(b.url, name="bob")
    await alice.connect()
    await bob.connect()
    plain = Session(b.url, name="carl")  # any deal: never matched with them
    await plain.connect()
    assert (await plain.request("queue", variant="terrace"))["position"] == 1
    assert (await alice.request("queue", variant="terrace", deals="winnable"))["position"] == 1
    assert (await bob.request("queue", variant="terrace", deals="winnable"))["position"] == 2  # one queue
    started = [await s.push("started", timeout=30) for s in (alice, bob)]
    race = started[0]["race"]
    assert started[1]["race"] == race
    owner = a if race in a.registry.drivers else b
    assert sorted(p["name"] for p in owner.registry.drivers[race].race.summary()["players"]) == [
        "alice",
        "bob",
    ]
    for s in (alice, bob):
        await s.request("resign", race=race)
    await alice.push("finished", timeout=10)
    record = (await alice.request("record", race=race))["race"]
    checked = audit(record)
    assert checked.ok and "solution" in record, checked.failed
    assert (await plain.request("unqueue"))["type"] == "unqueued"  # carl still waited alone
    for s in (alice, bob, plain):
        await s.close()
