"""One websocket connection to a race server: requests matched to answers, pushes handed on.

A thin asyncio wrapper around ``terrace.wire.conversation`` (which does the
bookkeeping). :meth:`Connection.request` numbers a request, waits for the
answer that carries its ``re`` and sends it again by itself after a
``rate_limited`` refusal, so callers see only the answers that matter. Pushes
(``started``, ``standings``, ``finished``...) go to the ``on_push`` callback
when one is given, else they wait in order for :meth:`Connection.push`. When
the line drops, every waiter gets :class:`Offline`; coming back is the
session's job (``link.session``). :func:`fetch` is the one-shot form.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from terrace.wire.conversation import Answer, Conversation, Message, Push
from terrace.wire.messages import Error, read
from terrace.wire.protocol import MSGPACK, Frame
from terrace.wire.session import close_reason
from terrace.wire.urls import with_hint

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
SERVER_ENV = "TERRACE_SERVER"
ANSWER_TIMEOUT = 30.0  # no answer by then: the server is not answering
MAX_RATE_RETRIES = 50  # a few seconds of rate_limited resends; past that the server will not take it
MAX_FRAME = 2**20


_WORDLESS: dict[type, str] = {
    TimeoutError: "no answer in time",
    ConnectionResetError: "the connection was reset",
}


def server_url(text: str) -> str:
    """``text`` if it is a websocket URL a client can connect to; else an
    ``argparse.ArgumentTypeError`` saying why: as an option's ``type`` (``--server``, and the
    ``$TERRACE_SERVER`` default) a typo is a usage error, never a traceback."""
    try:
        parse_uri(text)
    except InvalidURI:
        raise argparse.ArgumentTypeError(f"{text!r} is not a websocket URL (ws://HOST:PORT/ws)") from None
    except ValueError as exc:  # urllib's words: a port out of range, a broken IPv6 address
        raise argparse.ArgumentTypeError(f"{text!r} is not a websocket URL: {exc}") from None
    return text


def default_server() -> str:
    """``TERRACE_SERVER`` if set, else the local server."""
    return os.environ.get(SERVER_ENV) or DEFAULT_SERVER


class Offline(Exception):
    """The server cannot be reached, or the connection dropped; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(Exception):
    """The server answered with an ``error``; ``code`` and ``message`` are its own."""

    def __init__(self, answer: Message) -> None:
        self.answer = answer
        error = read(answer, Error)
        self.code = error["code"]
        super().__init__(error["message"])


def checked(answer: Message) -> Message:
    """``answer``, or Refused if it is an ``error``."""
    if answer.get("type") == "error":
        raise Refused(answer)
    return answer


