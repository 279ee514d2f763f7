"""The websocket endpoint: one read loop per connection, with its limits, feeding one worker.

Each connection has a reader (decode, rate limit, check, enqueue) and a worker that
answers its requests in order, so one slow request never blocks reading and a flood
fills a bounded queue instead of memory. Refusals (bad messages, rate limits, a full
queue) are answered at once by the reader, so they may overtake earlier requests'
answers; too many in a row close the connection with 1008.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from server.store import StoreDown
from server.transport.connection import Connection, Outbound
from server.transport.host import Host
from server.transport.http import address
from server.transport.inbox import Inbox
from server.transport.limits import TokenBucket, cost
from terrace.errors import ProtocolError
from terrace.wire.messages import Request
from terrace.wire.protocol import MSGPACK, decode, read_request, request_id

log = logging.getLogger("terrace.server")

CLOSE_POLICY = 1008  # too many bad or refused messages in a row
WRITE_LIMIT = 32_768  # websockets' write high-water mark: past it a client is behind


async def serve_connection(server: Host, ws: ServerConnection) -> None:
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
    pending: Inbox[Request] = Inbox(config.max_pending)
    worker = asyncio.create_task(_work(server, conn, pending))
    closing: asyncio.Task[None] | None = None
    try:
        async for frame in ws:
            if closing is not None:
                continue  # read on and drop: the client's close frame is behind what it sent before
            if not _admit(server, conn, frame, pending):
                # Not awaited here: a reader that stops reading stops websockets' reading too,
                # once its buffer is full, and the close would wait out close_timeout (10 s)
                # before the client heard it.
                closing = asyncio.create_task(ws.close(CLOSE_POLICY, "too many bad or rate-limited messages"))
    except ConnectionClosed:
        pass
    finally:
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):  # whatever ended it, clean up
            await worker
        if closing is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await closing
        server.connections.discard(conn)
        server.metrics.connections.dec()
        server.gone(conn)


def _admit(server: Host, conn: Connection, frame: bytes | str, pending: Inbox[Request]) -> bool:
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
        if wait:  # refused: decoded first all the same, so the refusal can name the request's id
            rid = request_id(decode(frame, conn.subprotocol))
            raise ProtocolError("rate_limited", retry_after=math.ceil(wait * 1000) / 1000)  # never 0
        try:
            req = read_request(frame, conn.subprotocol)  # decoded and checked in one step
        except ProtocolError:
            rid = _id_of(frame, conn.subprotocol)  # the refusal names the request's id if it can
            raise
        if req.TYPE not in COUNTED_BY_THE_RACE:
            server.metrics.count_message(req.TYPE)
        rid = req.id
        if not pending.put(req):
            raise ProtocolError("busy")
    except ProtocolError as e:
        refuse(server, conn, e, rid)
        if e.code == "busy":  # flow control, not misbehaviour: a pipelining client is told to wait
            return True
        conn.bad_in_row += 1
        return conn.bad_in_row <= server.config.max_bad_messages
    conn.bad_in_row = 0
    return True


# requests counted by their race's handler: a private attempt's only once it is over
COUNTED_BY_THE_RACE = frozenset({"move", "resign"})


def _id_of(frame: bytes | str, subprotocol: str) -> int | None:
    try:
        return request_id(decode(frame, subprotocol))
    except ProtocolError:
        return None


def refuse(server: Host, conn: Connection, error: ProtocolError, rid: int | None) -> None:
    if error.code == "not_finished":  # a client polling for a result: normal play, not an error
        server.metrics.not_ready.inc()
    elif not error.counted_later:
        server.metrics.errors.labels(error.code).inc()
    try:
        conn.push(error.to_message(rid))
    except Exception:  # an error that cannot be sent must not take the connection down
        log.exception("could not send error %s", error.code)


async def _work(server: Host, conn: Connection, pending: Inbox[Request]) -> None:
    while True:
        req = await pending.get()
        try:
            answer = await server.handle(conn, req)
            if answer is not None:
                await conn.send(answer)
        except ProtocolError as e:
            refuse(server, conn, e, req.id)
        except StoreDown as exc:
            if server.store_down is None:  # once an outage, not once a refused request
                log.warning("store down during %s: %s", req.TYPE, exc)
            server.store_down = server.store_down or str(exc) or "unreachable"
            refuse(server, conn, ProtocolError("store_down"), req.id)
        except ConnectionClosed:
            return
        except Exception:  # a bug: log it, answer `internal`, keep serving this connection
            log.exception("request %s failed", req.TYPE)
            refuse(server, conn, ProtocolError("internal"), req.id)
