"""The websocket endpoint: one read loop per connection, with its limits, feeding one worker.

Each connection has a reader (decode, rate limit, check, enqueue) and a worker that
answers its requests in order, so one slow request never blocks reading and a flood
fills a bounded queue instead of memory. Refusals (bad messages, rate limits, a full
queue) are answered at once by the reader, so they may overtake earlier requests'
answers; too many in a row close the connection with 1008.

Most requests never wait (a move on the memory store, a ping), and handing each to the
worker costs a task switch, a good part of a move's CPU. So when the worker has
nothing under way, the reader starts the request itself (:class:`Lane`): if it
finishes without waiting, that was all; at its first real wait the rest of it goes to
the worker, as the worker's own, and later requests queue behind it as before. The
request runs as the worker's task from its first step, so whatever it asks of its
task (a timeout, a cancellation) is the worker's, wherever it finishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Coroutine, Generator
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from terrace.errors import ProtocolError
from terrace.protocol import MSGPACK, check_request, decode, request_id

from .connection import Connection, Outbound
from .http import address
from .limits import TokenBucket, cost
from .store import StoreDown

if TYPE_CHECKING:
    from .app import RaceServer

log = logging.getLogger("terrace.server")

CLOSE_POLICY = 1008  # too many bad or refused messages in a row
WRITE_LIMIT = 32_768  # websockets' write high-water mark: past it a client is behind


async def serve_connection(server: RaceServer, ws: ServerConnection) -> None:
    """Run one websocket connection until it closes, then forget it."""
    where = address(server, ws)
    config = server.config
    outbound = Outbound(
        behind=WRITE_LIMIT,
        ceiling=config.max_write_buffer,
        deadline=config.slow_reader_deadline,
        on_cut=server.metrics.slow_readers.inc,
    )
    conn = Connection(ws, ws.subprotocol or MSGPACK, where, TokenBucket(config.rate, config.burst), outbound)
    server.connections.add(conn)
    server.metrics.connections.inc()
    lane = Lane(lambda req: _serve(server, conn, req), config.max_pending)
    try:
        async for frame in ws:
            if not _admit(server, conn, frame, lane):
                await ws.close(CLOSE_POLICY, "too many bad or rate-limited messages")
                break
    except ConnectionClosed:
        pass
    finally:
        await lane.close()
        server.connections.discard(conn)
        server.metrics.connections.dec()
        server.gone(conn)


def _admit(server: RaceServer, conn: Connection, frame: bytes | str, lane: Lane) -> bool:
    """Read one frame into the queue, or answer why not; False when the client must go."""
    rid: int | None = None
    try:
        # A frame costs by its size, since decoding is the work a large one makes. The
        # address pays for every frame, refused ones too (it may fall into debt), so
        # neither refusals nor new connections are free work.
        price = cost(len(frame), server.config.bytes_per_token)
        shared = server.guard.buckets[conn.address]
        wait = max(conn.bucket.wait(price), shared.wait(price))  # both refilled just now
        shared.spend(price, owing=True)
        if not wait:
            conn.bucket.spend(price)
        msg = decode(frame, conn.subprotocol)  # before refusing, so a refusal can name the request's id
        rid = request_id(msg)
        if wait:
            raise ProtocolError("rate_limited", retry_after=math.ceil(wait * 1000) / 1000)  # never 0
        req = check_request(msg)
        server.metrics.count_message(req["type"])
        if not lane.take(req):
            raise ProtocolError("busy")
    except ProtocolError as e:
        refuse(server, conn, e, rid)
        conn.bad_in_row += 1
        return conn.bad_in_row <= server.config.max_bad_messages
    conn.bad_in_row = 0
    return True


def refuse(server: RaceServer, conn: Connection, error: ProtocolError, rid: int | None) -> None:
    if error.code == "not_finished":  # a client polling for a result: normal play, not an error
        server.metrics.not_ready.inc()
    else:
        server.metrics.errors.labels(error.code).inc()
    try:
        conn.push(error.to_message(rid))
    except Exception:  # an error that cannot be sent must not take the connection down
        log.exception("could not send error %s", error.code)


STRAIGHT = 16
"""After a request started on the reader had to wait, this many go straight to the worker before
the reader tries again: on a store that answers over the network (Redis) nearly every move
waits, and starting it first would only add the hand-over to the task switch it pays anyway."""


class Lane:
    """One connection's requests, answered one after the other in the order they came.

    ``take`` starts a request at once, on the reader, when nothing is under way (the
    worker waits on an empty queue): most finish there without waiting. One that waits
    hands the rest of itself to the worker at that point, and the next :data:`STRAIGHT`
    go straight to the worker; while the worker has anything, requests queue for it (at
    most ``size``).
    """

    def __init__(self, serve: Callable[[dict[str, Any]], Coroutine[Any, Any, bool]], size: int) -> None:
        self.serve = serve  # answers one request; False once the connection is closed
        # a request not started yet, or the rest of one started on the reader
        self.pending: asyncio.Queue[dict[str, Any] | Coroutine[Any, Any, bool]] = asyncio.Queue(size)
        self.under_way = 0  # requests queued for the worker or being answered by it
        self.straight = 0  # requests still to go straight to the worker (see STRAIGHT)
        self.worker = asyncio.create_task(self._work())

    def take(self, req: dict[str, Any]) -> bool:
        """Answer ``req`` now or queue it; False (nothing done) when the queue is full."""
        if self.under_way or self.straight:
            try:
                self.pending.put_nowait(req)
            except asyncio.QueueFull:
                return False
            self.under_way += 1
            if self.straight:
                self.straight -= 1
            return True
        rest = self._start(self.serve(req))
        if rest is not None:  # it waits: the worker finishes it (the queue is empty, so it fits)
            self.pending.put_nowait(rest)
            self.under_way += 1
            self.straight = STRAIGHT
        return True

    def _start(self, request: Coroutine[Any, Any, bool]) -> Coroutine[Any, Any, bool] | None:
        """Run ``request`` as the worker's task up to its first wait: None if it finished, else
        what finishes it (awaited by the worker). The worker is idle in ``pending.get()`` meanwhile,
        so it can stand in for the reader as the loop's current task (as 3.12's eager tasks do)."""
        loop = self.worker.get_loop()
        reader = asyncio.current_task(loop)
        assert reader is not None
        asyncio.tasks._leave_task(loop, reader)
        asyncio.tasks._enter_task(loop, self.worker)
        try:
            waiting = request.send(None)
        except StopIteration:
            return None
        finally:
            asyncio.tasks._leave_task(loop, self.worker)
            asyncio.tasks._enter_task(loop, reader)
        return _resume(request, waiting)

    async def _work(self) -> None:
        while True:
            item = await self.pending.get()
            try:
                if not await (self.serve(item) if isinstance(item, dict) else item):
                    return
            finally:
                self.under_way -= 1

    async def close(self) -> None:
        """Stop the worker (the connection is gone) and drop what still waits for it."""
        self.worker.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):  # whatever ended it, clean up
            await self.worker
        while not self.pending.empty():
            item = self.pending.get_nowait()
            if not isinstance(item, dict):
                item.close()  # the rest of a request started on the reader: never to be finished


async def _resume(request: Coroutine[Any, Any, bool], waiting: Any) -> bool:
    """Finish a coroutine started by hand that is waiting on ``waiting`` (what its first step
    yielded): what a task does, step by step, for the coroutine it runs."""
    while True:
        try:
            await _WaitOn(waiting)
        except BaseException as exc:  # the task was cancelled (or the future failed): it is the request's
            try:
                waiting = request.throw(exc)
            except StopIteration as done:
                return bool(done.value)
        else:
            try:
                waiting = request.send(None)
            except StopIteration as done:
                return bool(done.value)


class _WaitOn:
    """Awaiting it yields what the request yielded to the task running it (a future it waits on,
    or None to be stepped again soon), so the task waits on that for the request."""

    __slots__ = ("waiting",)

    def __init__(self, waiting: Any) -> None:
        self.waiting = waiting

    def __await__(self) -> Generator[Any, None, None]:
        yield self.waiting


async def _serve(server: RaceServer, conn: Connection, req: dict[str, Any]) -> bool:
    """Answer one request (or refuse it); False once the connection is closed."""
    try:
        answer = await server.handlers.handle(conn, req)
        if answer is not None:
            await conn.send(answer)
    except ProtocolError as e:
        refuse(server, conn, e, req.get("id"))
    except StoreDown as exc:
        log.warning("store down during %s: %s", req.get("type"), exc)
        server.store_down = server.store_down or str(exc) or "unreachable"
        refuse(server, conn, ProtocolError("store_down"), req.get("id"))
    except ConnectionClosed:
        return False
    except Exception:  # a bug: log it, answer `internal`, keep serving this connection
        log.exception("request %s failed", req.get("type"))
        refuse(server, conn, ProtocolError("internal"), req.get("id"))
    return True
