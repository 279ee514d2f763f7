"""A client's side of a protocol v1 connection, without the socket (sans-I/O, like h11).

Bots and the terminal client each wrap a websocket around one
:class:`Conversation`: it numbers requests, turns frames into messages, tells
an answer (it carries ``re``) from a push, and says when an answer is only a
``rate_limited`` refusal to send the same request again after ``retry_after``.

    >>> c = Conversation()
    >>> rid, frame = c.request("ping")
    >>> reply = c.receive(encode({"type": "pong", "re": rid, "time": 0}))
    >>> reply.id == rid, reply.message["type"]
    (True, 'pong')
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from terrace.wire.protocol import MSGPACK, Frame, decode, encode

Message = dict[str, Any]

# Reconnecting: first wait, growth, longest wait (seconds).
BACKOFF = (0.1, 2.0, 5.0)


@dataclass(frozen=True)
class Answer:
    """The answer to request ``id``."""

    id: int
    message: Message

    @property
    def retry_after(self) -> float | None:
        """Seconds to wait before sending the request again, if the server refused it for rate."""
        if self.message.get("code") != "rate_limited":
            return None
        return float(self.message.get("retry_after", 0.05))


@dataclass(frozen=True)
class Push:
    """A message the server sent on its own (``started``, ``standings``, ``finished``...)."""

    message: Message


class Conversation:
    def __init__(self, subprotocol: str = MSGPACK) -> None:
        self.subprotocol = subprotocol
        self._next_id = 0
        self._pending: dict[int, Message] = {}

    def request(self, type_: str, **fields: Any) -> tuple[int, Frame]:
        """A new request's id and the frame to send."""
        self._next_id += 1
        msg = {"type": type_, **fields, "id": self._next_id}
        self._pending[self._next_id] = msg
        return self._next_id, encode(msg, self.subprotocol)

    def resend(self, rid: int) -> Frame:
        """The frame of pending request ``rid`` again (after ``rate_limited``)."""
        return encode(self._pending[rid], self.subprotocol)

    def receive(self, frame: Frame) -> Answer | Push | None:
        """What ``frame`` is; None for an answer to no pending request (a late duplicate).

        Raises ``terrace.errors.ProtocolError`` (``bad_message``) for a frame that cannot be read.
        """
        msg = decode(frame, self.subprotocol)
        re = msg.get("re")
        if re is None:
            return Push(msg)
        if not isinstance(re, int) or re not in self._pending:
            return None
        if msg.get("code") != "rate_limited":
            del self._pending[re]
        return Answer(re, msg)

    def forget(self, rid: int) -> None:
        """Stop waiting for ``rid`` (given up, or the connection is gone)."""
        self._pending.pop(rid, None)

    @property
    def pending(self) -> list[int]:
        return sorted(self._pending)


def backoff(
    first: float = BACKOFF[0], factor: float = BACKOFF[1], longest: float = BACKOFF[2]
) -> Iterator[float]:
    """Waits between reconnect attempts: ``first``, growing by ``factor``, never above ``longest``."""
    delay = first
    while True:
        yield delay
        delay = min(delay * factor, longest)
