"""A small real websocket client for server tests: speaks either subprotocol,
keeps every frame it received, and waits for messages by type or ``re``."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from terrace.wire.protocol import JSON, MSGPACK, decode, encode

Message = dict[str, Any]


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.subprotocol = ws.subprotocol or MSGPACK
        self.frames: list[bytes | str] = []  # every frame received, raw
        self.inbox: list[Message] = []  # decoded, not yet taken
        self._ids = itertools.count(1)
        self._arrived = asyncio.Event()
        self._reader = asyncio.create_task(self._read())
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    @classmethod
    async def open(cls, url: str, subprotocol: str | None = MSGPACK, **kw: Any) -> Client:
        protocols = [subprotocol] if subprotocol else None
        ws = await connect(url, subprotocols=protocols, compression=None, **kw)  # type: ignore[list-item]
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.frames.append(frame)
                self.inbox.append(decode(frame, self.subprotocol))
                self._arrived.set()
        except Exception:
            pass
        finally:
            if not self.closed.done():
                self.closed.set_result(None)
            self._arrived.set()

    async def send(self, msg: Message) -> None:
        await self.ws.send(encode(msg, self.subprotocol))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def request(self, type_: str, **fields: Any) -> Message:
        """Send a request with a fresh id and return its answer (or error)."""
        rid = next(self._ids)
        await self.send({"type": type_, "id": rid, **fields})
        # generous: some answers wait on the solver (a winnable deal: up to 8 s by default), and
        # on a loaded machine more; a request that is never answered still fails, only later
        return await self.wait(lambda m: m.get("re") == rid, timeout=30.0)

    async def wait(self, match: Any, timeout: float = 5.0) -> Message:
        """Take the first message (oldest first) for which ``match`` is true; ``match``
        may be a message type."""
        test = (lambda m: m.get("type") == match) if isinstance(match, str) else match

        async def find() -> Message:
            while True:
                for i, m in enumerate(self.inbox):
                    if test(m):
                        return self.inbox.pop(i)
                if self.closed.done():
                    raise ConnectionError(f"closed with {self.ws.close_code}: nothing matched")
                self._arrived.clear()
                await self._arrived.wait()

        return await asyncio.wait_for(find(), timeout)

    async def caught_up(self) -> None:
        """Everything the server sent this client so far is in its inbox: a ``ping`` answered
        (a connection's answers go out after the pushes queued before them). Instead of sleeping
        before checking that something was *not* sent."""
        assert (await self.request("ping"))["type"] == "pong"

    def take_all(self, type_: str) -> list[Message]:
        found = [m for m in self.inbox if m.get("type") == type_]
        self.inbox = [m for m in self.inbox if m.get("type") != type_]
        return found

    async def close(self) -> None:
        await self.ws.close()
        await self.closed


SUBPROTOCOLS = (MSGPACK, JSON)
