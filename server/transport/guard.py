"""The door: connections counted per address from the moment they are accepted, and
websocket control frames (ping, pong) rate limited.

websockets only hands a connection to the server once its handshake is done, so a
count kept there misses half-open upgrades: one address could hold thousands of
sockets that never finish a handshake. :class:`Guard` counts every accepted socket
instead, from ``connection_made`` to ``connection_lost``. Up to the per-address cap a
socket goes on; a few more (as many again as the cap, at least 16) are let in only to be
answered HTTP 429 (so a client learns why); past that a socket is dropped at once. The handshake itself must end
within ``handshake_timeout`` (the server's ``open_timeout``).

Each accepted socket's kernel send buffer is set to ``send_buffer`` bytes: left alone,
the kernel grows it to megabytes for a client that does not read, memory the server's
own write limits (:mod:`server.transport.connection`) never see.

Control frames are answered by websockets itself and never reach the read loop, so
they would bypass the message rate limit: :func:`guarded` counts them against a
bucket of their own and closes a connection that sends too many with 1008.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, Literal

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from server.config import Config, proxy_networks
from server.metrics import Metrics
from server.transport.limits import AddressBuckets, AddressCounter, TokenBucket, address_key

log = logging.getLogger("terrace.server")

CLOSE_POLICY = 1008
REFUSALS = 16  # sockets past the cap that may wait for their 429, at least
CUT_GRACE = 1.0  # seconds a connection cut for its control frames has to read the close frame

Admission = Literal["in", "over", "full", "dropped"]
FD_SPARE = 256  # open files kept for everything but connections: Redis, workers, logs, accepts


class Guard:
    """Per-address counts and buckets of one server."""

    def __init__(self, config: Config, metrics: Metrics) -> None:
        self.config = config
        self.metrics = metrics
        cap = config.max_conns_per_address
        self.open = AddressCounter(cap + max(cap, REFUSALS))  # sockets, those waiting for a 429 included
        self.buckets = AddressBuckets(config.address_rate, config.address_burst)
        self.proxies = proxy_networks(config.trusted_proxies)  # whose X-Forwarded-For names the client
        self.total = 0  # sockets open in all, those waiting for a 429 or a 503 included
        self.max_connections = min(config.max_connections, connection_room())
        if self.max_connections < config.max_connections:
            log.warning(
                "max_connections lowered from %d to %d to fit the open-files limit (ulimit -n)",
                config.max_connections,
                self.max_connections,
            )

    def accept(self, address: str) -> Admission:
        """Count a new socket from ``address``: ``in``, ``over`` (its address has too many: to be
        answered 429), ``full`` (the server has too many: 503), or ``dropped``."""
        if self.total >= self.max_connections + REFUSALS:  # not even a refusal: no file to spare
            self.metrics.cut.labels("server_cap").inc()
            return "dropped"
        if not self.open.add(address):
            self.metrics.cut.labels("address_cap").inc()
            return "dropped"
        self.total += 1
        if self.open.count(address) > self.config.max_conns_per_address:
            return "over"
        if self.total > self.max_connections:
            return "full"
        return "in"

    def release(self, address: str) -> None:
        self.open.remove(address)
        self.total -= 1


def connection_room() -> int:
    """How many connections the open-files limit leaves room for (a socket is a file)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, ValueError, OSError):
        return 1 << 30
    return (1 << 30) if soft == resource.RLIM_INFINITY else max(16, soft - FD_SPARE - REFUSALS)


class GuardedConnection(ServerConnection):
    """A server connection counted by a :class:`Guard` while its socket is open."""

    guard: Guard
    address: str = "?"
    admission: Admission = "dropped"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rate = self.guard.config.control_frames
        self.control = TokenBucket(rate, max(1, int(2 * rate)))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = address_key(str(peer[0])) if peer else "?"
        self.admission = self.guard.accept(self.address)
        super().connection_made(transport)
        if self.admission == "dropped":
            self.transport.abort()
            return
        sock = transport.get_extra_info("socket")
        if self.guard.config.send_buffer and sock is not None:
            # The kernel would otherwise grow a slow reader's buffer to megabytes before
            # the server's own write limits see anything.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.guard.config.send_buffer)

    def resume_writing(self) -> None:
        super().resume_writing()
        self.on_drained()  # the connection's outbox (server.connection) goes on

    def on_drained(self) -> None:
        """Set by the connection this socket carries."""

    def connection_lost(self, exc: Exception | None) -> None:
        if self.admission != "dropped":
            self.guard.release(self.address)
            self.admission = "dropped"  # released once
        super().connection_lost(exc)

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame) and event.opcode in (Opcode.PING, Opcode.PONG):
            if self.protocol.state is not State.OPEN:  # failed already: the rest are ignored
                return
            if self.control.take():
                self.guard.metrics.cut.labels("control_frames").inc()
                self.protocol.fail(CLOSE_POLICY, "too many control frames")
                self.send_data()  # the close frame, then the end of our side
                # Not closed at once: closing with the flood still unread in our buffer
                # resets the connection, and the client may lose the close frame (1006).
                # What comes meanwhile is discarded; a client that never closes is cut.
                self.loop.call_later(CUT_GRACE, self.transport.abort)
                return
        super().process_event(event)


def guarded(guard: Guard) -> type[GuardedConnection]:
    """A connection class counted by ``guard`` (websockets builds connections from a class)."""
    return type("Guarded", (GuardedConnection,), {"guard": guard})
