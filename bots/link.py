"""One websocket connection to a race server: requests matched to answers, pushes queued.

``request()`` numbers each request (``terrace.conversation`` does the
bookkeeping), waits for the answer carrying that ``re`` and resends by itself
after a ``rate_limited`` error, so callers see only the answers that matter. Pushes (``started``, ``standings``, ``finished``...) wait
in order for ``push()``. When the connection is lost, every waiter gets
:class:`LinkClosed`; reconnecting is the caller's job (the SDK's).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.typing import Subprotocol

from terrace.conversation import Answer, Conversation, Message, Push
from terrace.protocol import MSGPACK, Frame

# A few seconds of retries after rate_limited: a server that refuses for longer is not
# going to take the message.
MAX_RATE_RETRIES = 50


class LinkClosed(Exception):
    """The connection is gone (or could not be opened); ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Link:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.talk = Conversation(ws.subprotocol or MSGPACK)
        self._waiting: dict[int, asyncio.Future[Answer]] = {}
        self._pushes: asyncio.Queue[Message | None] = asyncio.Queue()
        self._closed_reason: str | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.rate_limited = 0

    @classmethod
    async def open(cls, url: str, subprotocol: str = MSGPACK, timeout: float = 10.0) -> Link:
        try:
            ws = await connect(
                url,
                subprotocols=[Subprotocol(subprotocol)],
                compression=None,
                open_timeout=timeout,
                max_size=2**20,
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            raise LinkClosed(f"cannot connect to {url}: {exc}") from exc
        return cls(ws)

    @property
    def closed(self) -> bool:
        return self._closed_reason is not None

    async def request(self, type_: str, **fields: Any) -> Message:
        """Send a request and return its answer (an ``error`` answer included)."""
        if self._closed_reason is not None:
            raise LinkClosed(self._closed_reason)
        rid, frame = self.talk.request(type_, **fields)
        try:
            for _ in range(MAX_RATE_RETRIES):
                answer = await self._exchange(rid, frame)
                if answer.retry_after is None:
                    return answer.message
                self.rate_limited += 1
                await asyncio.sleep(answer.retry_after)
                frame = self.talk.resend(rid)
            return answer.message
        finally:
            self.talk.forget(rid)

    async def timed(self, type_: str, **fields: Any) -> tuple[Message, float]:
        """``request`` and the seconds its answer took (rate-limit waits included)."""
        t0 = time.perf_counter()
        answer = await self.request(type_, **fields)
        return answer, time.perf_counter() - t0

    async def push(self, *types: str, race: str | None = None, timeout: float | None = None) -> Message:
        """The next push of one of ``types`` (for ``race`` when given); others are dropped.

        Raises TimeoutError after ``timeout`` seconds and LinkClosed if the connection goes.
        """
        async with asyncio.timeout(timeout):
            while True:
                msg = await self._pushes.get()
                if msg is None:
                    self._pushes.put_nowait(None)  # every later call sees the close too
                    raise LinkClosed(self._closed_reason or "closed")
                if msg.get("type") in types and (race is None or msg.get("race") == race):
                    return msg

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self._shut("closed by us")

    async def _exchange(self, rid: int, frame: Frame) -> Answer:
        fut: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            await self.ws.send(frame)
            return await fut
        except ConnectionClosed as exc:
            self._shut(_why(exc))
            raise LinkClosed(self._closed_reason or "closed") from exc
        finally:
            self._waiting.pop(rid, None)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                got = self.talk.receive(frame)
                if isinstance(got, Push):
                    self._pushes.put_nowait(got.message)
                elif got is not None and got.id in self._waiting and not self._waiting[got.id].done():
                    self._waiting[got.id].set_result(got)
            reason = _why(None, self.ws.close_code, self.ws.close_reason or "")
        except ConnectionClosed as exc:
            reason = _why(exc)
        except Exception as exc:  # a frame we cannot read: the link is no use any more
            reason = f"unreadable frame: {exc}"
            await self.ws.close(1002, "unreadable frame")
        self._shut(reason)

    def _shut(self, reason: str) -> None:
        if self._closed_reason is not None:
            return
        self._closed_reason = reason
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(LinkClosed(reason))
        self._pushes.put_nowait(None)


def _why(exc: ConnectionClosed | None, code: int | None = None, reason: str = "") -> str:
    if exc is not None and exc.rcvd is not None:
        code, reason = exc.rcvd.code, exc.rcvd.reason
    return f"connection closed ({code}{': ' + reason if reason else ''})" if code else "connection lost"
