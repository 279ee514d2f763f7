"""One identity at one server over a connection that comes back: hello, reconnects, redirects.

The asyncio edge of ``terrace.wire.session.SessionPolicy``, shared by the terminal
client and the bot SDK. :meth:`Session.request` survives a dropped line: the
session reconnects in the background with backoff, says hello with its session
(the server puts a player back into their race and pushes ``started`` again),
then sends the request again, so a ``move`` keeps its ``seq`` and is applied
once. A ``redirect`` answer (or push: the node running our race lost it to another)
is followed to the node that owns the race, where our session is good too. Pushes
go to ``on_push``, and wait in order for :meth:`Session.push` when
``queue_pushes`` is set (the SDK reads them that way); connection news goes to
``on_news``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from terrace.wire.conversation import Message
from terrace.wire.messages import Redirect, read
from terrace.wire.protocol import MSGPACK
from terrace.wire.session import RECONNECT_FOR, GiveUp, HelloRefused, News, Retry, SessionPolicy

from .connection import Connection, Offline, checked

log = logging.getLogger("terrace.link")


class Session:
    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        name: str | None = None,
        kind: str | None = None,
        client: str | None = None,
        house_key: str | None = None,
        subprotocol: str = MSGPACK,
        reconnect_for: float = RECONNECT_FOR,
        on_push: Callable[[Message], None] | None = None,
        on_news: Callable[[News], None] | None = None,
        queue_pushes: bool | None = None,
    ) -> None:
        self.policy = SessionPolicy(
            url,
            token=token,
            name=name,
            kind=kind,
            client=client,
            house_key=house_key,
            reconnect_for=reconnect_for,
        )
        self.subprotocol = subprotocol
        self.on_push = on_push
        self.on_news = on_news or (lambda news: None)
        self.queue_pushes = on_push is None if queue_pushes is None else queue_pushes
        self.conn: Connection | None = None
        self.welcome: Message = {}  # the last hello's answer (after a reconnect: its own)
        self._rate_limited = 0  # rate_limited resends on connections now closed
        self._pushes: asyncio.Queue[Message | None] = asyncio.Queue()
        self._online = asyncio.Event()
        self._gone: str | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._following: asyncio.Task[None] | None = None  # a redirect push being followed
        self._quiet = False  # closing a connection on purpose (a redirect, or close()): no reconnect

    # ----- what the policy knows -------------------------------------------------------

    @property
    def url(self) -> str:
        return self.policy.url

    @property
    def player(self) -> Message:
        return self.policy.player

    @property
    def reconnects(self) -> int:
        return self.policy.reconnects

    @property
    def rate_limited(self) -> int:
        """Requests sent again after ``rate_limited``, over every connection of this session."""
        return self._rate_limited + (self.conn.rate_limited if self.conn is not None else 0)

    @property
    def online(self) -> bool:
        """Connected now (not dropped and reconnecting, not given up)."""
        return (
            self._online.is_set() and self._gone is None and self.conn is not None and not self.conn.is_closed
        )

    @property
    def gone(self) -> str | None:
        """Why the session gave up on the server, once it has."""
        return self._gone

    # ----- connecting ------------------------------------------------------------------

    async def connect(self) -> Message:
        """Open a connection and say hello; returns ``welcome``.

        Raises Offline if the server cannot be reached and HelloRefused if it refuses us.
        """
        conn = await Connection.open(self.policy.url, self._heard, subprotocol=self.subprotocol)
        try:
            while True:
                welcome = await conn.request("hello", **self.policy.hello())
                if self.policy.welcomed(welcome) == "ok":
                    break
        except BaseException:
            await conn.close()
            raise
        self._take(conn)
        self._gone = None
        self.welcome = welcome
        return welcome

    def _take(self, conn: Connection) -> None:
        self.conn, self._quiet = conn, False
        conn.closed.add_done_callback(lambda closed: self._dropped(conn, closed.result()))
        self._online.set()

    def _dropped(self, conn: Connection, reason: str) -> None:
        self._rate_limited += conn.rate_limited
        if conn is not self.conn or self._quiet or self._gone:
            return
        self._online.clear()
        decision = self.policy.dropped(time.monotonic(), conn.ws.close_code, reason)
        self._start_reconnect(decision, reason)

    def _start_reconnect(self, decision: Retry | GiveUp, reason: str) -> None:
        if isinstance(decision, GiveUp):
            self._give_up(decision.reason)
            return
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect(decision, reason))

    async def _reconnect(self, decision: Retry | GiveUp, reason: str) -> None:
        attempt = 0
        while isinstance(decision, Retry):
            attempt += 1
            self.on_news(News("lost", reason, attempt))
            await asyncio.sleep(decision.delay)
            try:
                await self.connect()
            except HelloRefused as exc:
                decision = GiveUp(f"hello refused: {exc.code}: {exc}")
            except (Offline, OSError) as exc:
                decision = self.policy.connect_failed(time.monotonic(), str(exc))
            else:
                log.info("%s: reconnected to %s", self._who(), self.url)
                self.on_news(News("back"))
                return
        self._give_up(decision.reason)

    def _give_up(self, reason: str) -> None:
        self._gone = reason
        self._online.set()  # wakes waiting requests, which now fail
        self._pushes.put_nowait(None)
        self.on_news(News("gone", reason))

    async def close(self) -> None:
        self._quiet = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        if self.conn is not None:
            await self.conn.close()
        if self._gone is None:
            self._gone = "closed"
            self._pushes.put_nowait(None)
        self._online.set()

    # ----- requests ----------------------------------------------------------------------

    async def request(self, type_: str, **fields: Any) -> Message:
        """The answer to a request (``error`` answers included), across drops and redirects.

        Raises Offline once the session has given up on the server, or when a request
        that must not be sent twice (``create``, ``register``) lost its line.
        """
        while True:
            await self._online.wait()
            if self._gone is not None:
                raise Offline(self._gone)
            conn = self.conn
            assert conn is not None
            try:
                answer = await conn.request(type_, **fields)
            except Offline:
                if not conn.is_closed or not self.policy.resendable(type_):
                    raise  # no answer from a live line, or not safe to send twice
                await asyncio.sleep(0)  # the drop callback clears _online and starts the reconnect
                continue
            if answer.get("type") != "redirect":
                return answer
            await self._follow(read(answer, Redirect))

    async def ask(self, type_: str, **fields: Any) -> Message:
        """:meth:`request`, raising ``Refused`` for an ``error`` answer."""
        return checked(await self.request(type_, **fields))

    async def _follow(self, answer: Redirect) -> None:
        """A ``redirect`` (an answer, or a push when the race moved to another node): say hello at
        the race's node with our session and carry on."""
        url = self.policy.redirected(answer)
        log.info("%s: race %s is on %s", self._who(), answer["race"], url)
        self._online.clear()
        old, self._quiet = self.conn, True
        try:
            self.conn = None  # the old line's close is no drop
            if old is not None:
                await old.close()
            try:
                await self.connect()
                return
            except (Offline, OSError):
                await asyncio.sleep(self.policy.owner_unreachable().delay)
            try:
                await self.connect()
            except (Offline, OSError) as exc:  # home is down too: reconnect as after any drop
                self._quiet = False
                self._start_reconnect(self.policy.dropped(time.monotonic(), None, str(exc)), str(exc))
        finally:
            self._quiet = False

    # ----- pushes ------------------------------------------------------------------------

    def _heard(self, msg: Message) -> None:
        if msg.get("type") == "redirect" and not self._gone:  # our race moved to another node
            self._following = asyncio.get_running_loop().create_task(self._follow(read(msg, Redirect)))
        if self.on_push is not None:
            self.on_push(msg)
        if self.queue_pushes:
            self._pushes.put_nowait(msg)

    async def push(self, *types: str, race: str | None = None, timeout: float | None = None) -> Message:
        """The next push of one of ``types`` (for ``race`` when given); others are passed over.

        Pushes wait across reconnects. TimeoutError after ``timeout`` seconds; Offline once
        the session has given up.
        """
        async with asyncio.timeout(timeout):
            while True:
                msg = await self._pushes.get()
                if msg is None:
                    self._pushes.put_nowait(None)  # every later call sees it too
                    raise Offline(self._gone or "closed")
                if msg.get("type") in types and (race is None or msg.get("race") == race):
                    return msg

    def _who(self) -> str:
        return str(self.player.get("name") or self.policy.name or "player")
