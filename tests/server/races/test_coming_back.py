"""Leaving and coming back on the wire: `leave` of a running race frees the player at once,
a guest comes back by its session (never by its name), and programs say they are bots."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from server.app import RaceServer
from tests.poll import eventually
from tests.server.races.test_races import open_race, player_id, row_of
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]
MakeServer = Callable[..., Awaitable[RaceServer]]


async def test_a_guest_that_says_it_is_a_bot_is_shown_as_a_bot_and_kept_out_of_the_humans_pool(
    connect: Connect,
) -> None:
    bot = await connect()
    welcome = await bot.request("hello", name="robot-one", kind="bot")
    assert welcome["player"] == {
        "id": welcome["player"]["id"],
        "name": "robot-one",
        "kind": "bot",
        "guest": True,
    }
    person = await connect(name="alice")
    assert person.player["kind"] == "human"  # type: ignore[attr-defined]
    refused = await bot.request("queue", variant="terrace", pool="humans")
    assert refused["code"] == "pool_refused"
    assert (await bot.request("queue", variant="terrace", pool="bots"))["type"] == "queued"
    bad = await (await connect()).request("hello", name="robot", kind="robot")
    assert bad["code"] == "bad_field"


async def test_standings_say_which_player_is_a_bot(connect: Connect) -> None:
    bot = await connect()
    await bot.request("hello", name="robot-two", kind="bot")
    alice = await connect(name="alice")
    created = await alice.request("create", variant="terrace", seats=2, start="full")
    await bot.request("join", race=created["race"]["id"])
    started = await alice.wait("started")
    assert {p["name"]: p["kind"] for p in started["players"]} == {"alice": "human", "robot-two": "bot"}
    standings = await alice.wait("standings")
    assert {r["player"]["name"]: r["player"]["kind"] for r in standings["rows"]} == {
        "alice": "human",
        "robot-two": "bot",
    }


async def test_a_guest_comes_back_to_its_race_by_session_but_its_name_stays_taken(
    make_server: MakeServer, connect: Connect
) -> None:
    srv = await make_server(grace=60)
    race, (a, b), started = await open_race(
        lambda *a_, **k: connect(*a_, srv=srv, **k), ["terrace.v1.msgpack"] * 2
    )
    assert (await a.request("move", race=race, seq=1, move=started[0]["legal"][0]))["type"] == "moved"
    session = a.session  # type: ignore[attr-defined]
    await a.close()
    await eventually(lambda: not srv.registry.drivers[race].race.seats[player_id(a)].connected, what="a away")

    by_name = await (await connect(srv=srv)).request("hello", name="Player1")
    assert by_name["code"] == "name_taken"  # nobody takes a seat by typing a name

    back = await connect(srv=srv)
    welcome = await back.request("hello", session=session)
    assert welcome["player"]["id"] == player_id(a)
    resumed = await back.wait("started")
    assert (resumed["race"], resumed["seq"], resumed["resumed"]) == (race, 1, True)
    assert (await back.request("move", race=race, seq=2, move=resumed["legal"][0]))["type"] == "moved"
    assert b.player["kind"] == "human"  # type: ignore[attr-defined]


async def test_leaving_a_running_race_ends_it_for_the_others_without_waiting_out_the_grace(
    make_server: MakeServer, connect: Connect
) -> None:
    srv = await make_server(grace=60)
    race, (a, b), _ = await open_race(lambda *a_, **k: connect(*a_, srv=srv, **k), ["terrace.v1.msgpack"] * 2)
    assert (await a.request("leave", race=race))["type"] == "left"
    await a.close()  # gone for good: no seat is held for a player who left
    assert (await b.request("resign", race=race))["type"] == "resigned"
    finished = await b.wait("finished", timeout=5)  # not 60 s of grace later
    assert {r["player"]["id"]: r["finish"] for r in finished["results"]} == {
        player_id(a): "left",
        player_id(b): "resigned",
    }
    assert race not in srv.registry.drivers


async def test_a_registered_player_who_left_a_running_race_queues_again_at_once(
    make_server: MakeServer, connect: Connect
) -> None:
    srv = await make_server(grace=60)
    reg = await connect(srv=srv)
    token = (await reg.request("register", name="regina"))["token"]
    await reg.close()
    alice = await connect(srv=srv)
    alice.player = (await alice.request("hello", token=token))["player"]  # type: ignore[attr-defined]
    bob = await connect(name="bob", srv=srv)
    created = await alice.request("create", variant="terrace", seats=2, start="full")
    race = created["race"]["id"]
    await bob.request("join", race=race)
    await alice.wait("started")
    assert (await alice.request("queue", variant="terrace"))["code"] == "already_in_race"
    assert (await alice.request("leave", race=race))["type"] == "left"
    assert (await alice.request("queue", variant="terrace"))["type"] == "queued"
    standings = await bob.wait(lambda m: m["type"] == "standings" and row_of(m["rows"], alice)["finished"])
    assert row_of(standings["rows"], alice)["finish"] == "left"
    assert (await alice.request("leave", race=race))["code"] in ("player_finished", "not_in_race")


async def test_kind_on_hello_never_changes_a_registered_accounts_kind(connect: Connect) -> None:
    reg = await connect()
    token = (await reg.request("register", name="humana", kind="human"))["token"]
    await reg.close()
    again = await connect()
    welcome = await again.request("hello", token=token, kind="bot")
    assert welcome["player"]["kind"] == "human"
