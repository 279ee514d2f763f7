"""The server on its stores: leaderboards over the protocol, Redis that outlives a server, Redis down and back."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

from server.app import RaceServer

from .conftest import FAST
from .redis_server import RedisServer
from .wire import Client

Connect = Callable[..., Awaitable[Client]]


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
        await asyncio.sleep(0.2)  # the record and the boards are written just after `finished`
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


async def test_redis_down_is_said_plainly_and_the_server_recovers_by_itself(
    redis_server: RedisServer, redis_url: str
) -> None:
    async with RaceServer(dataclasses.replace(FAST, redis_url=redis_url)) as srv:
        c = await Client.open(srv.url)
        redis_server.stop()
        for _ in range(50):  # the health check runs every second
            status, body = await _health(srv)
            if status == 503:
                break
            await asyncio.sleep(0.1)
        assert (status, body["status"], body["store"]) == (503, "store_down", "RedisStore")
        refused = await c.request("register", name="alice")
        assert (refused["code"], refused["message"]) == (
            "store_down",
            "The server's store is unavailable; nothing was changed. Try again shortly.",
        )
        redis_server.start()
        for _ in range(50):
            status, body = await _health(srv)
            if status == 200:
                break
            await asyncio.sleep(0.1)
        assert body["status"] == "ok"
        assert (await c.request("register", name="alice"))["type"] == "registered"
        await c.close()
