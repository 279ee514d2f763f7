"""One websocket connection: its subprotocol, its player, its limits, and how to reach it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast

from terrace.protocol import MSGPACK, encode

from .accounts import Player
from .limits import TokenBucket


@dataclass(eq=False)
class Connection:
    ws: ServerConnection
    subprotocol: str
    address: str
    bucket: TokenBucket
    player: Player | None = None
    bad_in_row: int = 0  # refused messages (bad, rate-limited, busy) since the last accepted one
    spectating: set[str] = field(default_factory=set)

    async def send(self, msg: dict[str, Any]) -> None:
        """Send and wait for the socket to take it (answers: backpressure per client)."""
        await self.ws.send(encode(msg, self.subprotocol))

    def push(self, msg: dict[str, Any]) -> None:
        """Send without waiting (pushes); a closed connection is skipped."""
        broadcast([self.ws], encode(msg, self.subprotocol))


def fan_out(connections: Iterable[Connection], msg: dict[str, Any]) -> int:
    """Send ``msg`` to every connection, encoding it once per subprotocol; returns how many."""
    groups: dict[str, list[ServerConnection]] = {}
    for c in connections:
        groups.setdefault(c.subprotocol, []).append(c.ws)
    for subprotocol, sockets in groups.items():
        broadcast(sockets, encode(msg, subprotocol or MSGPACK))
    return sum(len(s) for s in groups.values())
