"""The lobby on the wire: create, join, leave, start, the race list, matchmaking,
spectators, lobby subscribers and records of races that are not over."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from server.app import RaceServer
from terrace.wire.protocol import JSON
from tests.poll import eventually
from tests.server.conftest import Connect, MakeServer
from tests.server.wire import Client, Message

# A card name as the engine writes it (Kc, Th, 2d) or as a player may (10h), standing alone.
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[A2-9TJQK])[cdhs](?![A-Za-z0-9])")
SUMMARY_FIELDS = {
    "id",
    "variant",
    "goal",
    "seats",
    "time_limit",
    "entry",
    "start",
    "state",
    "creator",
    "players",
    "created_at",
}


def _race_push(race_id: str, state: str | None = None) -> Callable[[Message], bool]:
    def match(m: Message) -> bool:
        return (
            m.get("type") == "race"
            and m["race"]["id"] == race_id
            and (state is None or m["race"]["state"] == state)
        )

    return match


def _of(type_: str, race_id: str) -> Callable[[Message], bool]:
    return lambda m: m.get("type") == type_ and m.get("race") == race_id


async def _unsent(*clients: Client, types: tuple[str, ...]) -> None:
    """Check that none of ``clients`` was sent a message of ``types`` (so far: each is caught up)."""
    for c in clients:
        await c.caught_up()
        assert [m for m in c.inbox if m.get("type") in types] == []


async def _wait_out(seconds: float) -> None:
    """Let ``seconds`` of real time pass: the tests that call this show that nothing happens however
    long players wait, so the waiting is the behaviour tested."""
    await asyncio.sleep(seconds)


async def _running(connect: Connect, *names: str, **create: Any) -> tuple[str, list[Client], list[Message]]:
    """A running race of guests ``names`` (the first creates and starts it)."""
    clients = [await connect(name=n) for n in names]
    created = await clients[0].request("create", variant="terrace", seats=len(names), **create)
    race_id = created["race"]["id"]
    for c in clients[1:]:
        assert (await c.request("join", race=race_id))["type"] == "joined"
    assert (await clients[0].request("start", race=race_id))["type"] == "starting"
    starts = [await c.wait(_of("started", race_id)) for c in clients]
    return race_id, clients, starts


async def _resign_all(race_id: str, clients: list[Client]) -> list[Message]:
    for c in clients:
        ans = await c.request("resign", race=race_id)
        assert ans["type"] == "resigned", ans
    return [await c.wait(_of("finished", race_id)) for c in clients]


# ----- create ---------------------------------------------------------------------------


async def test_create_answers_created_with_the_race_summary_and_defaults(
    server: RaceServer, connect: Connect
) -> None:
    alice = await connect(name="alice")
    ans = await alice.request("create", variant="terrace")
    assert ans["type"] == "created"
    race = ans["race"]
    assert set(race) >= SUMMARY_FIELDS
    assert isinstance(race["id"], str) and race["id"]
    assert race["variant"] == "terrace"
    assert race["goal"] == "terrace"
    assert race["seats"] == 2
    assert race["time_limit"] == server.config.default_time_limit == 900
    assert race["entry"] == "all"
    assert race["start"] == "manual"
    assert race["state"] == "open"
    assert race["players"] == [alice.player]  # type: ignore[attr-defined]
    assert race["creator"] == alice.player  # type: ignore[attr-defined]
    assert "commitment" not in race and "starts_at" not in race


async def test_create_louis_defaults_to_goal_clear(connect: Connect) -> None:
    alice = await connect(name="alice")
    race = (await alice.request("create", variant="louis"))["race"]
    assert race["variant"] == "louis"
    assert race["goal"] == "clear"


async def test_create_keeps_every_given_field(connect: Connect) -> None:
    bob = await connect(name="bob")
    ans = await bob.request(
        "create",
        variant="queen-of-italy",
        goal="clear",
        seats=4,
        time_limit=600,
        entry="humans",
        start="full",
    )
    assert ans["type"] == "created"
    race = ans["race"]
    assert (race["variant"], race["goal"], race["seats"], race["time_limit"]) == (
        "queen-of-italy",
        "clear",
        4,
        600,
    )
    assert (race["entry"], race["start"], race["state"]) == ("humans", "full", "open")
    assert race["players"] == [bob.player]  # type: ignore[attr-defined]


async def test_create_louis_with_goal_terrace_is_bad_goal(connect: Connect) -> None:
    alice = await connect(name="alice")
    ans = await alice.request("create", variant="louis", goal="terrace")
    assert ans["type"] == "error"
    assert ans["code"] == "bad_goal"
    assert ans["variant"] == "louis"


async def test_create_with_more_seats_than_the_max_is_bad_field_seats(
    server: RaceServer, connect: Connect
) -> None:
    alice = await connect(name="alice")
    assert server.config.max_seats == 8
    ans = await alice.request("create", variant="terrace", seats=9)
    assert ans["type"] == "error"
    assert ans["code"] == "bad_field"
    assert ans["field"] == "seats"
    ok = await alice.request("create", variant="terrace", seats=8)
    assert ok["type"] == "created"
    assert ok["race"]["seats"] == 8


async def test_create_with_a_longer_time_limit_than_the_max_is_bad_field_time_limit(
    server: RaceServer, connect: Connect
) -> None:
    alice = await connect(name="alice")
    assert server.config.max_time_limit == 7_200
    ans = await alice.request("create", variant="terrace", time_limit=7_201)
    assert (ans["type"], ans["code"], ans["field"]) == ("error", "bad_field", "time_limit")
    ok = await alice.request("create", variant="terrace", time_limit=7_200)
    assert ok["type"] == "created" and ok["race"]["time_limit"] == 7_200


async def test_create_with_an_unknown_variant_is_bad_field_variant(connect: Connect) -> None:
    alice = await connect(name="alice")
    ans = await alice.request("create", variant="spider")
    assert ans["type"] == "error"
    assert ans["code"] == "bad_field"
    assert ans["field"] == "variant"


async def test_create_with_join_false_does_not_seat_the_creator(connect: Connect) -> None:
    alice = await connect(name="alice")
    first = await alice.request("create", variant="terrace", join=False)
    assert first["type"] == "created"
    assert first["race"]["players"] == []
    assert first["race"]["state"] == "open"
    # not seated anywhere: alice may create a race she sits in, and join that first race
    second = await alice.request("create", variant="terrace", join=False)
    assert second["type"] == "created"
    joined = await alice.request("join", race=first["race"]["id"])
    assert joined["type"] == "joined"
    assert joined["race"]["players"] == [alice.player]  # type: ignore[attr-defined]


# ----- join, leave, start ---------------------------------------------------------------


async def test_join_a_full_race_is_race_full(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    carol = await connect(name="carol")
    race_id = (await alice.request("create", variant="terrace", seats=2))["race"]["id"]
    joined = await bob.request("join", race=race_id)
    assert joined["type"] == "joined"
    assert joined["race"]["players"] == [alice.player, bob.player]  # type: ignore[attr-defined]
    ans = await carol.request("join", race=race_id)
    assert ans["type"] == "error"
    assert ans["code"] == "race_full"
    assert ans["race"] == race_id


async def test_join_a_started_race_is_race_started(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    race_id = (await alice.request("create", variant="terrace", seats=3))["race"]["id"]
    assert (await alice.request("start", race=race_id))["type"] == "starting"
    ans = await bob.request("join", race=race_id)  # in its countdown
    assert ans["type"] == "error"
    assert ans["code"] == "race_started"
    assert ans["race"] == race_id
    await alice.wait(_of("started", race_id))
    ans = await bob.request("join", race=race_id)  # running
    assert ans["code"] == "race_started"


async def test_join_an_unknown_race_is_no_race(connect: Connect) -> None:
    alice = await connect(name="alice")
    ans = await alice.request("join", race="nosuchrace")
    assert ans["type"] == "error"
    assert ans["code"] == "no_race"
    assert ans["race"] == "nosuchrace"


async def test_entry_bots_refuses_a_human_guest(connect: Connect) -> None:
    botc = await connect()
    reg = await botc.request("register", name="robo", kind="bot")
    assert reg["type"] == "registered"
    race_id = (await botc.request("create", variant="terrace", entry="bots"))["race"]["id"]
    human = await connect(name="alice")
    ans = await human.request("join", race=race_id)
    assert ans["type"] == "error"
    assert ans["code"] == "entry_refused"
    assert ans["race"] == race_id
    assert ans["entry"] == "bots"
    # and a human creating a bots-only race for herself is refused too
    own = await human.request("create", variant="terrace", entry="bots")
    assert own["code"] == "entry_refused"


async def test_a_player_in_a_race_joining_another_is_already_in_race(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    mine = (await alice.request("create", variant="terrace"))["race"]["id"]
    other = (await bob.request("create", variant="terrace"))["race"]["id"]
    ans = await alice.request("join", race=other)
    assert ans["type"] == "error"
    assert ans["code"] == "already_in_race"
    assert ans["race"] == mine
    again = await alice.request("join", race=mine)
    assert again["code"] == "already_in_race"
    create = await alice.request("create", variant="terrace")
    assert create["code"] == "already_in_race"


async def test_start_by_a_non_creator_is_not_creator(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    race_id = (await alice.request("create", variant="terrace"))["race"]["id"]
    await bob.request("join", race=race_id)
    ans = await bob.request("start", race=race_id)
    assert ans["type"] == "error"
    assert ans["code"] == "not_creator"
    assert ans["race"] == race_id


async def test_starting_a_race_nobody_joined_is_race_empty_and_it_stays_open(connect: Connect) -> None:
    alice = await connect(name="alice")
    race_id = (await alice.request("create", variant="terrace", seats=2, join=False))["race"]["id"]
    ans = await alice.request("start", race=race_id)
    assert (ans["type"], ans["code"], ans["race"]) == ("error", "race_empty", race_id)
    bob = await connect(name="bob")
    assert (await bob.request("join", race=race_id))["type"] == "joined"  # still open
    started = await alice.request("start", race=race_id)  # once someone is in, it starts
    assert started["type"] == "starting" and started["race"]["players"][0]["name"] == "bob"


async def test_the_creator_leaving_passes_the_creator_role_to_the_next_player(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    carol = await connect(name="carol")
    race_id = (await alice.request("create", variant="terrace", seats=3))["race"]["id"]
    await bob.request("join", race=race_id)
    await carol.request("join", race=race_id)
    left = await alice.request("leave", race=race_id)
    assert left == {"type": "left", "re": left["re"], "race": race_id}

    push = await carol.wait(lambda m: _race_push(race_id)(m) and len(m["race"]["players"]) == 2)
    assert push["race"]["creator"] == bob.player  # type: ignore[attr-defined]
    assert push["race"]["players"] == [bob.player, carol.player]  # type: ignore[attr-defined]

    assert (await alice.request("start", race=race_id))["code"] == "not_creator"
    assert (await carol.request("start", race=race_id))["code"] == "not_creator"
    starting = await bob.request("start", race=race_id)
    assert starting["type"] == "starting"
    assert starting["race"]["creator"] == bob.player  # type: ignore[attr-defined]


async def test_the_last_player_leaving_cancels_the_race(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    watcher = await connect()
    await watcher.request("subscribe", topic="lobby")
    race_id = (await alice.request("create", variant="terrace"))["race"]["id"]
    await bob.request("join", race=race_id)
    assert (await alice.request("leave", race=race_id))["type"] == "left"
    listed = await bob.request("races")
    assert [r["id"] for r in listed["races"]] == [race_id]
    assert (await bob.request("leave", race=race_id))["type"] == "left"
    cancelled = await watcher.wait(_race_push(race_id, "cancelled"))
    assert cancelled["race"]["players"] == []

    listed = await bob.request("races")
    assert listed["races"] == []
    assert all(r["id"] != race_id for r in listed["finished"])
    assert (await bob.request("join", race=race_id))["code"] == "no_race"
    # both are free again
    assert (await alice.request("create", variant="terrace"))["type"] == "created"


async def test_start_mode_full_starts_the_countdown_when_the_last_seat_fills(
    server: RaceServer, connect: Connect
) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    carol = await connect(name="carol")
    race_id = (await alice.request("create", variant="terrace", seats=3, start="full"))["race"]["id"]
    await bob.request("join", race=race_id)
    race = server.registry.drivers[
        race_id
    ].race  # with a seat free it is open, and nothing is due but its expiry
    assert race.state == "open" and race.starts_ms is None and race.next_wake() == race.open_until
    await alice.caught_up()
    assert [m for m in alice.inbox if m["type"] == "started" or _race_push(race_id, "countdown")(m)] == []
    joined = await carol.request("join", race=race_id)
    assert joined["type"] == "joined"
    for c in (alice, bob, carol):
        push = await c.wait(_race_push(race_id, "countdown"))
        assert isinstance(push["race"]["starts_at"], int)
        started = await c.wait(_of("started", race_id))
        assert [p["name"] for p in started["players"]] == ["alice", "bob", "carol"]


async def test_countdown_push_then_started_to_every_player(connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    race_id = (await alice.request("create", variant="terrace"))["race"]["id"]
    await bob.request("join", race=race_id)
    before = int(time.time() * 1000)
    starting = await alice.request("start", race=race_id)
    assert starting["type"] == "starting"
    assert starting["race"]["state"] == "countdown"

    starts_seen: list[Message] = []
    for c in (alice, bob):
        push = await c.wait(_race_push(race_id, "countdown"))
        assert push["race"]["starts_at"] >= before
        assert push["race"]["starts_at"] == starting["race"]["starts_at"]
        started = await c.wait(_of("started", race_id))
        starts_seen.append(started)
        assert started["seq"] == 0
        assert started["resumed"] is False
        assert isinstance(started["commitment"], str) and len(started["commitment"]) == 64
        assert started["legal"] and isinstance(started["view"], dict)
        assert started["clock"]["time_limit"] == 900
        assert started["players"] == [alice.player, bob.player]  # type: ignore[attr-defined]
        running = await c.wait(_race_push(race_id, "running"))
        assert running["race"]["commitment"] == started["commitment"]
    a, b = starts_seen
    assert a["view"] == b["view"] and a["legal"] == b["legal"] and a["commitment"] == b["commitment"]


# ----- races ------------------------------------------------------------------------------


async def test_races_lists_open_and_running_races_and_finished_ones_under_finished(connect: Connect) -> None:
    alice = await connect(name="alice")
    open_id = (await alice.request("create", variant="terrace"))["race"]["id"]
    run_id, players, _ = await _running(connect, "bob", "carol")

    listed = await alice.request("races")
    assert listed["type"] == "races"
    states = {r["id"]: r["state"] for r in listed["races"]}
    assert states == {open_id: "open", run_id: "running"}
    assert listed["finished"] == []

    await _resign_all(run_id, players)
    listed = await alice.request("races")
    assert [r["id"] for r in listed["races"]] == [open_id]
    assert [r["id"] for r in listed["finished"]] == [run_id]
    brief = listed["finished"][0]
    assert brief["state"] == "finished"
    assert isinstance(brief["seed"], str) and len(brief["seed"]) == 64
    assert {r["player"]["name"] for r in brief["results"]} == {"bob", "carol"}
    assert all("move_list" not in r for r in brief["results"]) and "first_view" not in brief


# ----- queue ------------------------------------------------------------------------------


async def test_two_queued_players_are_matched_after_queue_wait_and_both_start(
    server: RaceServer, connect: Connect
) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    t0 = time.monotonic()
    qa = await alice.request("queue", variant="terrace", goal="terrace")
    assert qa == {
        "type": "queued",
        "re": qa["re"],
        "variant": "terrace",
        "goal": "terrace",
        "pool": "all",
        "house": False,
        "position": 1,
    }
    qb = await bob.request("queue", variant="terrace")
    assert (qb["type"], qb["goal"], qb["position"]) == ("queued", "terrace", 2)

    starts = [await c.wait("started") for c in (alice, bob)]
    waited = time.monotonic() - t0
    assert waited >= server.config.queue_wait - 0.01
    assert starts[0]["race"] == starts[1]["race"]
    assert [p["name"] for p in starts[0]["players"]] == ["alice", "bob"]
    race = (await alice.wait(_race_push(starts[0]["race"], "running")))["race"]
    assert (race["variant"], race["goal"], race["entry"], race["start"]) == (
        "terrace",
        "terrace",
        "all",
        "full",
    )
    assert race["seats"] == 2
    assert race["creator"] is None
    # they left the queue
    assert (await alice.request("unqueue"))["code"] == "not_queued"


async def test_queue_seats_players_are_matched_at_once_without_waiting(
    make_server: MakeServer, connect: Connect
) -> None:
    srv = await make_server(queue_seats=3, queue_wait=30)
    clients = [await connect(name=n, srv=srv) for n in ("alice", "bob", "carol")]
    t0 = time.monotonic()
    positions = [(await c.request("queue", variant="terrace"))["position"] for c in clients]
    assert positions == [1, 2, 3]
    starts = [await c.wait("started", timeout=3) for c in clients]
    assert time.monotonic() - t0 < 3
    assert len({s["race"] for s in starts}) == 1
    assert [p["name"] for p in starts[0]["players"]] == ["alice", "bob", "carol"]


async def test_queue_keeps_apart_different_variants_and_goals(server: RaceServer, connect: Connect) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    carol = await connect(name="carol")
    assert (await alice.request("queue", variant="terrace", goal="terrace"))["position"] == 1
    assert (await bob.request("queue", variant="queen-of-italy", goal="terrace"))["position"] == 1
    assert (await carol.request("queue", variant="terrace", goal="clear"))["position"] == 1
    await _wait_out(server.config.queue_wait + 0.3)
    await _unsent(alice, bob, carol, types=("race", "started"))

    # a partner for alice: matched with her at once (she waited long enough), nobody else
    dave = await connect(name="dave")
    assert (await dave.request("queue", variant="terrace", goal="terrace"))["position"] == 2
    started = await dave.wait("started")
    assert {p["name"] for p in started["players"]} == {"alice", "dave"}
    assert (await alice.wait("started"))["race"] == started["race"]
    await _unsent(bob, carol, types=("race", "started"))


async def test_house_players_alone_never_start_a_race_however_long_they_wait(
    server: RaceServer, connect: Connect
) -> None:
    house = [await connect(name=n) for n in ("filler-1", "filler-2", "filler-3", "filler-4", "filler-5")]
    for c in house:
        answer = await c.request("queue", variant="terrace", house=True)
        assert (answer["type"], answer["house"]) == ("queued", True)
    # five house players: more than a full race (4 seats) and longer than the wait
    await _wait_out(server.config.queue_wait + 0.3)
    await _unsent(*house, types=("race", "started"))


async def test_a_player_joining_waiting_house_players_is_seated_first_and_starts_at_once(
    make_server: MakeServer, connect: Connect
) -> None:
    srv = await make_server(queue_seats=3, queue_wait=30)
    house = [await connect(name=n, srv=srv) for n in ("filler-1", "filler-2", "filler-3")]
    for c in house:
        assert (await c.request("queue", variant="terrace", house=True))["type"] == "queued"
    alice = await connect(name="alice", srv=srv)
    t0 = time.monotonic()
    assert (await alice.request("queue", variant="terrace"))["position"] == 4
    started = await alice.wait("started", timeout=3)
    assert time.monotonic() - t0 < 3  # full at once: no queue_wait
    # alice first, then the house players who waited longest
    assert [p["name"] for p in started["players"]] == ["alice", "filler-1", "filler-2"]
    assert (await house[0].wait("started"))["race"] == started["race"]
    # the third house player is still waiting for the next person
    assert (await house[2].request("queue", variant="terrace", house=True))["code"] == "already_queued"


async def test_one_player_with_one_house_player_starts_after_the_wait(
    server: RaceServer, connect: Connect
) -> None:
    robo = await connect(name="robo")
    assert (await robo.request("queue", variant="signora", house=True))["type"] == "queued"
    await _wait_out(server.config.queue_wait)  # the house player's wait does not count
    alice = await connect(name="alice")
    t0 = time.monotonic()
    await alice.request("queue", variant="signora")
    started = await alice.wait("started")
    assert time.monotonic() - t0 >= server.config.queue_wait - 0.01
    assert {p["name"] for p in started["players"]} == {"alice", "robo"}


async def test_pool_bots_refuses_a_human_and_pool_humans_refuses_a_bot(connect: Connect) -> None:
    alice = await connect(name="alice")
    ans = await alice.request("queue", variant="terrace", pool="bots")
    assert ans["type"] == "error"
    assert ans["code"] == "pool_refused"
    assert ans["pool"] == "bots"
    robo = await connect()
    await robo.request("register", name="robo", kind="bot")
    ans = await robo.request("queue", variant="terrace", pool="humans")
    assert ans["code"] == "pool_refused"
    assert ans["pool"] == "humans"
    # the refused are not queued
    assert (await alice.request("unqueue"))["code"] == "not_queued"
    assert (await robo.request("queue", variant="terrace", pool="bots"))["type"] == "queued"


async def test_queueing_twice_is_already_queued_and_unqueue_when_not_queued_is_not_queued(
    connect: Connect,
) -> None:
    alice = await connect(name="alice")
    ans = await alice.request("unqueue")
    assert ans["type"] == "error"
    assert ans["code"] == "not_queued"
    assert (await alice.request("queue", variant="terrace"))["type"] == "queued"
    again = await alice.request("queue", variant="terrace")
    assert again["type"] == "error"
    assert again["code"] == "already_queued"
    other = await alice.request("queue", variant="signora")
    assert other["code"] == "already_queued"
    assert (await alice.request("create", variant="terrace"))["code"] == "already_queued"
    assert (await alice.request("unqueue"))["type"] == "unqueued"
    assert (await alice.request("unqueue"))["code"] == "not_queued"


async def test_a_queued_player_who_disconnects_leaves_the_queue(server: RaceServer, connect: Connect) -> None:
    ghost = await connect(name="ghost")
    assert (await ghost.request("queue", variant="terrace"))["position"] == 1
    await ghost.close()
    await eventually(lambda: not server.matchmaking.queues, what="the server to notice the close")

    alice = await connect(name="alice")
    bob = await connect(name="bob")
    assert (await alice.request("queue", variant="terrace"))["position"] == 1
    assert (await bob.request("queue", variant="terrace"))["position"] == 2
    started = await alice.wait("started")
    assert [p["name"] for p in started["players"]] == ["alice", "bob"]
    assert (await bob.wait("started"))["race"] == started["race"]


# ----- watching ---------------------------------------------------------------------------


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


async def test_a_spectator_sees_standings_and_the_end_but_never_a_card(connect: Connect) -> None:
    race_id, (alice, bob), starts = await _running(connect, "alice", "bob")
    watcher = await connect(subprotocol=JSON)  # anonymous; JSON so the raw frames are readable

    spectating = await watcher.request("spectate", race=race_id)
    assert spectating["type"] == "spectating"
    assert spectating["race"]["id"] == race_id
    assert spectating["race"]["state"] == "running"
    assert spectating["standings"]["type"] == "standings"
    assert spectating["standings"]["race"] == race_id
    rows = spectating["standings"]["rows"]
    assert {r["player"]["name"] for r in rows} == {"alice", "bob"}
    assert all(r["moves"] == 0 and r["finished"] is False for r in rows)

    # alice plays a few moves; the spectator hears about them as standings
    legal = starts[0]["legal"]
    for seq in range(1, 6):
        move = "S-W" if "S-W" in legal else legal[0]
        moved = await alice.request("move", race=race_id, seq=seq, move=move)
        assert moved["type"] == "moved", moved
        legal = moved["legal"]
    push = await watcher.wait(
        lambda m: (
            m.get("type") == "standings"
            and any(r["player"]["name"] == "alice" and r["moves"] == 5 for r in m["rows"])
        )
    )
    assert push["race"] == race_id
    assert push["state"] == "running"

    await _resign_all(race_id, [alice, bob])
    finished = await watcher.wait(_of("finished", race_id))
    assert len(finished["seed"]) == 64
    assert {r["player"]["name"] for r in finished["results"]} == {"alice", "bob"}

    frames = list(watcher.frames)
    decoded = [json.loads(f) for f in frames]
    end = next(i for i, m in enumerate(decoded) if m["type"] == "finished")
    assert end > 0
    for frame, msg in zip(frames[:end], decoded[:end], strict=True):
        assert isinstance(frame, str)
        assert msg["type"] in {"spectating", "standings", "race"}, msg
        assert not {"view", "legal", "events", "seed", "move", "move_list"} & _keys(msg), msg
        assert CARD.search(frame) is None, frame
        for row in msg.get("rows", []) + msg.get("standings", {}).get("rows", []):
            assert set(row) == {
                "player",
                "score",
                "terrace_left",
                "moves",
                "finished",
                "finish",
                "time",
                "place",
                "connected",
                "live",  # the place now: a count too, never a card
            }


async def test_lobby_subscribers_get_race_and_standings_pushes_until_they_unsubscribe(
    connect: Connect,
) -> None:
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    first = (await alice.request("create", variant="terrace"))["race"]

    watcher = await connect(subprotocol=JSON)
    sub = await watcher.request("subscribe", topic="lobby")
    assert sub["type"] == "subscribed"
    assert sub["topic"] == "lobby"
    assert [r["id"] for r in sub["races"]] == [first["id"]]
    assert sub["races"][0]["state"] == "open"

    carol = await connect(name="carol")
    second = (await carol.request("create", variant="signora"))["race"]
    created = await watcher.wait(_race_push(second["id"], "open"))
    assert created["race"]["players"] == [carol.player]  # type: ignore[attr-defined]

    await bob.request("join", race=first["id"])
    joined = await watcher.wait(_race_push(first["id"]))
    assert [p["name"] for p in joined["race"]["players"]] == ["alice", "bob"]
    await alice.request("start", race=first["id"])
    await watcher.wait(_race_push(first["id"], "countdown"))
    await watcher.wait(_race_push(first["id"], "running"))
    await watcher.wait(_of("standings", first["id"]))
    started = await alice.wait(_of("started", first["id"]))
    move = started["legal"][0]
    assert (await alice.request("move", race=first["id"], seq=1, move=move))["type"] == "moved"
    moved = await watcher.wait(
        lambda m: _of("standings", first["id"])(m) and any(r["moves"] == 1 for r in m["rows"])
    )
    assert moved["state"] == "running"
    assert "view" not in json.dumps(moved)

    unsub = await watcher.request("unsubscribe", topic="lobby")
    assert unsub["type"] == "unsubscribed"
    assert unsub["topic"] == "lobby"
    watcher.inbox.clear()
    await _resign_all(first["id"], [alice, bob])
    await carol.request("leave", race=second["id"])
    dave = await connect(name="dave")
    await dave.request("create", variant="terrace")
    await _unsent(watcher, types=("race", "standings", "finished"))


async def test_subscribe_to_an_unknown_topic_is_bad_field(connect: Connect) -> None:
    watcher = await connect()
    ans = await watcher.request("subscribe", topic="weather")
    assert ans["type"] == "error"
    assert ans["code"] == "bad_field"
    assert ans["field"] == "topic"


# ----- records ----------------------------------------------------------------------------


async def test_record_of_a_running_race_is_not_finished_and_of_an_unknown_race_no_race(
    connect: Connect,
) -> None:
    race_id, players, _ = await _running(connect, "alice", "bob")
    watcher = await connect()
    ans = await watcher.request("record", race=race_id)
    assert ans["type"] == "error"
    assert ans["code"] == "not_finished"
    assert ans["race"] == race_id
    ans = await watcher.request("record", race="nosuchrace")
    assert ans["type"] == "error"
    assert ans["code"] == "no_race"
    assert ans["race"] == "nosuchrace"

    await _resign_all(race_id, players)
    record = await watcher.request("record", race=race_id)
    assert record["type"] == "record"
    assert record["race"]["id"] == race_id
    assert record["race"]["state"] == "finished"
    assert all("move_list" in r for r in record["race"]["results"])


@pytest.mark.parametrize("state", ["open", "countdown"])
async def test_record_of_a_race_not_yet_running_is_not_finished(connect: Connect, state: str) -> None:
    alice = await connect(name="alice")
    race_id = (await alice.request("create", variant="terrace", seats=1))["race"]["id"]
    if state == "countdown":
        await alice.request("start", race=race_id)
    ans = await alice.request("record", race=race_id)
    assert ans["code"] == "not_finished"


# ----- what a page needs on arrival ---------------------------------------------------


async def test_subscribing_to_the_lobby_gets_the_current_standings_of_running_races(
    connect: Connect,
) -> None:
    race, (alice, _bob), _started = await _running(connect, "alice", "bob")
    for seq, move in enumerate(("1-F1", "S-W"), 1):
        moved = await alice.request("move", race=race, seq=seq, move=move)
        assert moved["type"] == "moved", moved
    open_one = (await (await connect(name="carol")).request("create", variant="louis"))["race"]
    await alice.wait(lambda m: m.get("type") == "standings" and any(r["moves"] == 2 for r in m["rows"]))
    watcher = await connect(subprotocol=JSON)
    sub = await watcher.request("subscribe", topic="lobby")
    assert {r["id"] for r in sub["races"]} == {race, open_one["id"]}
    (snapshot,) = sub["standings"]  # running races only: the open one has none
    assert (snapshot["type"], snapshot["race"], snapshot["state"]) == ("standings", race, "running")
    rows = {r["player"]["name"]: r for r in snapshot["rows"]}
    assert (rows["alice"]["moves"], rows["alice"]["score"]) == (2, 1)
    assert rows["bob"]["moves"] == 0
    assert not CARD.search(json.dumps(snapshot))


async def test_a_guest_may_say_it_is_a_bot_and_is_listed_as_one(connect: Connect) -> None:
    bot = await connect()
    welcome = await bot.request("hello", name="robo", kind="bot")
    assert welcome["player"]["kind"] == "bot" and welcome["player"]["guest"] is True
    created = await bot.request("create", variant="terrace", entry="bots")
    assert created["race"]["players"][0]["kind"] == "bot"
    person = await connect()
    assert (await person.request("hello", name="ann"))["player"]["kind"] == "human"
    wrong = await (await connect()).request("hello", name="x1", kind="robot")
    assert (wrong["code"], wrong["field"]) == ("bad_field", "kind")


async def test_a_record_keeps_the_first_view_every_player_got(connect: Connect) -> None:
    race, clients, started = await _running(connect, "alice", "bob")
    await _resign_all(race, clients)

    async def fetched() -> Message | None:
        answer = await clients[0].request("record", race=race)
        return answer["race"] if answer["type"] == "record" else None

    record = await eventually(fetched, what="the record")
    assert record["first_view"] == started[0]["view"] == started[1]["view"]
    assert record["first_view"]["stock"] == 89 and len(record["first_view"]["terrace"]) == 11


async def test_only_a_guest_may_wait_as_house(connect: Connect) -> None:
    """A house player skips the address check of rated races: an account saying house could
    race its own second account for a rating."""
    account = await connect()
    assert (await account.request("register", name="Farmer"))["type"] == "registered"
    refused = await account.request("queue", variant="terrace", house=True)
    assert (refused["code"], refused["field"]) == ("bad_field", "house")
    assert refused["message"] == "Field 'house' is for guests (the operator's house players)."
    guest = await connect(name="robo")
    assert (await guest.request("queue", variant="terrace", house=True))["type"] == "queued"
