"""Races for the browser tests, made over the wire by real websocket clients."""

from __future__ import annotations

from typing import Any

from server.app import RaceServer
from tests.server.wire import Client

Message = dict[str, Any]


async def guest(server: RaceServer, name: str, kind: str = "human") -> Client:
    c = await Client.open(server.url)
    welcome = await c.request("hello", name=name, kind=kind)
    assert welcome["type"] == "welcome", welcome
    return c


async def running(
    server: RaceServer, *names: str, variant: str = "terrace", deals: str = "any"
) -> tuple[str, list[Client]]:
    """A running race of guests ``names``; returns its id and the clients (their ``started`` waiting).

    ``deals="winnable"`` waits for the server to draw a deal its solver proves winnable."""
    clients = [await guest(server, n) for n in names]
    created = await clients[0].request("create", variant=variant, seats=len(names), deals=deals)
    assert created["type"] == "created", created
    race = created["race"]["id"]
    for c in clients[1:]:
        assert (await c.request("join", race=race))["type"] == "joined"
    assert (await clients[0].request("start", race=race))["type"] == "starting"
    return race, clients


def _progress_first(legal: list[str]) -> str:
    """A move that puts a card home if there is one, else turns or deals, else the first."""
    for test in (lambda m: "-F" in m or m.split("-")[-1][:1] in "AK", lambda m: m.startswith("S-")):
        for m in legal:
            if test(m) and m != "redeal":
                return m
    return legal[0]


async def play(client: Client, race: str, moves: int) -> Message:
    """Play up to ``moves`` moves from ``started``; returns the last answer."""
    started = await client.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    legal, last = started["legal"], started
    for seq in range(1, moves + 1):
        if not legal:
            break
        last = await client.request("move", race=race, seq=seq, move=_progress_first(legal))
        assert last["type"] == "moved", last
        legal = last["legal"]
        if last.get("finish"):
            break
    return last


async def finish(clients: list[Client], race: str) -> None:
    """Everyone still racing resigns; waits for ``finished``."""
    for c in clients:
        await c.request("resign", race=race)  # player_finished for those who are done: fine
    for c in clients:
        await c.wait(lambda m: m.get("type") == "finished" and m["race"] == race)
