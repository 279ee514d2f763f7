"""What the transport needs of the server behind it: the one narrow door between them.

The endpoint and the HTTP routes see the server only through :class:`Host`, so they never
import the server that wires them (``server.app``) and can be read (and tested) on their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from server.config import Config
from server.metrics import Metrics
from server.transport.connection import Connection
from server.transport.guard import Guard
from terrace.wire.messages import Request

Message = Mapping[str, object]  # an answer: one of terrace.wire.messages' types


class Host(Protocol):
    config: Config
    metrics: Metrics
    guard: Guard
    connections: set[Connection]
    store_down: str | None  # why the store failed last, or None while it answers

    async def handle(self, conn: Connection, req: Request) -> Message | None:
        """Answer one checked request (None when the answer was sent another way)."""

    def gone(self, conn: Connection) -> None:
        """A connection closed."""

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` says beside the store's state: counts, never secrets."""

    def refresh_gauges(self) -> None:
        """Bring the gauges ``/metrics`` shows up to date."""
