"""The client's connection to a server: say hello, ask and get answers, hear pushes.

A thin asyncio wrapper around ``terrace.conversation`` (which does the
bookkeeping): :meth:`Connection.ask` returns a request's answer, waiting out
``rate_limited`` refusals; every push goes to the ``on_push`` callback, so the
screen can redraw as standings arrive. :func:`fetch` is the one-shot form for
commands that ask one thing and leave.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.typing import Subprotocol

from terrace.conversation import Answer, Conversation, Message, Push
from terrace.protocol import MSGPACK

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
ASK_TIMEOUT = 30.0  # no answer by then: the server is not answering
MAX_RATE_WAITS = 20


class Offline(Exception):
    """The server cannot be reached, or the connection dropped."""


class Refused(Exception):
    """The server answered with an ``error``; ``code`` and ``message`` are its own."""

    def __init__(self, answer: Message) -> None:
        self.answer = answer
        self.code = str(answer.get("code", "?"))
        super().__init__(str(answer.get("message", self.code)))


class Connection:
    def __init__(self, ws: ClientConnection, on_push: Callable[[Message], None] | None) -> None:
        self.ws = ws
        self.talk = Conversation(ws.subprotocol or MSGPACK)
        self.on_push = on_push or (lambda msg: None)
        self._answers: dict[int, asyncio.Future[Answer]] = {}
        self.closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, on_push: Callable[[Message], None] | None = None) -> Connection:
        try:
            ws = await connect(url, subprotocols=[Subprotocol(MSGPACK)], compression=None, open_timeout=10)
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            raise Offline(f"cannot reach {url}: {exc}") from exc
        return cls(ws, on_push)

    async def ask(self, type_: str, **fields: Any) -> Message:
        """The answer to one request; raises Refused for an ``error``, Offline if the line drops."""
        answer = await self.send(type_, **fields)
        if answer.get("type") == "error":
            raise Refused(answer)
        return answer

    async def send(self, type_: str, **fields: Any) -> Message:
        """The answer to one request, ``error`` answers included."""
        if self.closed.done():
            raise Offline(self.closed.result())
        rid, frame = self.talk.request(type_, **fields)
        try:
            for _ in range(MAX_RATE_WAITS):
                fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
                self._answers[rid] = fut
                try:
                    await self.ws.send(frame)
                    answer = await asyncio.wait_for(asyncio.shield(fut), ASK_TIMEOUT)
                except ConnectionClosed as exc:
                    raise Offline("connection lost") from exc
                except TimeoutError as exc:
                    raise Offline(f"no answer to {type_} in {ASK_TIMEOUT:.0f} s") from exc
                if answer.retry_after is None:
                    return answer.message
                await asyncio.sleep(answer.retry_after)
                frame = self.talk.resend(rid)
            return answer.message
        finally:
            self._answers.pop(rid, None)
            self.talk.forget(rid)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self._shut("closed")

    async def _read(self) -> None:
        reason = "connection lost"
        try:
            async for frame in self.ws:
                got = self.talk.receive(frame)
                if isinstance(got, Push):
                    self.on_push(got.message)
                elif got is not None and got.id in self._answers and not self._answers[got.id].done():
                    self._answers[got.id].set_result(got)
        except ConnectionClosed:
            pass
        except Exception as exc:  # an unreadable frame: this connection is no use any more
            reason = f"unreadable frame from the server: {exc}"
        if self.ws.close_code == 4001:
            reason = "this player connected from somewhere else"
        elif self.ws.close_code == 1001:
            reason = "the server is shutting down"
        self._shut(reason)

    def _shut(self, reason: str) -> None:
        if not self.closed.done():
            self.closed.set_result(reason)
        for fut in self._answers.values():
            if not fut.done():
                fut.set_exception(Offline(reason))


async def fetch(url: str, type_: str, **fields: Any) -> Message:
    """Open, ask one request (no hello needed for public requests), close."""
    conn = await Connection.open(url)
    try:
        return await conn.ask(type_, **fields)
    finally:
        await conn.close()
