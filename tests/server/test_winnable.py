"""Winnable-only races end to end: a real server draws a deal the solver proved winnable, and the
record's ``solution`` proves it to anyone; a tampered solution fails the audit."""

from __future__ import annotations

import copy

import terrace
from server.app import RaceServer
from terrace.audit import audit
from terrace.deal import commitment
from terrace.protocol import JSON, MSGPACK

from .conftest import Connect, MakeServer


async def test_a_winnable_race_records_a_solution_that_replays_to_a_won_game(connect: Connect) -> None:
    a = await connect(MSGPACK, name="Winner")
    created = await a.request("create", variant="terrace", seats=1, deals="winnable")
    assert created["type"] == "created", created
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
    assert "solution" not in record
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


async def test_a_bad_deals_word_is_refused(connect: Connect) -> None:
    a = await connect(MSGPACK, name="Odd")
    refused = await a.request("create", variant="terrace", deals="easy")
    assert refused["type"] == "error" and refused["code"] == "bad_field" and refused["field"] == "deals"
