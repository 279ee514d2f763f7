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

Kept as one module (about 500 lines): :class:`Racer` is one conversation with the server (queue,
join or arena; moves; the end of a race), which reads best whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from link import HelloRefused, News, Offline, Session
from terrace.wire.conversation import Message
from terrace.wire.messages import ArenaOver as ArenaOverPush
from terrace.wire.messages import (
    DailyPlaying,
    Error,
    Finished,
    Moved,
    Queued,
    Record,
    RecordAnswer,
    Result,
    Started,
    read,
)
from terrace.wire.protocol import MSGPACK
from terrace.wire.session import RECONNECT_FOR

from .bot import Bot, BotFactory

log = logging.getLogger("terrace.bot")

STORE_RETRY = 0.25  # seconds between sends of a move the server answered store_down
STORE_WAIT = 60.0  # how long a move is sent again while the store is away
MAX_ILLEGAL = 3  # illegal moves in a row before the SDK resigns for a confused bot
RECORD_POLL = 5.0  # seconds between record fetches while waiting for a missed `finished`
# Move refusals that mean the race is over for us (time limit, grace): wait for `finished`.
# `no_race`: a race we were in that was archived while we were away.
QUEUE_NOTICE = 5.0  # seconds in the queue before the bot's author is told it still waits
ENDED = frozenset({"player_finished", "race_not_running", "not_in_race", "no_race"})


