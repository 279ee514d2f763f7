"""Deals drawn on demand wait their turn: a flood of ``create {deals: "winnable"}`` (or
``challenge_create``) from many connections of one address holds one place in the line, so a
player from another address is drawn for next, not after the whole flood."""

from __future__ import annotations

import asyncio

from terrace.wire.protocol import MSGPACK
from tests.server.conftest import MakeServer
from tests.server.wire import Client, Message

FLOOD = 4  # connections of one address, each asking for a winnable deal at once


async def _guest(url: str, name: str, source: str, account: bool = False) -> Client:
    """A guest (or, with ``account``, a new account: challenges are made by accounts) from ``source``."""
    client = await Client.open(url, MSGPACK, local_addr=(source, 0))
    welcome = (
        await client.request("register", name=name) if account else await client.request("hello", name=name)
    )
    assert welcome["type"] in ("welcome", "registered"), welcome
    return client


async def _answers_in_order(
    make_server: MakeServer, request: str, fields: dict[str, object]
) -> tuple[list[str], list[Message]]:
    """Who was answered in which order: ``FLOOD`` requests from 127.0.0.1, then one from 127.0.0.2."""
    server = await make_server(search_workers=2)
    account = request == "challenge_create"
    flood = [await _guest(server.url, f"flood{i}", "127.0.0.1", account) for i in range(FLOOD)]
    order: list[str] = []
    answers: list[Message] = []

    async def ask(client: Client, who: str) -> None:
        answer = await client.request(request, **fields)
        order.append(who)
        answers.append(answer)

    asks = [asyncio.create_task(ask(c, "flood")) for c in flood]
    # the flood's frames are in the server before this connection's handshake and hello are through
    other = await _guest(server.url, "other", "127.0.0.2", account)
    asks.append(asyncio.create_task(ask(other, "other")))
    await asyncio.gather(*asks)
    for c in [*flood, other]:
        await c.close()
    return order, answers


async def test_a_flood_of_winnable_creates_from_one_address_holds_one_place_in_the_line(
    make_server: MakeServer,
) -> None:
    order, answers = await _answers_in_order(
        make_server, "create", {"variant": "terrace", "deals": "winnable"}
    )
    assert all(a["type"] in ("created", "error") for a in answers), answers
    assert all(a.get("code") in (None, "no_winnable_deal") for a in answers), answers
    # one draw of the flood may be under way when the other address asks; never more
    assert order.index("other") <= 1, order


async def test_a_flood_of_challenges_from_one_address_holds_one_place_in_the_line(
    make_server: MakeServer,
) -> None:
    order, answers = await _answers_in_order(make_server, "challenge_create", {"variant": "terrace"})
    assert all(a.get("code") in (None, "no_winnable_deal") for a in answers), answers
    assert order.index("other") <= 1, order
