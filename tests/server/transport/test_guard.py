"""The door: sockets counted per address from accept (half-open handshakes included),
a short handshake timeout, and websocket control frames rate limited."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os

import pytest
from websockets.exceptions import InvalidStatus

from tests.poll import eventually
from tests.server.conftest import MakeServer
from tests.server.wire import Client


async def _half_open(port: int, n: int) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """``n`` sockets that connect and never send a handshake."""
    return [await asyncio.open_connection("127.0.0.1", port) for _ in range(n)]


async def _dropped(reader: asyncio.StreamReader) -> bool:
    with contextlib.suppress(ConnectionError):
        return await asyncio.wait_for(reader.read(1), 5) == b""
    return True


async def test_half_open_handshakes_count_against_the_address_cap_until_their_timeout(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_conns_per_address=4, handshake_timeout=0.5)
    sockets = await _half_open(server.port, 4)
    with pytest.raises(InvalidStatus) as info:  # the four hold every slot of the address
        await Client.open(server.url)
    assert info.value.response.status_code == 429
    # the handshake timeout closes them, and the slots are free again
    assert all([await _dropped(r) for r, _ in sockets])
    client = await eventually(lambda: _try_open(server.url), what="a slot after the timeout")
    assert (await client.request("ping"))["type"] == "pong"
    await client.close()
    for _, w in sockets:
        w.close()


async def _try_open(url: str) -> Client | None:
    try:
        return await Client.open(url)
    except InvalidStatus:
        return None


async def test_sockets_far_past_the_cap_are_dropped_at_once(make_server: MakeServer) -> None:
    # cap 2: two go on, 16 more wait for their 429, the rest are dropped on accept
    server = await make_server(max_conns_per_address=2, handshake_timeout=30)
    sockets = await _half_open(server.port, 24)
    dropped = [await _dropped(r) for r, _ in sockets[18:]]
    assert dropped == [True] * 6
    assert b'terrace_connections_cut_total{reason="address_cap"} 6.0' in server.metrics.text()
    # the first 18 are still open, waiting for a handshake
    assert server.guard.open.count("127.0.0.1") == 18
    for _, w in sockets:
        w.close()
    await eventually(lambda: server.guard.open.count("127.0.0.1") == 0, what="the sockets to be released")


async def test_a_flood_of_websocket_pings_closes_the_connection_with_1008(make_server: MakeServer) -> None:
    server = await make_server(control_frames=10)
    calm = await Client.open(server.url)
    for _ in range(5):  # within the rate: answered
        await asyncio.wait_for(await calm.ws.ping(), 5)
    flood = await Client.open(server.url)
    for _ in range(200):
        if flood.closed.done():
            break
        with contextlib.suppress(Exception):
            await flood.ws.ping()
    await asyncio.wait_for(flood.closed, 5)
    assert (flood.ws.close_code, flood.ws.close_reason) == (1008, "too many control frames")
    assert b'terrace_connections_cut_total{reason="control_frames"} 1.0' in server.metrics.text()
    assert (await calm.request("ping"))["type"] == "pong"
    await calm.close()


async def test_a_ping_flooder_that_never_closes_its_side_is_cut_off_after_the_grace(
    make_server: MakeServer,
) -> None:
    server = await make_server(control_frames=10)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Protocol: terrace.v1.msgpack\r\n\r\n".encode()
    )
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    ping = bytes([0x89, 0x80]) + b"\0\0\0\0"  # a masked, empty ping; then never read, never close
    writer.write(ping * 100)
    await writer.drain()
    await eventually(lambda: server.guard.open.count("127.0.0.1") == 0, what="the flooder's socket cut")
    assert b'terrace_connections_cut_total{reason="control_frames"} 1.0' in server.metrics.text()
    writer.close()


async def test_handshakes_cost_their_address_tokens(make_server: MakeServer) -> None:
    # 25 tokens refilled at 1 a second: two handshakes (10 each) go in, the third is
    # refused with 429 until the address has paid; other requests share the same bucket.
    server = await make_server(address_rate=1, address_burst=25)
    first, second = await Client.open(server.url), await Client.open(server.url)
    with pytest.raises(InvalidStatus) as info:
        await Client.open(server.url)
    assert info.value.response.status_code == 429
    assert info.value.response.body.startswith(b"too many requests from your address; try again in ")
    assert (await first.request("ping"))["code"] == "rate_limited"  # the refused handshake cost too
    for c in (first, second):
        await c.close()
