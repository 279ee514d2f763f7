"""Many nodes, one Redis: races listed on every node, `redirect` to a race's owner (followed by
the SDK and the CLI's race table), spectators on another node, and a killed node's race adopted."""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis

from bots import Bot
from bots.sdk import Racer
from client.race_table import RaceTable
from link.session import Session
from server.app import RaceServer
from server.players.accounts import hash_token
from server.races import nodes
from tests.poll import eventually
from tests.server.races.test_durability import Launch, _registered, launch
from tests.server.redis_server import RedisServer, require_redis_server
from tests.server.wire import Client

__all__ = ["launch"]  # a fixture

Message = dict[str, Any]
MakeNode = Callable[..., Awaitable[RaceServer]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
async def make_node(redis_url: str, make_server: Callable[..., Awaitable[RaceServer]]) -> MakeNode:
    """A node on the shared Redis that knows its own public URL (a free port chosen up front)."""

    async def make(**changes: Any) -> RaceServer:
        port = _free_port()
        settings: dict[str, Any] = {"countdown": 0.0, "redis_url": redis_url, **changes}
        return await make_server(port=port, public_url=f"ws://127.0.0.1:{port}/ws", **settings)

    return make


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    await eventually(check, timeout=timeout, every=0.05)


async def _guest(url: str, name: str) -> Client:
    c = await Client.open(url)
    welcome = await c.request("hello", name=name)
    assert welcome["type"] == "welcome"
    c.player, c.session = welcome["player"], welcome["session"]  # type: ignore[attr-defined]
    return c


class Brief(Bot):
    """Three moves, then it resigns."""

    moves = 0

    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        self.moves += 1
        return legal[0] if self.moves <= 3 else None


async def test_a_race_on_one_node_is_listed_on_the_other_which_redirects_to_its_owner(
    make_node: MakeNode,
) -> None:
    a, b = await make_node(), await make_node()
    alice = await _guest(a.url, "alice")
    created = await alice.request("create", variant="terrace", seats=2, start="full")
    race = created["race"]["id"]
    bob = await _guest(b.url, "bob")

    async def listed() -> bool:
        answer = await bob.request("races")
        return race in [r["id"] for r in answer["races"]]

    await _until(listed)
    for kind, fields in (("join", {}), ("start", {}), ("move", {"seq": 1, "move": "1-F1"})):
        answer = await bob.request(kind, race=race, **fields)
        assert answer == {"type": "redirect", "re": answer["re"], "race": race, "url": a.url}
    assert (await bob.request("record", race=race))["code"] == "not_finished"
    assert (await bob.request("join", race="nope"))["code"] == "no_race"
    await alice.close()
    await bob.close()


async def test_the_sdk_and_the_race_table_follow_redirects_and_spectators_elsewhere_see_standings(
    make_node: MakeNode,
) -> None:
    a, b = await make_node(), await make_node()
    alice = await _guest(a.url, "alice")
    created = await alice.request("create", variant="terrace", seats=3, start="full", time_limit=60)
    race = created["race"]["id"]
    watcher = await Client.open(b.url)
    spectating = await watcher.request("spectate", race=race)
    assert spectating["type"] == "spectating" and spectating["race"]["id"] == race

    table = RaceTable(b.url, {"name": "carol"})
    await table.connect()
    joined = await table.ask("join", race=race)
    assert joined["type"] == "joined" and table.url == a.url

    racer = Racer(Brief, b.url, name="bot")
    playing = asyncio.create_task(racer.race(race=race))
    started = await alice.wait("started")
    assert racer.url == a.url
    answer = await alice.request("move", race=race, seq=1, move=started["legal"][0])
    assert answer["type"] == "moved"
    assert table.started is not None
    await asyncio.wait_for(table.started, 5)
    outcome = await table.move(table.legal()[0])
    assert outcome.ok

    async def seen() -> bool:
        rows = [m for m in watcher.take_all("standings") if m["race"] == race]
        return any({r["player"]["name"]: r["moves"] for r in m["rows"]}.get("alice") == 1 for m in rows)

    await _until(seen)
    await alice.request("resign", race=race)
    await table.commands()["resign"]()
    result = await asyncio.wait_for(playing, 30)
    assert result.race == race and result.players == 3
    finished = await watcher.wait("finished")
    assert finished["race"] == race
    await racer.close()
    await table.close()
    for c in (alice, watcher):
        await c.close()


async def test_a_killed_nodes_race_is_adopted_by_another_with_every_acknowledged_move(
    launch: Launch, make_node: MakeNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()
    a_url = f"ws://127.0.0.1:{port}/ws"
    proc, _ = launch("--port", str(port), "--public-url", a_url)
    b = await make_node()
    alice, bob = await _registered(a_url, "alice"), await _registered(a_url, "bob")
    created = await alice.request("create", variant="terrace", seats=2, start="full", time_limit=600)
    race = created["race"]["id"]
    assert (await bob.request("join", race=race))["type"] == "joined"
    started = await alice.wait("started")
    answers = [await alice.request("move", race=race, seq=1, move=started["legal"][0])]
    answers.append(await alice.request("move", race=race, seq=2, move=answers[-1]["legal"][0]))
    assert [x["type"] for x in answers] == ["moved", "moved"]
    token = alice.token  # type: ignore[attr-defined]
    proc.kill()
    await asyncio.to_thread(proc.wait, 5)

    async def adopted() -> bool:
        return race in b.registry.drivers

    await _until(adopted, nodes.LEASE_TTL + 5)
    alice = await Client.open(b.url)
    assert (await alice.request("hello", token=token))["type"] == "welcome"
    resumed = await alice.wait("started")
    assert resumed["resumed"] is True and resumed["seq"] == 2
    assert resumed["legal"] == answers[-1]["legal"]
    again = await alice.request("move", race=race, seq=2, move=answers[-1]["move"])
    assert again["type"] == "moved" and again["seq"] == 2
    assert (await alice.request("move", race=race, seq=3, move=resumed["legal"][0]))["type"] == "moved"
    await alice.close()
    await bob.close()


async def test_a_lobby_subscriber_on_another_node_gets_a_running_races_standings_at_once(
    make_node: MakeNode,
) -> None:
    a, b = await make_node(), await make_node()
    alice = await _guest(a.url, "alice")
    race = (await alice.request("create", variant="terrace", seats=1))["race"]["id"]
    await alice.request("start", race=race)
    started = await alice.wait("started")
    moved = await alice.request("move", race=race, seq=1, move=started["legal"][0])
    assert moved["type"] == "moved"
    watcher = await Client.open(b.url)

    async def snapshot() -> Message | None:
        sub = await watcher.request("subscribe", topic="lobby")
        await watcher.request("unsubscribe", topic="lobby")
        found = [s for s in sub["standings"] if s["race"] == race]
        return found[0] if found and found[0]["rows"][0]["moves"] == 1 else None

    standings = await eventually(snapshot, what="the shared standings on the other node")
    assert standings["rows"][0]["player"]["name"] == "alice" and standings["rows"][0]["score"] == 1


async def test_a_guest_sent_to_another_node_is_the_same_guest_there(make_node: MakeNode) -> None:
    a, b = await make_node(), await make_node()
    alice = await _guest(a.url, "alice")
    race = (await alice.request("create", variant="terrace", seats=2, start="full"))["race"]["id"]
    carol = Session(b.url, name="carol")
    who = (await carol.connect())["player"]
    session = carol.policy.session
    assert (await carol.request("join", race=race))["type"] == "joined"
    assert carol.url == a.url  # redirected, and welcomed there by session
    assert carol.player == who and carol.policy.session == session
    assert list(a.registry.drivers[race].race.seats) == [alice.player["id"], who["id"]]  # type: ignore[attr-defined]
    started = await carol.push("started", race=race, timeout=10)
    assert started["race"] == race
    # back home (a reconnect, or the next redirect) the session is still carol's
    again = await Client.open(b.url)
    welcome = await again.request("hello", session=session)
    assert (welcome["type"], welcome["player"], welcome["session"]) == ("welcome", who, session)
    await carol.close()
    await again.close()
    await alice.close()


async def test_a_session_expires_on_every_node_after_its_ttl(make_node: MakeNode) -> None:
    a, b = await make_node(session_ttl=1.0), await make_node(session_ttl=1.0)
    ann = await _guest(a.url, "ann")
    session = ann.session  # type: ignore[attr-defined]
    await ann.close()
    await _until(lambda: _expired(b, session))
    late = await Client.open(b.url)
    assert (await late.request("hello", session=session))["code"] == "bad_session"
    await late.close()


async def _expired(node: RaceServer, session: str) -> bool:
    return await node.store.session_get(hash_token(session)) is None


async def test_a_node_that_stalled_past_its_lease_sends_its_players_to_the_new_owner(
    launch: Launch, make_node: MakeNode
) -> None:
    port = _free_port()
    a_url = f"ws://127.0.0.1:{port}/ws"
    proc, _ = launch("--port", str(port), "--public-url", a_url)
    b = await make_node(grace=30.0)
    alice = Session(a_url, name="alice")  # the client stack: follows the push by itself
    await alice.connect()
    bob, watcher = await _guest(a_url, "bob"), await Client.open(a_url)
    created = await alice.request("create", variant="terrace", seats=2, start="full", time_limit=600)
    race = created["race"]["id"]
    assert (await bob.request("join", race=race))["type"] == "joined"
    started = await alice.push("started", race=race, timeout=10)
    assert (await watcher.request("spectate", race=race))["type"] == "spectating"
    assert (await alice.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
    proc.send_signal(signal.SIGSTOP)  # a node that stalls (a long pause, a partition) past its lease
    try:
        await _until(lambda: _running(b, race), nodes.LEASE_TTL + 10)
    finally:
        proc.send_signal(signal.SIGCONT)
    redirect = await bob.wait("redirect", timeout=10)
    assert redirect == {"type": "redirect", "race": race, "url": b.url}
    resumed = await alice.push("started", race=race, timeout=10)
    assert alice.url == b.url and resumed["resumed"] is True and resumed["seq"] == 1
    moved = await alice.request("move", race=race, seq=2, move=resumed["legal"][0])
    assert moved["type"] == "moved"

    async def caught_up() -> bool:  # the spectator left on the old owner sees the new owner's numbers
        rows = [m for m in watcher.take_all("standings") if m["race"] == race]
        return any({r["player"]["name"]: r["moves"] for r in m["rows"]}.get("alice") == 2 for m in rows)

    await _until(caught_up)
    await alice.close()
    for c in (bob, watcher):
        await c.close()


async def _running(node: RaceServer, race: str) -> bool:
    return race in node.registry.drivers


async def test_news_the_store_missed_while_down_is_shared_once_it_is_back(
    make_node: MakeNode, tmp_path: Path
) -> None:
    with RedisServer(require_redis_server(), appendonly=True, dir=tmp_path) as own:
        a, b = await make_node(redis_url=own.url), await make_node(redis_url=own.url)
        alice, bob = await _guest(a.url, "alice"), await _guest(a.url, "bob")
        race = (await alice.request("create", variant="terrace", seats=3, start="full"))["race"]["id"]
        watcher = await Client.open(b.url)
        await _until(lambda: _listed(watcher, race))
        spectating = await watcher.request("spectate", race=race)
        assert len(spectating["race"]["players"]) == 1
        own.stop()
        assert (await bob.request("join", race=race))["type"] == "joined"  # its news cannot be shared now
        own.start()

        async def caught_up() -> bool:
            return any(len(m["race"]["players"]) == 2 for m in watcher.take_all("race"))

        await _until(caught_up, 15)
        for c in (alice, bob, watcher):
            await c.close()


async def test_spectators_on_a_node_that_missed_events_catch_up_from_the_store(make_node: MakeNode) -> None:
    with RedisServer(require_redis_server()) as own, redis.Redis(port=own.port) as admin:
        # node b as a Redis user of its own
        admin.acl_setuser("nodeb", enabled=True, nopass=True, keys=["*"], channels=["*"], commands=["+@all"])
        a = await make_node(redis_url=own.url)
        b = await make_node(redis_url=f"redis://nodeb:x@127.0.0.1:{own.port}/0")
        alice, bob = await _guest(a.url, "alice"), await _guest(a.url, "bob")
        race = (await alice.request("create", variant="terrace", seats=3, start="full"))["race"]["id"]
        watcher = await Client.open(b.url)
        await _until(lambda: _listed(watcher, race))
        assert len((await watcher.request("spectate", race=race))["race"]["players"]) == 1
        # b hears no event from here on (Redis drops its subscription and refuses a new one)
        admin.acl_setuser(
            "nodeb", enabled=True, nopass=True, keys=["*"], reset_channels=True, commands=["+@all"]
        )
        assert (await bob.request("join", race=race))["type"] == "joined"

        async def caught_up() -> bool:
            return any(len(m["race"]["players"]) == 2 for m in watcher.take_all("race"))

        await _until(caught_up)
        for c in (alice, bob, watcher):
            await c.close()


async def _listed(c: Client, race: str) -> bool:
    return race in [r["id"] for r in (await c.request("races"))["races"]]


async def test_people_queued_on_two_nodes_race_together_within_the_queue_wait(make_node: MakeNode) -> None:
    a, b = await make_node(queue_wait=1.0), await make_node(queue_wait=1.0)
    alice, bob = Session(a.url, name="alice"), Session(b.url, name="bob")
    await alice.connect()
    await bob.connect()
    t0 = time.monotonic()
    assert (await alice.request("queue", variant="terrace"))["position"] == 1
    assert (await bob.request("queue", variant="terrace"))["position"] == 2  # one queue
    started = [await s.push("started", timeout=10) for s in (alice, bob)]
    assert time.monotonic() - t0 < 1.0 + 2.0  # the wait, and a little for a loaded machine
    race = started[0]["race"]
    assert started[1]["race"] == race
    owner = a if race in a.registry.drivers else b
    assert len(owner.registry.drivers[race].race.seats) == 2
    assert alice.url == bob.url == owner.url  # the one queued elsewhere was sent there
    for s, st in zip((alice, bob), started, strict=True):
        assert (await s.request("move", race=race, seq=1, move=st["legal"][0]))["type"] == "moved"
    assert (await bob.request("unqueue"))["code"] == "not_queued"
    await alice.close()
    await bob.close()


async def test_two_accounts_of_one_address_paired_by_the_shared_queue_race_unrated(
    make_node: MakeNode,
) -> None:
    # every test client is 127.0.0.1: one address, held to one rated seat as a server is by default
    a, b = (
        await make_node(queue_wait=0.3, rated_seats_per_address=1),
        await make_node(rated_seats_per_address=1),
    )
    one, two = await _registered(a.url, "OneOfUs"), await _registered(b.url, "OtherOfUs")
    sessions = [Session(a.url, token=one.token), Session(b.url, token=two.token)]  # type: ignore[attr-defined]
    for s in sessions:
        await s.connect()
        assert (await s.request("queue", variant="terrace"))["type"] == "queued"
    started = [await s.push("started", timeout=10) for s in sessions]
    race = started[0]["race"]
    for s in sessions:
        assert (await s.request("resign", race=race))["type"] == "resigned"
    owner = a if race in a.registry.drivers or await a.store.record(race) else b

    async def kept() -> dict[str, Any] | None:
        return await owner.store.record(race)  # type: ignore[return-value]

    record = await eventually(kept, what="the race's record")
    assert record["unrated"] == "same_address"  # unrated after all: it moved no rating
    await eventually(lambda: not owner.archive._saving, what="the race put on the boards")
    board = await sessions[0].request("leaderboard", board="rating", variant="terrace", pool="humans")
    assert [r for r in board["rows"] if r["player"]["name"] in ("OneOfUs", "OtherOfUs")] == []
    for s in sessions:
        await s.close()


async def test_a_house_player_on_one_node_fills_a_race_for_a_person_on_another(make_node: MakeNode) -> None:
    a, b = await make_node(queue_seats=2, queue_wait=30), await make_node(queue_seats=2, queue_wait=30)
    robo = Session(a.url, name="robo")
    await robo.connect()
    assert (await robo.request("queue", variant="signora", house=True))["type"] == "queued"
    carol = Session(b.url, name="carol")
    await carol.connect()
    assert (await carol.request("queue", variant="signora"))["position"] == 2
    started = [await s.push("started", timeout=10) for s in (carol, robo)]  # full: no queue wait
    assert started[0]["race"] == started[1]["race"]
    await robo.close()
    await carol.close()


async def test_a_waiting_race_whose_node_was_killed_is_joined_elsewhere_and_starts(
    launch: Launch, make_node: MakeNode
) -> None:
    port = _free_port()
    a_url = f"ws://127.0.0.1:{port}/ws"
    proc, _ = launch("--port", str(port), "--public-url", a_url)
    b = await make_node(grace=30.0)
    alice = await _guest(a_url, "alice")
    created = await alice.request("create", variant="terrace", seats=2, start="full", time_limit=600)
    race = created["race"]["id"]
    await _until(lambda: _kept(b, race))  # kept as soon as it was made
    proc.kill()
    await asyncio.to_thread(proc.wait, 5)
    bob = await _guest(b.url, "bob")

    async def joined() -> bool:  # a redirect to the dead node until its lease runs out
        return (await bob.request("join", race=race))["type"] == "joined"

    await _until(joined, nodes.LEASE_TTL + 10)
    started = await bob.wait("started", timeout=10)
    assert started["race"] == race
    back = await Client.open(b.url)  # alice comes back to the node that took her race on
    welcome = await back.request("hello", session=alice.session)  # type: ignore[attr-defined]
    assert (welcome["player"], welcome["race"]) == (alice.player, race)  # type: ignore[attr-defined]
    resumed = await back.wait("started", timeout=10)
    assert resumed["resumed"] is True and resumed["legal"] == started["legal"]
    assert (await back.request("move", race=race, seq=1, move=resumed["legal"][0]))["type"] == "moved"
    assert (await bob.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
    await back.close()
    await bob.close()


async def _kept(node: RaceServer, race: str) -> bool:
    return await node.store.race_waiting(race) is not None


async def test_house_bots_on_one_node_keep_a_persons_pace_in_a_race_another_node_owns(
    make_node: MakeNode,
) -> None:
    """The house watches from its own node, which has only the race's summary during the
    countdown: an empty table there once read as "nobody races", and the bots resigned after 2 s."""
    from bots.house.keeper import DEFAULT_LINEUP, House, parse_lineup

    a, b = await make_node(countdown=1.0), await make_node(countdown=1.0)
    house = House(a.url, parse_lineup(DEFAULT_LINEUP), ["terrace"])
    running = asyncio.create_task(house.run())
    try:
        await eventually(lambda: len(house.own.racers) == 3, timeout=20, what="the house bots connected")
        person = Session(b.url, name="ada")
        await person.connect()
        assert (await person.request("queue", variant="terrace"))["type"] == "queued"
        started = await person.push("started", timeout=20)
        race = started["race"]
        owner = a if race in a.registry.drivers else b
        # the behaviour tested is what the bots do while time passes with the person idle: they gave
        # up 2 s in when the bug was there, so 4 s of real time are waited out
        await asyncio.sleep(4.0)  # the person has not moved: the bots must still be racing
        seats = owner.registry.drivers[race].race.seats.values()
        assert [s.finish for s in seats if s.player["kind"] == "bot"] == [None, None, None]
        assert (await person.request("resign", race=race))["type"] == "resigned"
        await person.push("finished", timeout=20)  # then they leave soon after the person
        await person.close()
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
