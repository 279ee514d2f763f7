"""Bad input and limits: a clear error or close code, the connection kept when it can be,
the server never down."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import msgpack
import pytest
from websockets.exceptions import InvalidStatus

from server.app import RaceServer
from terrace.protocol import JSON, MSGPACK
from tests.terrace.positions import SLOW_MOVE, slow_search_position

from .wire import Client

Connect = Callable[..., Awaitable[Client]]
MakeServer = Callable[..., Awaitable[RaceServer]]


async def _still_serving(client: Client) -> None:
    assert (await client.request("ping"))["type"] == "pong"


@pytest.mark.parametrize(
    ("subprotocol", "frame", "code"),
    [
        (MSGPACK, b"\xc1", "bad_message"),
        (MSGPACK, b"\x91" * 3000 + b"\xc0", "bad_message"),
        (MSGPACK, "text on a binary subprotocol", "bad_message"),
        (MSGPACK, msgpack.packb({"type": "teleport"}), "unknown_type"),
        (MSGPACK, msgpack.packb({"id": 1}), "bad_message"),
        (JSON, "{not json", "bad_message"),
        (JSON, b"\x81\xa4type\xa4ping", "bad_message"),
        (JSON, json.dumps(["ping"]), "bad_message"),
        (JSON, json.dumps({"type": "move", "race": "r", "seq": "1", "move": "W-3"}), "bad_field"),
    ],
    ids=[
        "msgpack-garbage",
        "msgpack-too-deep",
        "msgpack-text-frame",
        "unknown-type",
        "no-type",
        "json-garbage",
        "json-binary-frame",
        "json-list",
        "json-wrong-field-type",
    ],
)
async def test_bad_input_gets_an_error_and_the_connection_stays(
    connect: Connect, subprotocol: str, frame: bytes | str, code: str
) -> None:
    client = await connect(subprotocol)
    await client.send_raw(frame)
    error = await client.wait("error")
    assert error["code"] == code
    assert error["message"]
    await _still_serving(client)


async def test_an_error_names_the_request_id_when_it_could_be_read(connect: Connect) -> None:
    client = await connect(JSON)
    await client.send_raw(json.dumps({"type": "move", "id": 41, "race": 5, "seq": 1, "move": "W-3"}))
    error = await client.wait("error")
    assert (error["re"], error["code"], error["field"]) == (41, "bad_field", "race")


async def test_too_many_bad_messages_in_a_row_close_the_connection_with_1008(make_server: MakeServer) -> None:
    server = await make_server(max_bad_messages=3)
    client = await Client.open(server.url)
    for _ in range(3):
        await client.send_raw(b"\xc1")
    assert len([m for m in await _drain(client, 3) if m["code"] == "bad_message"]) == 3
    await client.request("ping")  # a good message resets the count
    for _ in range(4):
        await client.send_raw(b"\xc1")
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1008
    assert client.ws.close_reason == "too many bad or rate-limited messages"


async def _drain(client: Client, n: int) -> list[dict[str, object]]:
    return [await client.wait("error") for _ in range(n)]


async def test_the_rate_limit_drops_messages_past_the_burst_with_retry_after(make_server: MakeServer) -> None:
    server = await make_server(rate=5, burst=5, max_bad_messages=100)
    client = await Client.open(server.url)
    for i in range(20):
        await client.send({"type": "ping", "id": i + 1})
    answers = [await client.wait(lambda m, i=i: m.get("re") == i + 1) for i in range(20)]
    pongs = [a for a in answers if a["type"] == "pong"]
    limited = [a for a in answers if a.get("code") == "rate_limited"]
    assert 5 <= len(pongs) <= 7 and len(pongs) + len(limited) == 20
    assert all(0 < a["retry_after"] <= 1 for a in limited)
    await asyncio.sleep(max(a["retry_after"] for a in limited) + 0.05)
    await _still_serving(client)


async def test_a_frame_over_the_size_limit_closes_with_1009(make_server: MakeServer) -> None:
    server = await make_server(max_frame=1024)
    client = await Client.open(server.url)
    await client.send({"type": "ping", "id": 1, "pad": "x" * 900})
    assert (await client.wait("pong"))["re"] == 1
    await client.send({"type": "ping", "id": 2, "pad": "x" * 2000})
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1009


async def test_connections_past_the_per_address_limit_are_refused_with_429(make_server: MakeServer) -> None:
    server = await make_server(max_conns_per_address=2)
    first, second = await Client.open(server.url), await Client.open(server.url)
    with pytest.raises(InvalidStatus) as info:
        await Client.open(server.url)
    assert info.value.response.status_code == 429
    assert b"too many connections" in info.value.response.body
    await first.close()
    for _ in range(50):  # the server counts the close when its handler ends
        if len(server.connections) < 2:
            break
        await asyncio.sleep(0.02)
    third = await Client.open(server.url)
    await _still_serving(third)
    await _still_serving(second)


async def test_requests_past_the_pending_queue_are_refused_busy(make_server: MakeServer) -> None:
    server = await make_server(max_pending=2, max_bad_messages=100)
    player = await Client.open(server.url)
    await player.request("hello", name="slowpoke")
    race = (await player.request("create", variant="signora", seats=1))["race"]["id"]
    await player.request("start", race=race)
    await player.wait("started")
    me = next(iter(server.lobby.races[race].seats.values()))
    me.game = slow_search_position()  # its next move keeps this connection's worker in a long search
    await player.send({"type": "move", "id": 100, "race": race, "seq": 1, "move": SLOW_MOVE})
    await asyncio.sleep(0.05)
    for i in range(1, 6):
        await player.send({"type": "ping", "id": i})
    answers = [await player.wait(lambda m, i=i: m.get("re") == i) for i in range(1, 6)]
    assert [a.get("code", a["type"]) for a in answers] == ["pong", "pong", "busy", "busy", "busy"]
    assert (
        answers[2]["message"] == "Too many requests are waiting on this connection; wait for their answers."
    )
    assert (await player.wait(lambda m: m.get("re") == 100))["type"] == "moved"
    await _still_serving(player)
