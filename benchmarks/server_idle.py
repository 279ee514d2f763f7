"""The server benchmark's idle connections: many that say hello, then only answer pings.

They are minimal websocket clients on bare asyncio streams (a full client per connection would
make this process the bottleneck long before the server holds 10,000 of them).
"""

from __future__ import annotations

import asyncio
import base64
import os

from benchmarks.common import BenchError
from benchmarks.server_client import HOST, retrieve_failure
from terrace.wire.protocol import MSGPACK, decode, encode


class IdleClients:
    """Many connections that say hello and then only answer pings: minimal websocket clients on
    bare asyncio streams (a full client per connection would make this process the bottleneck)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.closed = 0

    async def open(self, n: int, at_once: int = 50) -> None:
        gate = asyncio.Semaphore(at_once)

        async def one(i: int) -> None:
            async with gate:
                await self._one(i)

        await asyncio.gather(*(one(i) for i in range(n)))

    async def _one(self, i: int) -> None:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: {MSGPACK}\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise BenchError(f"idle client {i}: handshake refused: {head[:80]!r}")
        writer.write(_client_frame(0x2, encode({"type": "hello", "id": 1, "name": f"idle{i:05d}"})))
        _, payload = await _read_frame(reader)
        welcome = decode(payload, MSGPACK)
        if welcome.get("type") != "welcome":
            raise BenchError(f"idle client {i}: hello answered with {welcome}")
        self.writers.append(writer)
        task = asyncio.create_task(self._answer_pings(reader, writer))
        task.add_done_callback(retrieve_failure)
        self.tasks.append(task)

    async def _answer_pings(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                opcode, payload = await _read_frame(reader)
                if opcode == 0x9:  # ping: pong, or the server closes the connection
                    writer.write(_client_frame(0xA, payload))
                elif opcode == 0x8:
                    self.closed += 1
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed += 1

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for w in self.writers:
            w.close()


def _client_frame(opcode: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    n = len(data)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65_536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(await reader.readexactly(2), "big")
    elif n == 127:
        n = int.from_bytes(await reader.readexactly(8), "big")
    return b0 & 0x0F, await reader.readexactly(n)
