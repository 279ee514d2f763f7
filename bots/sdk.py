"""Race a bot on a server: say hello, queue or join, play every move with ``seq``, come back after a drop.

    from bots import Bot
    from bots.sdk import run

    class First(Bot):
        def choose(self, view, legal):
            return legal[0]

    run(First, "ws://127.0.0.1:8765/ws", name="first", races=3)

:class:`Racer` is one identity at one server; :meth:`Racer.race` plays one
race and returns its :class:`RaceResult`. Lost connections are retried with
backoff for ``reconnect_for`` seconds (the server keeps a seat for its grace
period, 60 s by default): the session resumes the race and a move whose answer
was lost is sent again with the same ``seq``, which the server applies once.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from terrace.conversation import Message, backoff
from terrace.protocol import MSGPACK

from .bot import Bot, BotFactory
from .link import Link, LinkClosed

log = logging.getLogger("terrace.bot")

MAX_ILLEGAL = 3  # illegal moves in a row before the SDK resigns for a confused bot
RECORD_POLL = 5.0  # seconds between record fetches while waiting for a missed `finished`
# Move refusals that mean the race is over for us (time limit, grace): wait for `finished`.
ENDED = frozenset({"player_finished", "race_not_running", "not_in_race"})


class SDKError(Exception):
    """The server refused something the bot cannot carry on without (a bad token, a bad queue)."""

    def __init__(self, message: str, answer: Message | None = None) -> None:
        super().__init__(message)
        self.answer = answer or {}
        self.code = self.answer.get("code")


@dataclass
class RaceResult:
    """How one race went for this bot."""

    race: str
    variant: str
    goal: str
    place: int | None
    finish: str | None  # goal, stuck, resigned, disconnected, time
    score: int
    terrace_left: int
    moves: int
    time_ms: int | None  # race time when the bot finished
    players: int
    seed: str | None  # revealed at the end: anyone can check the race with it
    reconnects: int
    illegal: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        place = f"place {self.place}/{self.players}" if self.place else "no place"
        return (
            f"race {self.race} ({self.variant}, goal {self.goal}): {place}, {self.finish}, "
            f"score {self.score}, terrace left {self.terrace_left}, {self.moves} moves"
        )


class Racer:
    """One bot identity (token, or guest name) at one server."""

    def __init__(
        self,
        factory: BotFactory,
        url: str,
        *,
        token: str | None = None,
        name: str | None = None,
        subprotocol: str = MSGPACK,
        reconnect_for: float = 60.0,
    ) -> None:
        self.factory = factory
        self.url = url
        self.home = url  # where a redirect to a node that is gone falls back to
        self.token = token
        self.name = name
        self.subprotocol = subprotocol
        self.reconnect_for = reconnect_for
        self.link: Link | None = None
        self.session: str | None = None
        self.player: Message | None = None
        self.reconnects = 0
        self.record_poll = RECORD_POLL
        self._resumed: Message | None = None  # a `started` pushed right after welcome

    # ----- connection --------------------------------------------------------------

    async def connect(self) -> Message:
        """Open a connection and say hello; returns ``welcome``. Raises SDKError if refused."""
        self.link = await Link.open(self.url, self.subprotocol)
        hello: dict[str, Any] = {}
        if self.session:
            hello["session"] = self.session
        elif self.token:
            hello["token"] = self.token
        elif self.name:
            hello["name"] = self.name
        welcome = await self.link.request("hello", **hello)
        if welcome.get("code") == "bad_session" and (self.token or self.name):
            self.session = None  # the server forgot us (a restart): start afresh
            return await self._hello_again()
        if welcome["type"] != "welcome":
            await self.link.close()
            raise SDKError(f"hello refused: {welcome.get('code')}: {welcome.get('message')}", welcome)
        self.session = welcome["session"]
        self.player = welcome["player"]
        return welcome

    async def _hello_again(self) -> Message:
        assert self.link is not None
        await self.link.close()
        return await self.connect()

    async def close(self) -> None:
        if self.link is not None:
            await self.link.close()

    async def _reconnect(self, race: str | None) -> Message | None:
        """Connect again with the session; returns the resumed ``started`` of ``race``, if any."""
        deadline = time.monotonic() + self.reconnect_for
        delays = backoff()
        reason = self.link.ws.close_reason if self.link else ""
        log.warning("%s: connection lost%s; reconnecting", self._who(), f" ({reason})" if reason else "")
        while True:
            try:
                await self.connect()
                break
            except (LinkClosed, OSError) as exc:
                self.url = self.home  # a node we were sent to may be gone: its races move on elsewhere
                delay = next(delays)
                if time.monotonic() + delay > deadline:
                    raise SDKError(f"could not reconnect for {self.reconnect_for:.0f} s: {exc}") from exc
                await asyncio.sleep(delay)
        self.reconnects += 1
        assert self.link is not None
        if race is None:
            return None
        try:  # the server sends `started` at once after welcome if the race goes on for us
            started = await self.link.push("started", race=race, timeout=2.0)
        except TimeoutError:
            return None
        log.info("%s: back in race %s at seq %s", self._who(), race, started.get("seq"))
        return started

    async def _follow(self, answer: Message) -> None:
        """A ``redirect``: the race lives on another node; say hello there (our session is this node's)."""
        log.info("%s: race %s is on %s", self._who(), answer.get("race"), answer.get("url"))
        await self.close()
        self.url = str(answer["url"])
        self.link = None
        await self._reconnect(None)

    def _who(self) -> str:
        return (self.player or {}).get("name") or self.name or "bot"

    # ----- racing ------------------------------------------------------------------

    async def race(
        self,
        *,
        variant: str = "terrace",
        goal: str | None = None,
        pool: str = "all",
        race: str | None = None,
        house: bool = False,
    ) -> RaceResult:
        """Play one race: ``race`` to join that race, else queue for ``variant``/``goal``/``pool``."""
        if self.link is None or self.link.closed:
            await self.connect()
        started = await self._until_started(variant, goal, pool, race, house)
        race_id = started["race"]
        view, legal, seq = started["view"], started["legal"], started.get("seq", 0)
        info = {"race": race_id, "variant": view.get("variant", variant), "goal": _goal_of(started, goal)}
        bot = self.factory()
        bot.start(dict(info))
        illegal = total_illegal = 0
        finish: str | None = started.get("finish")
        while legal and finish is None:
            choice = await _decide(bot, view, legal)
            if choice is None:
                await self._request("resign", race=race_id)
                break
            answer = await self._move(race_id, seq + 1, choice)
            if answer["type"] == "moved":
                seq, view, legal, illegal = answer["seq"], answer["view"], answer["legal"], 0
                finish = answer.get("finish")
            elif answer.get("code") == "illegal_move":
                illegal += 1
                total_illegal += 1
                log.warning("%s: illegal move %r: %s", self._who(), choice, answer.get("message"))
                if illegal >= MAX_ILLEGAL:
                    log.warning("%s: %d illegal moves in a row; resigning", self._who(), illegal)
                    await self._request("resign", race=race_id)
                    break
            elif answer.get("code") in ENDED:
                break  # the race ended for us meanwhile (time limit, grace)
            else:
                raise SDKError(f"move refused: {answer.get('code')}: {answer.get('message')}", answer)
        finished = await self._finished(race_id)
        result = self._result(finished, info, total_illegal)
        bot.finish(result.to_dict())
        return result

    async def _until_started(
        self, variant: str, goal: str | None, pool: str, race: str | None, house: bool
    ) -> Message:
        while True:
            if self._resumed is not None:  # the hello put us straight back into a race
                started, self._resumed = self._resumed, None
                return started
            assert self.link is not None
            try:
                if race is not None:
                    answer = await self.link.request("join", race=race)
                    if answer["type"] == "redirect":
                        await self._follow(answer)
                        continue
                    ok = answer["type"] == "joined" or answer.get("code") == "already_in_race"
                else:
                    fields = {"variant": variant, "pool": pool, "house": house}
                    if goal is not None:
                        fields["goal"] = goal
                    answer = await self.link.request("queue", **fields)
                    ok = answer["type"] == "queued"
                    if answer.get("code") == "already_in_race":  # our hello's `started` is on its way
                        return await self.link.push("started", timeout=5.0)
                if not ok:
                    raise SDKError(f"{'join' if race else 'queue'} refused: {answer.get('message')}", answer)
                return await self.link.push("started", race=race)
            except LinkClosed:
                self._resumed = await self._reconnect(race)

    async def _move(self, race: str, seq: int, move: str) -> Message:
        """Send one move; after a lost connection, resume and send it again with the same seq."""
        resumed = True
        while True:
            assert self.link is not None
            try:
                answer = await self.link.request("move", race=race, seq=seq, move=move)
                if answer["type"] != "redirect":
                    if not resumed and answer.get("code") == "no_race":
                        return {"type": "error", "code": "race_not_running"}  # it ended while we were away
                    return answer
                await self._follow(answer)
                await asyncio.sleep(0.2)  # the owner may be gone: its lease runs out within seconds
            except LinkClosed:
                # Sent again below: the server answers it once, whether or not it was applied (or
                # that the race is over, or that it lives on another node now).
                resumed = await self._reconnect(race) is not None

    async def _request(self, type_: str, **fields: Any) -> Message | None:
        assert self.link is not None
        try:
            answer = await self.link.request(type_, **fields)
            if answer["type"] == "redirect":
                await self._follow(answer)
                assert self.link is not None
                answer = await self.link.request(type_, **fields)
            return answer
        except LinkClosed:
            await self._reconnect(fields.get("race"))
            return None

    async def _finished(self, race: str) -> Message:
        """The race's ``finished`` push, or its record if the push was missed while away."""
        while True:
            assert self.link is not None
            try:
                return await self.link.push("finished", race=race, timeout=self.record_poll)
            except TimeoutError:
                answer = await self.link.request("record", race=race)
                if answer["type"] == "record":
                    record: Message = answer["race"]
                    return record
                if answer.get("code") != "not_finished":
                    raise SDKError(f"race {race} vanished: {answer.get('message')}", answer) from None
            except LinkClosed:
                await self._reconnect(None)

    def _result(self, finished: Message, info: dict[str, Any], illegal: int) -> RaceResult:
        me = (self.player or {}).get("id")
        rows = finished.get("results", [])
        row: Message = next((r for r in rows if r["player"]["id"] == me), {})
        return RaceResult(
            race=info["race"],
            variant=info["variant"],
            goal=finished.get("goal", info["goal"]),
            place=row.get("place"),
            finish=row.get("finish"),
            score=row.get("score", 0),
            terrace_left=row.get("terrace_left", 0),
            moves=row.get("moves", 0),
            time_ms=row.get("time"),
            players=len(rows),
            seed=finished.get("seed"),
            reconnects=self.reconnects,
            illegal=illegal,
        )


async def _decide(bot: Bot, view: dict[str, Any], legal: list[str]) -> str | None:
    choice = bot.choose(view, legal)
    if inspect.isawaitable(choice):
        choice = await choice
    return choice


def _goal_of(started: Message, asked: str | None) -> str:
    goal = started.get("goal") or asked
    if goal:
        return str(goal)
    return "clear" if started.get("view", {}).get("variant") == "louis" else "terrace"


async def play(
    factory: BotFactory,
    url: str,
    *,
    token: str | None = None,
    name: str | None = None,
    variant: str = "terrace",
    goal: str | None = None,
    pool: str = "all",
    race: str | None = None,
    races: int | None = 1,
    house: bool = False,
    subprotocol: str = MSGPACK,
    reconnect_for: float = 60.0,
    on_result: Callable[[RaceResult], None] | None = None,
) -> list[RaceResult]:
    """Race ``factory``'s bots ``races`` times (None: for ever) and return the results.

    ``token`` names a registered account; without one the bot plays as the guest
    ``name``. ``race`` joins that race (once); otherwise each race comes from the
    queue for ``variant``, ``goal`` and ``pool``.
    """
    racer = Racer(factory, url, token=token, name=name, subprotocol=subprotocol, reconnect_for=reconnect_for)
    results: list[RaceResult] = []
    try:
        await racer.connect()
        while races is None or len(results) < races:
            result = await racer.race(variant=variant, goal=goal, pool=pool, race=race, house=house)
            log.info("%s: %s", racer._who(), result)
            results.append(result)
            if on_result is not None:
                on_result(result)
            if race is not None:
                break  # a named race is played once
    finally:
        await racer.close()
    return results


def run(factory: BotFactory, url: str, **options: Any) -> list[RaceResult]:
    """:func:`play` from synchronous code: ``run(MyBot, "ws://host:8765/ws", name="me", races=5)``."""
    return asyncio.run(play(factory, url, **options))