class ArenaOver(Exception):
    """The arena the bot raced in has ended: no more races come from it."""


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
        reconnect_for: float = RECONNECT_FOR,
        client: str | None = None,
        house_key: str | None = None,
    ) -> None:
        self.factory = factory
        self.link = Session(
            url,
            token=token,
            name=name,
            client=client,  # this install's id (8-64 characters), if the bot keeps one
            house_key=house_key,  # the operator's house: its names begin with "house"
            subprotocol=subprotocol,
            reconnect_for=reconnect_for,
            kind="bot",  # a guest bot is listed as a bot, not a person
            on_push=self._heard,
            on_news=self._news,
            queue_pushes=True,
        )
        self.record_poll = RECORD_POLL
        self._over: set[str] = set()  # races played to the end: a late `started` of theirs is stale
        self._arena: str | None = None  # the arena joined: the server pairs us race after race
        self._arenas_over: set[str] = set()  # heard as pushes arrive (a wait may pass them over)
        # every `started` heard, by race: one that came while we still finished the last race (an
        # arena pairing us again; on several nodes, a seat found for us meanwhile) is not lost
        self._started: dict[str, Started] = {}

    @property
    def url(self) -> str:
        return self.link.url

    @property
    def player(self) -> Message:
        return self.link.player

    @property
    def reconnects(self) -> int:
        return self.link.reconnects

    # ----- connection --------------------------------------------------------------

    async def connect(self) -> Message:
        """Open a connection and say hello; returns ``welcome``. Raises SDKError if refused."""
        try:
            return await self.link.connect()
        except HelloRefused as exc:
            raise SDKError(f"hello refused: {exc.code}: {exc}", exc.answer) from exc

    async def close(self) -> None:
        await self.link.close()

    def _heard(self, msg: Message) -> None:
        if msg.get("type") == "started":
            started = read(msg, Started)
            self._started[started["race"]] = started
            if started["resumed"]:
                log.info("%s: back in race %s at seq %s", self._who(), started["race"], started["seq"])
        elif msg.get("type") == "arena_over":
            self._arenas_over.add(read(msg, ArenaOverPush)["arena"])

    def _news(self, news: News) -> None:
        if news.kind == "lost":
            log.warning("%s: %s; reconnecting (attempt %d)", self._who(), news.reason, news.attempt)
        elif news.kind == "gone" and news.reason != "closed":
            log.warning("%s: gave up on the server: %s", self._who(), news.reason)

    def _who(self) -> str:
        return str(self.player.get("name") or self.link.policy.name or "bot")

    # ----- racing ------------------------------------------------------------------

    async def race(
        self,
        *,
        variant: str = "terrace",
        goal: str | None = None,
        pool: str = "all",
        race: str | None = None,
        house: bool = False,
        deals: str = "any",
        daily: bool = False,
        practice: bool = False,
        arena: str | None = None,
    ) -> RaceResult:
        """Play one race: ``race`` to join that race; ``daily`` for today's daily deal of ``variant``
        (the account's rated attempt, or with ``practice`` a practice game after it); ``arena`` for
        the arena's next race (joined the first time; :class:`ArenaOver` once it has ended); else
        queue for ``variant``/``goal``/``pool`` (``deals="winnable"``: only with players who asked
        for a deal the server proved winnable)."""
        if self.link.conn is None or self.link.gone is not None:
            await self.connect()
        if daily:
            started = await self._daily_started(variant, practice)
        elif arena is not None:
            started = await self._arena_race(arena)
        else:
            started = await self._until_started(variant, goal, pool, race, house, deals)
        race_id = started["race"]
        view, legal, seq = started["view"], started["legal"], started["seq"]
        info = {"race": race_id, "variant": started["variant"], "goal": started["goal"]}
        bot = self.factory()
        bot.start(dict(info))
        illegal = total_illegal = 0
        finish: str | None = None
        while legal and finish is None:
            try:
                choice = await _decide(bot, view, legal)
            except Exception:
                # the bot's own failure: give its seat up before the error goes to its author,
                # so the others are not left waiting on a player who will never move
                with contextlib.suppress(Exception):
                    await self._request("resign", race=race_id)
                raise
            if choice is None:
                await self._request("resign", race=race_id)
                break
            answer = await self._move(race_id, seq + 1, choice)
            if answer["type"] == "moved":
                moved = read(answer, Moved)
                seq, view, legal, illegal = moved["seq"], moved.get("view", view), moved["legal"], 0
                finish = moved.get("finish")
                continue
            error = read(answer, Error)
            if error["code"] == "illegal_move":
                illegal += 1
                total_illegal += 1
                log.warning("%s: illegal move %r: %s", self._who(), choice, error["message"])
                if illegal >= MAX_ILLEGAL:
                    log.warning("%s: %d illegal moves in a row; resigning", self._who(), illegal)
                    await self._request("resign", race=race_id)
                    break
            elif error["code"] in ENDED:
                break  # the race ended for us meanwhile (time limit, grace, archived while away)
            else:
                raise SDKError(f"move refused: {error['code']}: {error['message']}", answer)
        finished = await self._finished(race_id)
        self._over.add(race_id)
        result = self._result(finished, info, total_illegal)
        bot.finish(result.to_dict())
        return result

    async def _until_started(
        self, variant: str, goal: str | None, pool: str, race: str | None, house: bool, deals: str = "any"
    ) -> Started:
        if race is not None:
            answer = await self._request("join", race=race)
            ok = answer["type"] == "joined" or answer.get("code") == "already_in_race"
        else:
            fields = {"variant": variant, "pool": pool, "house": house}
            if goal is not None:
                fields["goal"] = goal
            if deals != "any":
                fields["deals"] = deals
            answer = await self._request("queue", **fields)
            # already in a race: our hello put us back into it, and its `started` is on its way
            ok = answer["type"] == "queued" or answer.get("code") == "already_in_race"
        if not ok:
            raise SDKError(f"{'join' if race else 'queue'} refused: {answer.get('message')}", answer)
        queued_at = self.reconnects
        waiting_since, told = time.monotonic(), race is not None
        while True:
            heard = self._heard_started()
            if heard is not None and race in (None, heard["race"]):
                return heard
            try:
                started = await self._started_of(race, timeout=1.0)
            except TimeoutError:
                if not told and not house and time.monotonic() - waiting_since > QUEUE_NOTICE:
                    # (house players are there to wait: nothing to tell their operator)
                    told = True  # once a race: a bot left waiting silently looks hung
                    others = read(answer, Queued)["position"] - 1 if answer["type"] == "queued" else 0
                    log.warning("%s: %s", self._who(), _still_queued(variant, deals, QUEUE_NOTICE, others))
                if race is None and self.reconnects != queued_at:
                    # back after a drop: a queue on a restarted server (or another node) forgot us
                    queued_at = self.reconnects
                    again = await self._request("queue", **fields)
                    if again["type"] == "error" and again.get("code") not in (
                        "already_queued",
                        "already_in_race",
                    ):
                        raise SDKError(f"queue refused: {again.get('message')}", again) from None
                continue
            if started["race"] not in self._over:
                return started

    async def _daily_started(self, variant: str, practice: bool) -> Started:
        answer = await self._request("daily_play", variant=variant, practice=practice)
        if answer["type"] == "daily_playing":
            race: str | None = read(answer, DailyPlaying)["race"]
        elif answer.get("code") == "already_in_race":  # our hello put us back into the attempt
            race = None
        else:
            raise SDKError(f"daily_play refused: {answer.get('code')}: {answer.get('message')}", answer)
        while True:
            started = await self._started_of(race)
            if started["race"] not in self._over:
                return started

    async def _arena_race(self, arena: str) -> Started:
        """Join ``arena`` (once), then wait for the race the server pairs us into."""
        if self._arena != arena:
            answer = await self._request("arena_join", arena=arena)
            if answer["type"] != "arena_joined" and answer.get("code") != "already_in_arena":
                raise SDKError(f"arena_join refused: {answer.get('message')}", answer)
            self._arena = arena
        while True:
            if (heard := self._heard_started()) is not None:
                return heard
            if arena in self._arenas_over:
                raise ArenaOver(arena)
            try:
                await self._wait("started", "arena_over", timeout=1.0)
            except TimeoutError:
                continue  # look again: an `arena_over` passed over by another wait is in the set

    def _heard_started(self) -> Started | None:
        """The `started` of a race we have not played yet, if one was heard (the newest)."""
        for race_id in [r for r in self._started if r in self._over]:
            del self._started[race_id]
        return next(reversed(self._started.values()), None)

    async def _move(self, race: str, seq: int, move: str) -> Message:
        """A move's answer; sent again with its ``seq`` while the server's store is away (a Redis
        restart or failover), for up to ``STORE_WAIT`` seconds."""
        deadline = time.monotonic() + STORE_WAIT
        while True:
            answer = await self._request("move", race=race, seq=seq, move=move)
            if answer.get("code") != "store_down" or time.monotonic() > deadline:
                return answer
            await asyncio.sleep(STORE_RETRY)

    async def _request(self, type_: str, **fields: Any) -> Message:
        """A request's answer; across drops the session sends it again (a move keeps its seq)."""
        try:
            return await self.link.request(type_, **fields)
        except Offline as exc:
            raise SDKError(f"lost the server: {exc}") from exc

    async def _wait(self, *types: str, race: str | None = None, timeout: float | None = None) -> Message:
        try:
            return await self.link.push(*types, race=race, timeout=timeout)
        except Offline as exc:
            raise SDKError(f"lost the server: {exc}") from exc

    async def _started_of(self, race: str | None = None, timeout: float | None = None) -> Started:
        return read(await self._wait("started", race=race, timeout=timeout), Started)

    async def _finished(self, race: str) -> Finished | Record:
        """The race's ``finished`` push, or its record if the push was missed while away."""
        while True:
            try:
                return read(await self._wait("finished", race=race, timeout=self.record_poll), Finished)
            except TimeoutError:
                answer = await self._request("record", race=race)
                if answer["type"] == "record":
                    return read(answer, RecordAnswer)["race"]
                error = read(answer, Error)
                if error["code"] != "not_finished":
                    raise SDKError(f"race {race} vanished: {error['message']}", answer) from None

    def _result(self, finished: Finished | Record, info: dict[str, Any], illegal: int) -> RaceResult:
        me = (self.player or {}).get("id")
        rows: list[Result] = list(finished["results"])
        row: Result | dict[str, Any] = next((r for r in rows if r["player"]["id"] == me), {})
        return RaceResult(
            race=info["race"],
            variant=info["variant"],
            goal=finished["goal"],
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
    if choice is not None and not isinstance(choice, str):
        raise TypeError(
            f"{type(bot).__name__}.choose returned {choice!r}: a move is a string such as "
            f"{legal[0]!r} (one of the legal moves), or None to resign"
        )
    return choice


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
    deals: str = "any",
    daily: bool = False,
    practice: bool = False,
    arena: str | None = None,
    subprotocol: str = MSGPACK,
    reconnect_for: float = RECONNECT_FOR,
    on_result: Callable[[RaceResult], None] | None = None,
    client: str | None = None,
) -> list[RaceResult]:
    """Race ``factory``'s bots ``races`` times (None: for ever) and return the results.

    ``token`` names a registered account; without one the bot plays as the guest
    ``name``. ``race`` joins that race (once); ``daily`` plays today's daily deal of
    ``variant`` once: the account's one rated attempt of the day (an ``SDKError`` with
    code ``daily_attempted`` once it is used), or with ``practice`` an unrated game after
    it. ``arena`` joins that arena and races until it ends (or ``races`` are played).
    Otherwise each race comes from the queue for ``variant``, ``goal`` and ``pool``;
    ``deals="winnable"`` queues only with players who asked for a deal the server's solver
    proved winnable. ``client`` is this install's id (8 to 64 characters, the same on every
    run), sent with every hello.
    """
    racer = Racer(
        factory,
        url,
        token=token,
        name=name,
        subprotocol=subprotocol,
        reconnect_for=reconnect_for,
        client=client,
    )
    results: list[RaceResult] = []
    try:
        await racer.connect()
        while races is None or len(results) < races:
            try:
                result = await racer.race(
                    variant=variant,
                    goal=goal,
                    pool=pool,
                    race=race,
                    house=house,
                    deals=deals,
                    daily=daily,
                    practice=practice,
                    arena=arena,
                )
            except ArenaOver:
                break
            log.info("%s: %s", racer._who(), result)
            results.append(result)
            if on_result is not None:
                on_result(result)
            if race is not None or daily:
                break  # a named race, or the daily deal, is played once
    finally:
        await racer.close()
    return results


def _still_queued(variant: str, deals: str, seconds: float, others: int) -> str:
    """Why a bot may still wait, from what it knows: how many waited when it queued."""
    kind = " for winnable deals" if deals == "winnable" else ""
    head = f"still waiting in the {variant} queue{kind} after {seconds:.0f} s"
    if deals == "winnable":
        return (
            f"{head}: only players who asked for winnable deals are matched, and house bots wait in "
            "the any-deal queues only"
        )
    when = (
        "nobody else was waiting when it queued"
        if others == 0
        else f"{others} other{'s were' if others > 1 else ' was'} waiting when it queued"
    )
    return (
        f"{head}; {when}. A race forms with 4 waiting, or with 2 or more once the first has waited "
        "the server's queue_wait (10 s by default); registered accounts from one address or install "
        "are never seated together (same_address)"
    )


def run(factory: BotFactory, url: str, **options: Any) -> list[RaceResult]:
    """:func:`play` from synchronous code: ``run(MyBot, "ws://host:8765/ws", name="me", races=5)``."""
    return asyncio.run(play(factory, url, **options))
