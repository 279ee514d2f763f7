"""Many nodes, one Redis: races listed on every node, `redirect` to a race's owner (followed by
the SDK and the CLI's race table), spectators on another node, and a killed node's race adopted."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bots import Bot
from bots.sdk import Racer
from client.play import RaceTable
from server import nodes
from server.app import RaceServer

from .test_durability import Launch, _registered, launch
from .wire import Client

__all__ = ["launch"]  # a fixture

Message = dict[str, Any]
MakeNode = Callable[[], Awaitable[RaceServer]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
async def make_node(redis_url: str, make_server: Callable[..., Awaitable[RaceServer]]) -> MakeNode:
    """A node on the shared Redis that knows its own public URL (a free port chosen up front)."""

    async def make() -> RaceServer:
        port = _free_port()
        return await make_server(
            port=port, public_url=f"ws://127.0.0.1:{port}/ws", countdown=0.0, redis_url=redis_url
        )

    return make


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def _guest(url: str, name: str) -> Client:
    c = await Client.open(url)
    assert (await c.request("hello", name=name))["type"] == "welcome"
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
        return race in b.lobby.races

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
