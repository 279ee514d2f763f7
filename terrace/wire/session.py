"""A client's session policy, without the socket: who to say hello as, when to reconnect, where to go.

The terminal client and the bot SDK both keep one :class:`SessionPolicy` behind
their connection (the asyncio part lives in ``link/``). Every decision a client
makes about its session is here, with the time passed in, so it is tested with
a fake clock:

- **hello**: the session the server gave us, else a registered player's token,
  else a guest name; a ``bad_session`` (another node, or a restarted server)
  drops the session and says hello afresh;
- **drops**: reconnect with growing waits until ``reconnect_for`` seconds have
  passed since the drop (the server keeps a seat for its grace period), except
  when we closed on purpose or the player connected from elsewhere;
- **redirects**: a ``redirect`` answer moves us to the node that owns the race;
  a node we were sent to that cannot be reached sends us back home, where the
  race shows up once the dead node's lease runs out;
- **resends**: which requests may be sent again after a drop (a ``move`` with the
  same ``seq`` is applied once; a ``create`` or ``register`` is not resent).

    >>> p = SessionPolicy("ws://a/ws", name="ann")
    >>> p.hello()
    {'name': 'ann'}
    >>> p.welcomed({"type": "welcome", "session": "s1", "player": {"name": "ann"}})
    'ok'
    >>> p.hello()
    {'session': 's1'}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from terrace.wire.conversation import Message, backoff
from terrace.wire.messages import Redirect

RECONNECT_FOR = 60.0  # the server's default grace period: past it the seat is gone anyway
REDIRECT_RETRY = 0.5  # seconds before asking home again after the owner could not be reached

# Close codes that mean "do not come back": the player connected from elsewhere.
REPLACED = 4001
GOING_AWAY = 1001

# Requests that are safe to send again after a drop: the server answers a repeat once
# (a move's seq), or the request only reads. `create` and `register` would do it twice.
NOT_RESENT = frozenset({"create", "register", "hello"})

Hello = Literal["ok", "again"]


class HelloRefused(Exception):
    """The server refused our hello (bad token, name taken...): reconnecting will not help."""

    def __init__(self, answer: Message) -> None:
        self.answer = answer
        self.code = str(answer.get("code", "?"))
        super().__init__(str(answer.get("message", self.code)))


def close_reason(code: int | None, reason: str = "") -> str:
    """A sentence for why a connection closed, from its close code and reason."""
    if code == REPLACED:
        return "this player connected from somewhere else"
    if code == GOING_AWAY:
        return "the server is shutting down"
    if code:
        return f"connection closed ({code}{': ' + reason if reason else ''})"
    return "connection lost"


@dataclass(frozen=True)
class News:
    """Something a person (or a bot's log) should hear about the connection.

    ``kind`` is "lost" (reconnecting; ``attempt`` counts from 1), "back" (reconnected)
    or "gone" (given up; ``reason`` says why).
    """

    kind: Literal["lost", "back", "gone"]
    reason: str = ""
    attempt: int = 0


@dataclass(frozen=True)
class Retry:
    """Try to connect again after ``delay`` seconds."""

    delay: float


@dataclass(frozen=True)
class GiveUp:
    """Stop trying; ``reason`` says why, for the person or the log."""

    reason: str


@dataclass
class SessionPolicy:
    """One identity at one server: its hello, its reconnects, its redirects."""

    home: str
    token: str | None = None
    name: str | None = None
    kind: str | None = None  # a guest's kind (``bot`` for programs); an account's is its own
    reconnect_for: float = RECONNECT_FOR
    client: str | None = None  # this install's id, sent with every hello (one rated seat per install)
    house_key: str | None = None  # the server's house key, for a guest name beginning with "house"
    url: str = ""
    session: str | None = None
    player: Message = field(default_factory=dict)
    reconnects: int = 0  # successful reconnects after a drop
    _deadline: float | None = None
    _waits: Iterator[float] | None = None

    def __post_init__(self) -> None:
        self.url = self.url or self.home

    # ----- hello -----------------------------------------------------------------

    def hello(self) -> Message:
        """The fields of our next ``hello`` (with ``client`` whichever way we say it: the server
        keeps the one of the last hello)."""
        install = {"client": self.client} if self.client else {}
        if self.session:
            return {"session": self.session, **install}
        if self.token:
            return {"token": self.token, **install}
        guest: dict[str, str] = {"kind": self.kind} if self.kind else {}
        if self.house_key and self.name:
            guest["house_key"] = self.house_key
        return {**guest, "name": self.name, **install} if self.name else {**guest, **install}

    def welcomed(self, answer: Message) -> Hello:
        """Take the answer to ``hello``: "ok", or "again" to say hello afresh; raises HelloRefused."""
        if answer.get("type") == "welcome":
            self.session, self.player = str(answer["session"]), dict(answer["player"])
            if self._deadline is not None:
                self.reconnects += 1
            self._deadline = self._waits = None
            return "ok"
        if answer.get("code") == "bad_session" and self.session is not None:
            self.session = None  # another node, or a restarted server: it does not know us
            return "again"
        raise HelloRefused(answer)

    # ----- drops and reconnects -------------------------------------------------------

    def dropped(
        self, now: float, code: int | None, reason: str = "", *, by_us: bool = False
    ) -> Retry | GiveUp:
        """The connection closed at ``now``: connect again after a wait, or give up."""
        if by_us:
            return GiveUp("closed")
        if code == REPLACED:
            return GiveUp(close_reason(code))
        if self._deadline is None:
            self._deadline = now + self.reconnect_for
            self._waits = backoff()
        return self.connect_failed(now)

    def connect_failed(self, now: float, why: str = "") -> Retry | GiveUp:
        """An attempt to connect (or reconnect) failed at ``now``: wait and try again, or give up."""
        self.url = self.home  # a node we were sent to may be gone: its races move on elsewhere
        if self._deadline is None:  # the first connection of all: nothing to come back to
            return GiveUp(why or f"cannot reach {self.home}")
        assert self._waits is not None
        delay = next(self._waits)
        if now + delay > self._deadline:
            return GiveUp(
                f"could not reconnect to {self.home} for {self.reconnect_for:.0f} s"
                + (f": {why}" if why else "")
            )
        return Retry(delay)

    # ----- redirects and resends ---------------------------------------------------

    def redirected(self, answer: Redirect) -> str:
        """A ``redirect`` answer: the url to say hello at (our session is the old node's)."""
        self.url = answer["url"]
        return self.url

    def owner_unreachable(self) -> Retry:
        """The node a redirect named cannot be reached: ask home again shortly."""
        self.url = self.home
        return Retry(REDIRECT_RETRY)

    @staticmethod
    def resendable(type_: str) -> bool:
        """May a request of ``type_`` whose answer was lost be sent again on a new connection?"""
        return type_ not in NOT_RESENT
