"""The server process: websockets on ``/ws``, plain HTTP ``/healthz`` and ``/metrics``,
the per-connection read loop with its limits, and graceful shutdown.

Each connection has a reader (decode, rate limit, check, enqueue) and a worker
that answers its requests in order, so one slow request never blocks reading
and a flood fills a bounded queue instead of memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http
import json
import logging
import math
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, NegotiationError
from websockets.http11 import Request, Response

from terrace.errors import ProtocolError
from terrace.protocol import MSGPACK, SUBPROTOCOLS, check_request, decode, request_id

from .accounts import Accounts
from .config import Config
from .connection import Connection
from .handlers import Handlers
from .leaderboards import Leaderboards
from .limits import AddressCounter, TokenBucket
from .lobby import Lobby
from .metrics import Metrics
from .nodes import RENEW_EVERY, Cluster
from .store import MemoryStore, Store, StoreDown, open_store

log = logging.getLogger("terrace.server")

STORE_CHECK = 1.0  # seconds between store health checks

CLOSE_POLICY = 1008  # too many bad messages, or too many connections from one address


class RaceServer:
    def __init__(self, config: Config, store: Store | None = None) -> None:
        self.config = config
        self.store = store or open_store(config.redis_url or None, config.keep_finished)
        self.store_down: str | None = None  # why the store failed its last health check
        self.leaderboards = Leaderboards(self.store)
        self.metrics = Metrics()
        # The lost search (up to ~0.5 s of pure Python) runs in worker processes, so it
        # holds neither the event loop nor its GIL; workers start on the first search.
        self.executor = ProcessPoolExecutor(
            config.search_workers, mp_context=multiprocessing.get_context("forkserver")
        )
        self.accounts = Accounts(self.store)
        self.lobby = Lobby(config, self.store, self.metrics, self.executor, self.leaderboards)
        self.handlers = Handlers(self.accounts, self.lobby, self.leaderboards)
        self.addresses = AddressCounter(config.max_conns_per_address)
        self.connections: set[Connection] = set()
        self._server: Server | None = None
        self._health: asyncio.Task[None] | None = None
        self._node_tasks: list[asyncio.Task[None]] = []
        self.port = config.port

    # ----- lifecycle ----------------------------------------------------------------

    async def start(self) -> None:
        await self.store.ping()  # StoreDown: a server that cannot reach its store does not start
        loop = asyncio.get_running_loop()
        if self.config.public_url and not isinstance(self.store, MemoryStore):  # one node of many
            cluster = self.lobby.cluster = Cluster(self.store, self.config.public_url)
            cluster.start()
            listening = loop.create_future()
            self._node_tasks.append(loop.create_task(self._hear_nodes(listening)))
            await asyncio.wait([listening], timeout=2.0)
        await self.lobby.restore(self.accounts)  # races that were running when the last server stopped
        if self.lobby.cluster is not None:
            self._node_tasks.append(loop.create_task(self._tend_races()))
        self._health = loop.create_task(self._watch_store())
        self._server = await serve(
            self._connection,
            self.config.host,
            self.config.port,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
            select_subprotocol=_select_subprotocol,
            process_request=self._http,
            compression=None,
            max_size=self.config.max_frame,
            max_queue=16,
        )
        self.port = next(iter(self._server.sockets)).getsockname()[1]

    @property
    def url(self) -> str:
        return self.config.public_url or f"ws://{self.config.host}:{self.port}/ws"

    async def stop(self) -> None:
        """Stop accepting, close every connection with 1001 (going away), wait for them."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._health is not None:
            self._health.cancel()
        for task in self._node_tasks:
            task.cancel()
        await self.lobby.drain()
        if self.lobby.cluster is not None:  # its races go to other nodes at once
            await self.lobby.cluster.stop(release=True)
        await asyncio.to_thread(self.executor.shutdown, wait=True, cancel_futures=True)
        await self.store.close()

    async def _watch_store(self) -> None:
        """Ping the store every second: /healthz says when it is down, and when it is back."""
        while True:
            await asyncio.sleep(STORE_CHECK)
            try:
                await self.store.ping()
            except StoreDown as exc:
                if self.store_down is None:
                    log.error("store down: %s", exc)
                self.store_down = str(exc) or "unreachable"
                continue
            if self.store_down is not None:
                log.info("store back")
            self.store_down = None

    async def _hear_nodes(self, listening: asyncio.Future[None]) -> None:
        """Forward the other nodes' race events to our spectators and subscribers."""
        assert self.lobby.cluster is not None
        me = self.lobby.cluster.node
        while True:
            try:
                events = self.store.events()
                async with contextlib.aclosing(events):
                    await anext(events)  # the subscription is live
                    if not listening.done():
                        listening.set_result(None)
                    async for event in events:
                        if event.get("node") != me:
                            self.lobby.remote(event)
            except StoreDown as exc:
                log.warning("node events unheard (%s); listening again", exc)
                await asyncio.sleep(RENEW_EVERY)
            except Exception:
                log.exception("node events failed; listening again")
                await asyncio.sleep(RENEW_EVERY)

    async def _tend_races(self) -> None:
        """Renew our leases and adopt the races of dead nodes, every RENEW_EVERY seconds."""
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                await self.lobby.adopt_orphans()
            except StoreDown as exc:
                log.warning("leases not renewed (%s)", exc)
            except Exception:
                log.exception("lease renewal failed")

    async def __aenter__(self) -> RaceServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ----- plain HTTP ---------------------------------------------------------------

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            if self.addresses.full(_address(connection)):
                return connection.respond(
                    http.HTTPStatus.TOO_MANY_REQUESTS, "too many connections from your address\n"
                )
            return None
        if path == "/":
            return _response(200, _page(), "text/html; charset=utf-8")
        if path == "/healthz":
            body: dict[str, Any] = {
                "status": "ok" if self.store_down is None else "store_down",
                "store": type(self.store).__name__,
                "connections": len(self.connections),
                "races": len(self.lobby.races),
            }
            if self.store_down is not None:
                body["error"] = self.store_down
            return _response(
                200 if self.store_down is None else 503, json.dumps(body) + "\n", "application/json"
            )
        if path == "/metrics":
            self._refresh_gauges()
            return _response(200, self.metrics.text().decode(), "text/plain; version=0.0.4; charset=utf-8")
        return connection.respond(http.HTTPStatus.NOT_FOUND, "not found: try /, /ws, /healthz or /metrics\n")

    def _refresh_gauges(self) -> None:
        counts: dict[str, int] = {"open": 0, "countdown": 0, "running": 0}
        for race in self.lobby.races.values():
            counts[race.state] = counts.get(race.state, 0) + 1
        for state, n in counts.items():
            self.metrics.races.labels(state).set(n)

    # ----- websocket connections ----------------------------------------------------

    async def _connection(self, ws: ServerConnection) -> None:
        address = _address(ws)
        if not self.addresses.add(address):
            await ws.close(CLOSE_POLICY, "too many connections from your address")
            return
        conn = Connection(
            ws, ws.subprotocol or MSGPACK, address, TokenBucket(self.config.rate, self.config.burst)
        )
        self.connections.add(conn)
        self.metrics.connections.inc()
        pending: asyncio.Queue[dict[str, Any]] = asyncio.Queue(self.config.max_pending)
        worker = asyncio.create_task(self._work(conn, pending))
        try:
            async for frame in ws:
                if not self._admit(conn, frame, pending):
                    await ws.close(CLOSE_POLICY, "too many bad or rate-limited messages")
                    break
        except ConnectionClosed:
            pass
        finally:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):  # whatever ended it, clean up
                await worker
            self.connections.discard(conn)
            self.metrics.connections.dec()
            self.addresses.remove(address)
            self.lobby.gone(conn)
            player = conn.player
            if player is not None and player.connection is None and player.race is None:
                self.accounts.forget(player)

    def _admit(self, conn: Connection, frame: bytes | str, pending: asyncio.Queue[dict[str, Any]]) -> bool:
        """Read one frame into the queue, or answer why not; False when the client must go."""
        rid: int | None = None
        try:
            msg = decode(frame, conn.subprotocol)  # first, so a refusal can name the request's id
            rid = request_id(msg)
            wait = conn.bucket.take()
            if wait:
                raise ProtocolError("rate_limited", retry_after=math.ceil(wait * 1000) / 1000)  # never 0
            req = check_request(msg)
            self.metrics.messages.labels(req["type"]).inc()
            try:
                pending.put_nowait(req)
            except asyncio.QueueFull:
                raise ProtocolError("busy") from None
        except ProtocolError as e:
            self._refuse(conn, e, rid)
            conn.bad_in_row += 1
            return conn.bad_in_row <= self.config.max_bad_messages
        conn.bad_in_row = 0
        return True

    def _refuse(self, conn: Connection, error: ProtocolError, rid: int | None) -> None:
        self.metrics.errors.labels(error.code).inc()
        try:
            conn.push(error.to_message(rid))
        except Exception:  # an error that cannot be sent must not take the connection down
            log.exception("could not send error %s", error.code)

    async def _work(self, conn: Connection, pending: asyncio.Queue[dict[str, Any]]) -> None:
        while True:
            req = await pending.get()
            try:
                answer = await self.handlers.handle(conn, req)
                if answer is not None:
                    await conn.send(answer)
            except ProtocolError as e:
                self._refuse(conn, e, req.get("id"))
            except StoreDown as exc:
                log.warning("store down during %s: %s", req.get("type"), exc)
                self.store_down = self.store_down or str(exc) or "unreachable"
                self._refuse(conn, ProtocolError("store_down"), req.get("id"))
            except ConnectionClosed:
                return
            except Exception:  # a bug: log it, answer `internal`, keep serving this connection
                log.exception("request %s failed", req.get("type"))
                self._refuse(conn, ProtocolError("internal"), req.get("id"))


def _select_subprotocol(connection: ServerConnection, subprotocols: Any) -> Any:
    """The client's first offer we speak. A client offering none gets msgpack without the
    header (naming a protocol it did not offer would fail its handshake); one offering
    only others gets 400."""
    for offered in subprotocols:
        if offered in SUBPROTOCOLS:
            return offered
    if subprotocols:
        raise NegotiationError("unsupported subprotocol; offer one of " + ", ".join(SUBPROTOCOLS))
    return None


def _address(connection: ServerConnection) -> str:
    remote = connection.remote_address
    return str(remote[0]) if remote else "?"


@functools.cache
def _page() -> str:
    """The live lobby page: plain HTML and JS over the JSON subprotocol."""
    return resources.files("server").joinpath("static/index.html").read_text(encoding="utf-8")


def _response(status: int, body: str, content_type: str) -> Response:
    data = body.encode()
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(data)))])
    return Response(status, http.HTTPStatus(status).phrase, headers, data)
