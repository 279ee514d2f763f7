"""Slow readers: a client that stops reading is cut off, and never holds more than the
server's write ceiling in memory; clients that read are never cut."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from server.app import RaceServer
from server.transport.connection import Connection
from server.transport.endpoint import WRITE_LIMIT
from terrace.wire.protocol import MSGPACK, decode, encode
from tests.poll import eventually
from tests.server.conftest import MakeServer
from tests.server.wire import Client

# The kernel's send buffer is kept small (the server's setting) so that a bounded test reaches
# the server's own buffer soon.
LOOSE = {
    "rate": 100_000,
    "burst": 100_000,
    "address_rate": 100_000,
    "address_burst": 100_000,
    "send_buffer": 4096,
}


async def _reader_that_stops(server: RaceServer) -> ClientConnection:
    """A lobby subscriber that reads nothing after subscribing: a tiny receive buffer, and
    websockets' own queue of one frame, so the server's side fills up at once."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    ws = await connect(server.url, sock=sock, max_queue=1, compression=None, subprotocols=[MSGPACK])  # type: ignore[list-item]
    await ws.send(encode({"type": "subscribe", "id": 1, "topic": "lobby"}, MSGPACK))
    return ws


def _subscriber(server: RaceServer, ws: Any) -> Connection:
    """The server's side of the one subscriber whose port is ``ws``'s."""
    port = ws.local_address[1]
    return next(c for c in server.audience.subscribers if c.ws.remote_address[1] == port)


async def _make_news(player: Client, rounds: int, until: Any = lambda: False) -> int:
    """Create and leave races (two lobby pushes each) until ``until()`` or ``rounds``; returns rounds done."""
    for i in range(rounds):
        if until():
            return i
        created = await player.request("create", variant="terrace", seats=8)
        assert created["type"] == "created", created
        await player.request("leave", race=created["race"]["id"])
    return rounds


async def test_a_subscriber_that_never_reads_is_cut_off_at_the_write_ceiling(make_server: MakeServer) -> None:
    ceiling = 64 * 1024
    server = await make_server(max_write_buffer=ceiling, slow_reader_deadline=60, **LOOSE)
    slow = await _reader_that_stops(server)
    await eventually(lambda: server.audience.subscribers, what="the subscription")
    conn = _subscriber(server, slow)
    reader = await Client.open(server.url)  # a subscriber that reads everything
    assert (await reader.request("subscribe", topic="lobby"))["type"] == "subscribed"
    player = await Client.open(server.url)
    await player.request("hello", name="maker")
    most = 0

    def cut() -> bool:
        nonlocal most
        most = max(most, conn.buffered())
        return conn.cut

    rounds = await _make_news(player, 5_000, until=cut)
    assert conn.cut, f"still connected after {rounds} rounds, {conn.buffered()} bytes waiting"
    assert most <= ceiling + 2_048  # the ceiling, and at most the one push that passed it
    await eventually(lambda: conn not in server.connections, what="the slow reader to be gone")
    assert conn not in server.audience.subscribers
    assert b"terrace_slow_readers_total 1.0" in server.metrics.text()
    # the others go on: the reader heard every race, and the player is served
    assert (await player.request("ping"))["type"] == "pong"
    await eventually(lambda: len(reader.take_all("race")) > 0, what="news at the reading subscriber")
    assert not reader.closed.done()
    for c in (reader, player):
        await c.close()


async def test_a_reader_behind_past_the_deadline_is_cut_off_and_one_that_reads_is_not(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_write_buffer=64 * 1024 * 1024, slow_reader_deadline=0.3, **LOOSE)
    slow = await _reader_that_stops(server)
    await eventually(lambda: server.audience.subscribers, what="the subscription")
    conn = _subscriber(server, slow)
    reader = await Client.open(server.url)
    assert (await reader.request("subscribe", topic="lobby"))["type"] == "subscribed"
    player = await Client.open(server.url)
    await player.request("hello", name="maker")
    # well past the 32 KiB mark, so the little the kernel may still take cannot bring it back; on
    # a loaded machine making that much news may take longer than the deadline, which then cuts it
    # off first (the ceiling, 64 MiB, is far off: only the deadline cuts it either way)
    rounds = await _make_news(player, 5_000, until=lambda: conn.buffered() > 64_000 or conn.cut)
    assert conn.cut or conn.buffered() > 64_000, f"only {conn.buffered()} bytes waiting after {rounds} rounds"
    # no more news: the deadline alone cuts it off
    await eventually(lambda: conn.cut, what="the slow reader to be cut off")
    await eventually(lambda: conn not in server.connections, what="the slow reader to be gone")
    # the others were never behind: no deadline runs for them, so nothing will cut them off
    assert [(c.cut, c._timer) for c in server.connections] == [(False, None), (False, None)]
    assert not reader.closed.done() and not player.closed.done()
    assert (await reader.request("ping"))["type"] == "pong"
    for c in (reader, player):
        await c.close()


async def test_each_socket_gets_the_send_buffer_setting_or_the_kernels_own(make_server: MakeServer) -> None:
    for setting in (16_384, 0):
        server = await make_server(send_buffer=setting)
        client = await Client.open(server.url)
        await eventually(lambda server=server: server.connections, what="the connection")
        (conn,) = server.connections
        size = conn.ws.transport.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        with socket.socket() as fresh:  # what the kernel gives a socket left alone
            default = fresh.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        if setting:
            assert size == 2 * setting  # Linux doubles it for its own bookkeeping
        else:
            assert size != 2 * 16_384 and size >= default
        await client.close()


