"""The server on its stores: leaderboards over the protocol, Redis that outlives a server, Redis down and back."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from server.app import RaceServer
from server.store import Account
from server.store.redis import RedisStore
from tests.poll import eventually
from tests.server.conftest import FAST
from tests.server.redis_server import RedisServer
from tests.server.store.test_store import _add_as_before_folding
from tests.server.wire import Client


async def _registered(url: str, name: str, kind: str = "human") -> Client:
    c = await Client.open(url)
    answer = await c.request("register", name=name, kind=kind)
    assert answer["type"] == "registered", answer
    c.token = answer["token"]  # type: ignore[attr-defined]
    return c


async def _race(players: list[Client], winner_first: bool = True) -> str:
    """A two-player race: the first resigns last, so both are placed (the second first to resign is 2nd)."""
    created = await players[0].request("create", variant="terrace", seats=len(players), start="full")
    race = created["race"]["id"]
    for p in players[1:]:
        assert (await p.request("join", race=race))["type"] == "joined"
    for p in players:
        await p.wait("started")
    assert (await players[0].request("move", race=race, seq=1, move="1f"))["type"] == "moved"  # one card home
    for p in reversed(players):
        await p.request("resign", race=race)
    await players[0].wait("finished")
    return str(race)


async def _health(srv: RaceServer) -> tuple[int, dict[str, Any]]:
    def get() -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{srv.port}/healthz", timeout=5) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    return await asyncio.to_thread(get)


async def _health_is(srv: RaceServer, status: int) -> tuple[int, Any] | None:
    answer = await _health(srv)
    return answer if answer[0] == status else None


async def test_a_rated_race_reaches_the_boards_and_board_subscribers_hear_it(server: RaceServer) -> None:
    watcher = await Client.open(server.url)
    assert (await watcher.request("subscribe", topic="leaderboards")) == {
        "type": "subscribed",
        "topic": "leaderboards",
        "re": 1,
    }
    alice, bob = await _registered(server.url, "alice"), await _registered(server.url, "bob")
    await _race([alice, bob])
    push = await watcher.wait("leaderboard")
    assert push["board"] in ("wins", "rating")
    rating = await watcher.request("leaderboard", board="rating", variant="terrace", pool="humans")
    assert [r["player"]["name"] for r in rating["rows"]] == ["alice", "bob"]  # alice scored, bob did not
    assert rating["rows"][0]["value"] > rating["rows"][1]["value"]
    wins = await watcher.request("leaderboard", board="wins", variant="terrace")
    assert [(r["rank"], r["player"]["name"], r["value"]) for r in wins["rows"]] == [(1, "alice", 1)]
    refused = await watcher.request("leaderboard", board="rating", variant="terrace")
    assert (refused["code"], refused["message"]) == (
        "bad_board",
        "No such leaderboard: a rating board needs pool 'humans' or 'bots'.",
    )
    bad = await watcher.request("leaderboard", board="speed", variant="terrace")
    assert (bad["code"], bad["field"]) == ("bad_field", "board")


async def test_with_redis_accounts_records_and_boards_outlive_the_server(redis_url: str) -> None:
    config = dataclasses.replace(FAST, redis_url=redis_url)
    async with RaceServer(config) as first:
        alice, bob = await _registered(first.url, "alice"), await _registered(first.url, "bob")
        race = await _race([alice, bob])
        # the record and the boards are written just after `finished`
        await eventually(lambda: first.store.record(race), what="the record in Redis")
        await eventually(lambda: not first.archive._saving, what="the boards to be written")
        token = alice.token  # type: ignore[attr-defined]
        await alice.close()
        await bob.close()
    async with RaceServer(config) as second:
        c = await Client.open(second.url)
        welcome = await c.request("hello", token=token)
        assert (welcome["type"], welcome["player"]["name"]) == ("welcome", "alice")
        record = await c.request("record", race=race)
        assert record["type"] == "record" and [r["player"]["name"] for r in record["race"]["results"]] == [
            "alice",
            "bob",
        ]
        wins = await c.request("leaderboard", board="wins", variant="terrace")
        assert [r["player"]["name"] for r in wins["rows"]] == ["alice"]
        assert (await _health(second)) == (
            200,
            {"status": "ok", "store": "RedisStore", "connections": 1, "races": 0},
        )
        await c.close()


async def test_a_register_and_a_guest_hello_of_one_name_never_both_win(redis_url: str) -> None:
    # On Redis both wait for the store, so the two can interleave; each name goes to one of them.
    async with RaceServer(dataclasses.replace(FAST, redis_url=redis_url, registrations_per_hour=100)) as srv:
        for i in range(60):
            a, b = await Client.open(srv.url), await Client.open(srv.url)
            name = f"racer{i}"
            if i % 2:  # either may be read first
                hello, reg = await asyncio.gather(
                    b.request("hello", name=name), a.request("register", name=name)
                )
            else:
                reg, hello = await asyncio.gather(
                    a.request("register", name=name), b.request("hello", name=name)
                )
            kinds = sorted([reg.get("code", reg["type"]), hello.get("code", hello["type"])])
            assert kinds in (["name_taken", "registered"], ["name_taken", "welcome"]), (i, kinds)
            await a.close()
            await b.close()


async def test_a_finished_race_taken_in_again_is_not_counted_again(redis_url: str) -> None:
    async with RaceServer(dataclasses.replace(FAST, redis_url=redis_url)) as srv:
        alice, bob = await _registered(srv.url, "alice"), await _registered(srv.url, "bob")
        race = await _race([alice, bob])
        await eventually(lambda: srv.store.record(race), what="the record in Redis")
        await eventually(lambda: not srv.archive._saving, what="the boards to be written")
        before = await alice.request("leaderboard", board="rating", variant="terrace", pool="humans")
        record = await srv.store.record(race)
        assert record is not None
        # what a retry does after the store failed with the answer lost
        assert await srv.leaderboards.race_finished(record) == []
        wins = await alice.request("leaderboard", board="wins", variant="terrace")
        assert [(r["player"]["name"], r["value"]) for r in wins["rows"]] == [("alice", 1)]
        after = await alice.request("leaderboard", board="rating", variant="terrace", pool="humans")
        assert after["rows"] == before["rows"]
        await alice.close()
        await bob.close()


async def test_redis_down_is_said_plainly_and_the_server_recovers_by_itself(
    redis_server: RedisServer, redis_url: str
) -> None:
    async with RaceServer(dataclasses.replace(FAST, redis_url=redis_url)) as srv:
        c = await Client.open(srv.url)
        redis_server.stop()
        # the health check runs every second
        status, body = await eventually(
            lambda: _health_is(srv, 503), what="/healthz to say the store is down"
        )
        assert (status, body["status"], body["store"]) == (503, "store_down", "RedisStore")
        refused = await c.request("register", name="alice")
        assert (refused["code"], refused["message"]) == (
            "store_down",
            "The server's store is unavailable; nothing was changed. Try again shortly.",
        )
        redis_server.start()
        status, body = await eventually(lambda: _health_is(srv, 200), what="/healthz to say ok again")
        assert body["status"] == "ok"
        assert (await c.request("register", name="alice"))["type"] == "registered"
        await c.close()


async def test_writes_waiting_for_replicas_that_are_not_there_make_the_store_down_for_this_server(
    redis_url: str,
) -> None:
    """With --redis-replica-acks and no replica, no move could be answered while PING still
    answered: /healthz said ok and a proxy kept sending players to a node that refused them all."""
    from server.store import StoreDown
    from server.store.redis import RedisStore

    store = RedisStore(redis_url, keep_records=10, replica_acks=1)
    with pytest.raises(StoreDown) as down:
        await store.ping()
    assert str(down.value) == "redis: 0 of the 1 replicas that acknowledge writes connected"
    await store.close()
    with pytest.raises(StoreDown):  # the server does not start on it: it says so, and why
        async with RaceServer(dataclasses.replace(FAST, redis_url=redis_url, redis_replica_acks=1)):
            pass


async def test_accounts_from_before_name_folding_keep_working_after_the_upgrade(redis_url: str) -> None:
    """Two accounts registered while ``robo-ladder`` and ``robo_ladder`` were two names: a server of
    today indexes them as it starts; both say hello with their tokens, a third look-alike is refused."""
    old = RedisStore(redis_url)
    try:
        for n, name in ((1, "robo-ladder"), (2, "robo_ladder")):
            token_hash = hashlib.sha256(f"token-{n}".encode()).hexdigest()
            await _add_as_before_folding(
                old, Account(f"p-{n}", name, "human", token_hash, 1_700_000_000_000 + n)
            )
    finally:
        await old.close()
    async with RaceServer(dataclasses.replace(FAST, redis_url=redis_url)) as srv:
        for n, name in ((1, "robo-ladder"), (2, "robo_ladder")):
            c = await Client.open(srv.url)
            welcome = await c.request("hello", token=f"token-{n}")
            assert (welcome["type"], welcome["player"]["name"]) == ("welcome", name), welcome
            await c.close()
        c = await Client.open(srv.url)
        refused = await c.request("register", name="Robo-Lader")
        assert (refused["type"], refused["code"]) == ("error", "name_taken"), refused
        await c.close()