class Connection:
    """One open websocket; ``closed`` resolves to the reason once it is gone."""

    def __init__(self, ws: ClientConnection, on_push: Callable[[Message], None] | None = None) -> None:
        self.ws = ws
        self.talk = Conversation(ws.subprotocol or MSGPACK)
        self.on_push = on_push
        self.rate_limited = 0
        self._waiting: dict[int, asyncio.Future[Answer]] = {}
        self._pushes: asyncio.Queue[Message | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        self.closed: asyncio.Future[str] = loop.create_future()
        self._reader = loop.create_task(self._read())

    @classmethod
    async def open(
        cls,
        url: str,
        on_push: Callable[[Message], None] | None = None,
        *,
        subprotocol: str = MSGPACK,
        timeout: float = 10.0,
    ) -> Connection:
        """Connect to ``url``; raises Offline if it cannot be reached."""
        try:
            ws = await connect(
                url,
                subprotocols=[Subprotocol(subprotocol)],
                compression=None,
                open_timeout=timeout,
                max_size=MAX_FRAME,
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            # some carry no words (a TLS handshake cut short, a timeout): their kind says it then
            why = str(exc) or _WORDLESS.get(type(exc), type(exc).__name__)
            raise Offline(with_hint(url, f"cannot reach {url}: {why}")) from exc
        return cls(ws, on_push)

    @property
    def is_closed(self) -> bool:
        return self.closed.done()

    async def request(self, type_: str, **fields: Any) -> Message:
        """The answer to one request, ``error`` answers included; Offline if the line drops."""
        if self.closed.done():
            raise Offline(self.closed.result())
        rid, frame = self.talk.request(type_, **fields)
        try:
            for _ in range(MAX_RATE_RETRIES):
                answer = await self._exchange(rid, frame, type_)
                if answer.retry_after is None:
                    return answer.message
                self.rate_limited += 1
                await asyncio.sleep(answer.retry_after)
                frame = self.talk.resend(rid)
            return answer.message
        finally:
            self.talk.forget(rid)

    async def ask(self, type_: str, **fields: Any) -> Message:
        """:meth:`request`, raising Refused for an ``error`` answer."""
        return checked(await self.request(type_, **fields))

    async def timed(self, type_: str, **fields: Any) -> tuple[Message, float]:
        """:meth:`request` and the seconds its answer took (rate-limit waits included)."""
        t0 = time.perf_counter()
        answer = await self.request(type_, **fields)
        return answer, time.perf_counter() - t0

    async def push(self, *types: str, race: str | None = None, timeout: float | None = None) -> Message:
        """The next push of one of ``types`` (for ``race`` when given); others are dropped.

        Only without an ``on_push`` callback. TimeoutError after ``timeout`` seconds;
        Offline if the connection goes.
        """
        async with asyncio.timeout(timeout):
            while True:
                msg = await self._pushes.get()
                if msg is None:
                    self._pushes.put_nowait(None)  # every later call sees the close too
                    raise Offline(self.closed.result() if self.closed.done() else "closed")
                if msg.get("type") in types and (race is None or msg.get("race") == race):
                    return msg

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self._shut("closed")

    async def _exchange(self, rid: int, frame: Frame, type_: str) -> Answer:
        fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            await self.ws.send(frame)
            # asyncio.timeout, not wait_for: in 3.11 wait_for swallows a cancel that lands
            # as the answer arrives, and the cancelled caller would go on as if not cancelled.
            async with asyncio.timeout(ANSWER_TIMEOUT):
                return await fut
        except ConnectionClosed as exc:
            self._shut(_why(exc))
            raise Offline(self.closed.result()) from exc
        except TimeoutError as exc:
            raise Offline(f"no answer to {type_} in {ANSWER_TIMEOUT:.0f} s") from exc
        finally:
            self._waiting.pop(rid, None)
            if fut.done() and not fut.cancelled():
                fut.exception()  # read, so a drop during the send is not logged as never retrieved

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                got = self.talk.receive(frame)
                if isinstance(got, Push):
                    if self.on_push is not None:
                        self.on_push(got.message)
                    else:
                        self._pushes.put_nowait(got.message)
                elif got is not None and got.id in self._waiting and not self._waiting[got.id].done():
                    self._waiting[got.id].set_result(got)
            reason = close_reason(self.ws.close_code, self.ws.close_reason or "")
        except ConnectionClosed as exc:
            reason = _why(exc)
        except Exception as exc:  # a frame we cannot read: this connection is no use any more
            reason = f"unreadable frame from the server: {exc}"
            with contextlib.suppress(Exception):
                await self.ws.close(1002, "unreadable frame")
        self._shut(reason)

    def _shut(self, reason: str) -> None:
        if self.closed.done():
            return
        self.closed.set_result(reason)
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(Offline(reason))
        self._pushes.put_nowait(None)


def _why(exc: ConnectionClosed) -> str:
    if exc.rcvd is not None:
        return close_reason(exc.rcvd.code, exc.rcvd.reason)
    return "connection lost"


async def fetch(url: str, type_: str, **fields: Any) -> Message:
    """Open, ask one request (no hello needed for public requests), close; Refused for an error."""
    conn = await Connection.open(url)
    try:
        return await conn.ask(type_, **fields)
    finally:
        await conn.close()
