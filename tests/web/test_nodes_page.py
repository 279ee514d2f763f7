"""The pages on several nodes sharing one Redis: a page served by one node follows ``redirect``
to the node that runs its race, says hello there with its session and plays on."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from server.app import RaceServer
from tests.poll import eventually
from tests.server.redis_server import redis_server, redis_url
from tests.server.wire import Client

from .conftest import MakeServer, http_url, shot

__all__ = ["redis_server", "redis_url"]  # fixtures: a private redis-server

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _node(make_server: MakeServer, redis_url: str) -> RaceServer:
    port = _free_port()
    # the nodes' pages share a host in a deployment (DEPLOY.md); here their ports differ, so allow them
    return await make_server(
        port=port, public_url=f"ws://127.0.0.1:{port}/ws", redis_url=redis_url, origins="*"
    )


def _seated(node: RaceServer, race: str) -> list[str]:
    return [p["name"] for p in node.registry.get(race).race.summary()["players"]]


async def test_a_page_served_by_another_node_joins_and_plays_the_race_where_it_runs(
    make_server: MakeServer, redis_url: str, page: Any
) -> None:
    a, b = await _node(make_server, redis_url), await _node(make_server, redis_url)
    alice = await Client.open(a.url)
    assert (await alice.request("hello", name="alice"))["type"] == "welcome"
    race = (await alice.request("create", variant="terrace", seats=2, start="manual"))["race"]["id"]

    await page.goto(http_url(b, f"/play/{race}"))  # the link, opened on the other node
    await page.locator("#invite").wait_for()
    await page.locator("#name").fill("bea")
    await page.locator("#go").click()
    await page.get_by_text("You are bea").wait_for()
    await page.locator("#join").click()  # answered `redirect` by b: the page moves to a and joins there
    await eventually(lambda: _seated(a, race) == ["alice", "bea"], what="bea seated on node a")
    await page.locator(".players li").nth(1).wait_for()
    assert await page.evaluate("document.getElementById('status').textContent") == "live"

    assert (await alice.request("start", race=race))["type"] == "starting"
    await page.locator(".board").wait_for()
    legal = await page.locator("#legal button").evaluate_all("bs => bs.map(b => b.dataset.move)")
    await page.locator("#typed").fill(legal[0])
    await page.locator("#typed").press("Enter")
    await page.get_by_text("move 1").wait_for()
    seat = a.registry.get(race).race.seats
    assert [len(s.game.moves) for s in seat.values()] == [0, 1]
    await shot(page, "play-on-another-node")
    await alice.close()