async def test_one_answer_larger_than_the_ceiling_reaches_a_client_that_keeps_up(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_write_buffer=512, max_open_races_per_player=10)
    player = await Client.open(server.url)
    await player.request("hello", name="lister")
    for _ in range(10):
        assert (await player.request("create", variant="terrace", join=False))["type"] == "created"
    answer = await player.request("races")
    assert len(answer["races"]) == 10 and len(player.frames[-1]) > 512
    assert (await player.request("ping"))["type"] == "pong" and not player.closed.done()
    await player.close()


async def test_slow_subscribers_share_one_copy_of_the_news_they_have_not_read(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_write_buffer=1024 * 1024, slow_reader_deadline=60, **LOOSE)
    slows = [await _reader_that_stops(server) for _ in range(3)]
    await eventually(lambda: len(server.audience.subscribers) == 3, what="the subscriptions")
    conns = [_subscriber(server, ws) for ws in slows]
    player = await Client.open(server.url)
    await player.request("hello", name="maker")
    await _make_news(player, 5_000, until=lambda: min(c.buffered() for c in conns) > 96_000)
    assert not any(c.cut for c in conns)
    for c in conns:  # past its high-water mark a transport takes no more: the rest waits, shared
        assert c.ws.transport.get_write_buffer_size() <= WRITE_LIMIT + 2_048
    held = {id(data): len(data) for c in conns for data in c._outbox}
    each = [sum(len(data) for data in c._outbox) for c in conns]
    assert min(each) > 48_000 and sum(held.values()) <= max(each)  # one copy between them
    for ws in slows:
        ws.transport.abort()
    await player.close()


async def test_a_subscriber_that_reads_again_gets_every_push_it_fell_behind_on_in_order(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_write_buffer=1024 * 1024, slow_reader_deadline=60, **LOOSE)
    slow = await _reader_that_stops(server)
    await eventually(lambda: server.audience.subscribers, what="the subscription")
    conn = _subscriber(server, slow)
    reader = await Client.open(server.url)
    assert (await reader.request("subscribe", topic="lobby"))["type"] == "subscribed"
    player = await Client.open(server.url)
    await player.request("hello", name="maker")
    await _make_news(player, 5_000, until=lambda: conn._outbox_bytes > 32_000)
    last = (await player.request("create", variant="terrace", seats=2))["race"]["id"]
    assert (await player.request("ping"))["type"] == "pong"  # answers go on meanwhile

    def news(messages: list[Any]) -> list[tuple[str, str, int]]:
        return [
            (m["race"]["id"], m["race"]["state"], len(m["race"]["players"]))
            for m in messages
            if m["type"] == "race"
        ]

    heard: list[Any] = []
    while not heard or heard[-1].get("type") != "race" or heard[-1]["race"]["id"] != last:
        heard.append(decode(await asyncio.wait_for(slow.recv(), 10), MSGPACK))
    assert heard[0]["type"] == "subscribed"
    await eventually(
        lambda: any(
            m["type"] == "race" and m["race"]["id"] == last
            for m in [decode(f, MSGPACK) for f in reader.frames]
        ),
        what="the reader to hear the last race",
    )
    expected = news([decode(f, MSGPACK) for f in reader.frames])
    assert news(heard[1:]) == expected and len(expected) > 100
    assert not conn.cut and conn._outbox_bytes == 0
    assert conn._outbox is None  # drained: the outbox is let go (an idle connection keeps none)
    await slow.close()
    for c in (reader, player):
        await c.close()


async def test_a_client_that_asks_but_never_reads_its_answers_is_cut_off_at_the_deadline(
    make_server: MakeServer,
) -> None:
    # answers that fit under the high-water mark go out without a deadline of their own;
    # once they pile up past it, the slow-reader deadline still cuts the client off
    server = await make_server(max_write_buffer=64 * 1024 * 1024, slow_reader_deadline=0.3, **LOOSE)
    makers = [await Client.open(server.url) for _ in range(10)]
    for i, maker in enumerate(makers):  # ten open races: a `races` answer of about 2 KB
        await maker.request("hello", name=f"maker{i}")
        assert (await maker.request("create", variant="terrace", seats=8))["type"] == "created"
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    silent = await connect(server.url, sock=sock, max_queue=1, compression=None, subprotocols=[MSGPACK])  # type: ignore[list-item]
    port = silent.local_address[1]
    for i in range(30):  # about 2 KB an answer: well past the 32 KiB mark
        await silent.send(encode({"type": "races", "id": i + 1}, MSGPACK))
    await eventually(
        lambda: any(c.ws.remote_address[1] == port for c in server.connections), what="the connection"
    )
    conn = next(c for c in server.connections if c.ws.remote_address[1] == port)
    await eventually(lambda: conn.cut, what="the client that reads nothing to be cut off")
    await eventually(lambda: conn not in server.connections, what="it to be gone")
    assert (await makers[0].request("ping"))["type"] == "pong"
    for maker in makers:
        await maker.close()
