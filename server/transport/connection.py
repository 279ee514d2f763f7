"""One websocket connection: its subprotocol, its player, its limits, and how to reach it.

Pushes never wait for the client (``websockets.broadcast`` writes into the transport
whatever is already waiting there), so a client that stops reading would grow the
server's memory without bound. Every write goes through :class:`Outbound`'s rules
instead: past ``behind`` unsent bytes a deadline starts, and a connection still
behind when it passes, or one that already holds more than ``ceiling`` unsent bytes
when something more is to be written, is cut off at once (its transport aborted: a close frame would only queue behind
the data it does not read).

What a connection has not taken yet is held once for everybody where it can be: a push
is encoded once per subprotocol, and while a connection's transport is past its write
high-water mark (``paused``) further pushes wait in the connection's own outbox as
references to those shared bytes, handed to websockets only as the transport drains.
So a hundred lobby subscribers that stop reading hold one copy of the lobby's news
between them, not a hundred copies in their transports' buffers; their limits count
what each is behind all the same.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast

from server.players.accounts import Player
from server.transport.limits import TokenBucket
from terrace.vocab import ViewMode
from terrace.wire.protocol import MSGPACK, encode


@dataclass(frozen=True)
class Outbound:
    """How much a client may leave unread, and for how long."""

    behind: int  # unsent bytes past which the deadline runs (websockets' own write high-water mark)
    ceiling: int  # unsent bytes past which nothing more is written: the connection is cut off
    deadline: float  # seconds a connection may stay behind
    on_cut: Callable[[], None] = lambda: None  # counts a slow reader cut off


_FRAME_HEAD = 14  # the most a websocket frame's header adds to its payload

UNLIMITED = Outbound(behind=1 << 62, ceiling=1 << 62, deadline=float("inf"))


@dataclass(eq=False)
class Connection:
    ws: ServerConnection
    subprotocol: str
    address: str
    bucket: TokenBucket
    outbound: Outbound = UNLIMITED
    player: Player | None = None
    bad_in_row: int = 0  # refused messages (bad, rate-limited; not busy) since the last accepted one
    spectating: set[str] = field(default_factory=set)
    views: ViewMode = "full"  # how its `moved` answers carry the view (hello's `views`)
    _timer: asyncio.TimerHandle | None = None
    cut: bool = False  # cut off as a slow reader
    # pushes waiting for the transport to drain, in order: the very bytes every listener shares
    # (None while nothing waits: an empty deque costs 760 bytes, on every idle connection)
    _outbox: deque[bytes | str] | None = None
    _outbox_bytes: int = 0
    _flushed: asyncio.Event | None = None  # made for the first answer that waits for the outbox

    def __post_init__(self) -> None:
        if hasattr(self.ws, "on_drained"):  # a GuardedConnection (server.guard) tells us when it drains
            self.ws.on_drained = self._flush

    async def send(self, msg: Mapping[str, Any]) -> None:
        """Send and wait for the socket to take it (answers: backpressure per client), at most
        the slow-reader deadline; a client that reads nothing for that long is cut off."""
        data = encode(msg, self.subprotocol)
        if not self.room_for(len(data)):
            return
        ws = self.ws
        if (
            not self._outbox
            and not ws.paused
            and self.buffered() + len(data) + _FRAME_HEAD <= self.outbound.behind
        ):
            # it cannot take the transport past its high-water mark, so websockets does not
            # wait for it to drain: no deadline to keep (a timeout costs 4 us, a twentieth of a move)
            await ws.send(data)
            return
        try:
            async with asyncio.timeout(self.outbound.deadline if self.outbound.deadline < 1e9 else None):
                while self._outbox:  # the pushes queued before this answer go first
                    if self._flushed is None:
                        self._flushed = asyncio.Event()
                    await self._flushed.wait()
                await self.ws.send(data)
        except TimeoutError:
            self.cut_off()

    def push(self, msg: Mapping[str, Any]) -> None:
        """Send without waiting (pushes); a closed or cut-off connection is skipped."""
        self.send_frame(encode(msg, self.subprotocol))

    def send_frame(self, data: bytes | str) -> None:
        """:meth:`push` of a message already encoded for this connection's subprotocol."""
        if self.room_for(len(data)):
            self.write(data)

    def write(self, data: bytes | str) -> None:
        """Write now, or (transport past its high-water mark) queue the same bytes in the outbox."""
        if self._outbox or getattr(self.ws, "paused", False):
            if self._outbox is None:
                self._outbox = deque()
            self._outbox.append(data)
            self._outbox_bytes += len(data)
            if self._flushed is not None:
                self._flushed.clear()
        else:
            broadcast([self.ws], data)

    def _flush(self) -> None:
        """The transport drained: hand it queued pushes until it is past its high-water mark again."""
        while self._outbox and not self.ws.paused and not self.cut:
            data = self._outbox.popleft()
            self._outbox_bytes -= len(data)
            broadcast([self.ws], data)
        if not self._outbox:
            self._drained()

    def _drained(self) -> None:
        self._outbox = None
        if self._flushed is not None:
            self._flushed.set()

    def buffered(self) -> int:
        """Bytes written to this connection that the client has not taken yet (beyond the kernel's):
        in its transport's buffer and in its outbox."""
        transport = self.ws.transport
        return self._outbox_bytes + (transport.get_write_buffer_size() if transport is not None else 0)

    def room_for(self, size: int) -> bool:
        """Whether ``size`` more bytes may be written now; starts or clears the deadline, and
        cuts the connection off if it is past the ceiling already (so one large answer to a client
        that keeps up always goes out, and what is held never passes the ceiling by more than one
        message)."""
        if self.cut:
            return False
        waiting = self.buffered()
        if waiting > self.outbound.ceiling:
            self.cut_off()
            return False
        if waiting + size > self.outbound.behind:  # behind once this is written
            if self._timer is None:
                loop = asyncio.get_running_loop()
                self._timer = loop.call_later(self.outbound.deadline, self._deadline_passed)
        elif self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return True

    def _deadline_passed(self) -> None:
        self._timer = None
        if self.buffered() > self.outbound.behind:
            self.cut_off()

    def cut_off(self) -> None:
        """Drop a client that does not read: abort its transport, freeing what waits for it."""
        if self.cut:
            return
        self.cut = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.outbound.on_cut()
        self._outbox_bytes = 0
        self._drained()
        if self.ws.transport is not None:
            self.ws.transport.abort()


def fan_out(connections: Iterable[Connection], msg: Mapping[str, Any]) -> int:
    """Send ``msg`` to every connection with room for it, encoding it once per subprotocol;
    returns how many it was written to."""
    encoded: dict[str, bytes | str] = {}
    groups: dict[str, list[ServerConnection]] = {}
    queued = 0
    for c in connections:
        subprotocol = c.subprotocol or MSGPACK
        if subprotocol not in encoded:
            encoded[subprotocol] = encode(msg, subprotocol)
        if not c.room_for(len(encoded[subprotocol])):
            continue
        if c._outbox or getattr(c.ws, "paused", False):  # behind its transport: shared bytes, queued
            c.write(encoded[subprotocol])
            queued += 1
        else:
            groups.setdefault(subprotocol, []).append(c.ws)
    for subprotocol, sockets in groups.items():
        broadcast(sockets, encoded[subprotocol])
    return queued + sum(len(s) for s in groups.values())
