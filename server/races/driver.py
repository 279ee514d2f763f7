"""The asyncio edge of one race: applies the effects the race core returns.

The rules of a race live in :mod:`terrace.race` (sans-I/O). A :class:`RaceDriver` owns
one :class:`~terrace.race.Race` and does what its effects ask, in order: sends
answers and pushes (through the :class:`Hub`), keeps one timer for the race's next
:class:`~terrace.race.effects.Wake`, appends to the move log before a move or a
resignation is applied (through the :class:`~server.races.journal.Journal`), saves the meta
before the first view, and runs long lost searches in worker processes
(:class:`Searches`). One lock per seat keeps one player's moves in order while a log
append or a search is awaited.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Protocol

from server.races.journal import Journal
from server.store import NotOwner, StoreDown
from terrace.race import Race
from terrace.race.effects import (
    Broadcast,
    Changed,
    Effect,
    Freed,
    Log,
    LogEntry,
    Message,
    Over,
    Reply,
    SaveMeta,
    Search,
    Send,
    Wake,
)
from terrace.rules.game import Found, Game
from terrace.vocab import Quit
from terrace.wire.conversation import backoff
from terrace.wire.messages import Record, Summary

log = logging.getLogger("terrace.server")

_EPOCH_MS = time.time() * 1000 - time.monotonic() * 1000


def now_ms() -> int:
    """The server's clock for races: Unix milliseconds that never step back (monotonic from start)."""
    return int(_EPOCH_MS + time.monotonic() * 1000)


class Hub(Protocol):
    """What a race driver needs from the rest of the server."""

    def to_player(self, player_id: str, msg: Message) -> None: ...
    def to_watchers(self, race: Race, msg: Message, players_only: bool) -> None: ...
    def race_changed(self, race: Race, summary: Summary, players_only: bool) -> None: ...
    def freed(self, race: Race, player_id: str) -> None: ...
    def race_over(self, driver: RaceDriver, record: Record | None) -> None: ...


class Searches:
    """Long lost searches (up to ~0.5 s of pure Python) in worker processes, so they hold neither the
    event loop nor its GIL; one search serves every seat waiting on the same position."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self._running: dict[str, asyncio.Future[Found]] = {}  # position key -> search under way

    async def status(self, game: Game, key: str) -> Found:
        """The status of ``game`` (a copy) and the path its search found (``Game.found``)."""
        search = self._running.get(key)
        if search is None:
            search = self._running[key] = asyncio.ensure_future(self._run(game))
            search.add_done_callback(lambda _: self._running.pop(key, None))
        return await asyncio.shield(search)

    async def _run(self, game: Game) -> Found:
        """In the executor; here (blocking) if the executor fails, because the move is already
        applied and must get its answer."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, _status_of, game)
        except Exception:
            log.exception("lost search failed in the executor; searching on the event loop")
            return game.found()


def _status_of(game: Game) -> Found:
    return game.found()


class RaceDriver:
    def __init__(
        self,
        race: Race,
        hub: Hub,
        searches: Searches,
        journal: Journal | None = None,
        on_move: Callable[[float], None] | None = None,
    ) -> None:
        self.race = race
        self.hub = hub
        self.searches = searches
        self.journal = journal if race.durable else None
        self.on_move = on_move  # metrics: seconds spent on an accepted move
        self.move_seconds: list[float] = []  # a private race's, until it is over
        self.later_messages: dict[str, int] = {}  # a private race's requests by type, until then
        self.later_errors: dict[str, int] = {}  # and its refused moves by code
        self.logged = False  # the meta is saved: the log must be dropped once the race is over
        self._locks: dict[str, asyncio.Lock] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # meta saves and log appends nobody waits for
        self._waiting_due = False  # the race changed before it started: keep it in the store again
        self._waiting_writer: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        return self.race.id

    # ----- requests -----------------------------------------------------------------

    async def move(self, player_id: str, seq: int, text: str) -> list[Effect]:
        """Check, log, play and settle one move; its effects (the :class:`Reply` first) for
        :meth:`apply`. Raises ProtocolError, or StoreDown with nothing changed."""
        async with self._lock(player_id):
            t0 = time.perf_counter()
            checked = self.race.check_move(player_id, seq, text, now_ms())
            if isinstance(checked, Reply):  # a resent seq: its first answer, nothing applied
                return [checked]
            if self.journal is not None:
                await self.journal.append(self.id, checked)
            effects = await self._settle(self.race.apply_move(checked, now_ms()))
            if self.race.options.private:  # told once it is over: a live count would time its moves
                self.move_seconds.append(time.perf_counter() - t0)
            elif self.on_move is not None:
                self.on_move(time.perf_counter() - t0)
            return effects

    async def resign(self, player_id: str, finish: Quit = "resigned") -> list[Effect]:
        """Give up (``resigned``) or leave (``left``): logged, then applied."""
        async with self._lock(player_id):  # after a move under way, in the log as in the game
            entry = self.race.check_resign(player_id, now_ms(), finish)
            if self.journal is not None:
                await self.journal.append(self.id, entry)
            return self.race.apply_resign(entry, now_ms())

    async def _settle(self, effects: list[Effect]) -> list[Effect]:
        """``effects`` with every :class:`Search` run and replaced by what settling it caused."""
        out: list[Effect] = []
        for effect in effects:
            if isinstance(effect, Search):
                status, path = await self.searches.status(effect.game, effect.key)
                out += await self._settle(self.race.settled(effect.player, status, now_ms(), path))
            else:
                out.append(effect)
        return out

    def _lock(self, player_id: str) -> asyncio.Lock:
        lock = self._locks.get(player_id)
        if lock is None:  # (setdefault would build a lock on every move)
            lock = self._locks[player_id] = asyncio.Lock()
        return lock

    # ----- effects ------------------------------------------------------------------

    def apply(self, effects: list[Effect], reply: Callable[[Reply], None] | None = None) -> None:
        """Do what ``effects`` say, in order. ``reply`` sends the answer to the request being
        handled; it writes at once, so the answer goes out before anything after it."""
        for effect in effects:
            if isinstance(effect, Reply):
                if reply is not None:
                    reply(effect)
            elif isinstance(effect, Send):
                self.hub.to_player(effect.player, effect.message)
            elif isinstance(effect, Broadcast):
                self.hub.to_watchers(self.race, effect.message, effect.players_only)
            elif isinstance(effect, Changed):
                self.hub.race_changed(self.race, effect.summary, effect.players_only)
                if self.journal is not None and self.race.state in ("open", "countdown"):
                    self._keep_waiting()
            elif isinstance(effect, Freed):
                self.hub.freed(self.race, effect.player)
            elif isinstance(effect, Wake):
                self._arm(effect.at)
            elif isinstance(effect, Log):
                self._spawn(self._log_quietly(effect.entry))
            elif isinstance(effect, SaveMeta):
                self._spawn(self._save_meta(effect.meta))
            elif isinstance(effect, Search):  # from tick or settle outside a request
                self._spawn(self._search(effect))
            elif isinstance(effect, Over):
                self._arm(None)
                self.hub.race_over(self, effect.record)

    def _arm(self, at: int | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if at is not None:
            delay = max(0.0, (at - now_ms()) / 1000)
            self._timer = asyncio.get_running_loop().call_later(delay, self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = now_ms()
        self.apply(self.race.tick(now))
        if self._timer is None:
            # Woken a little early (uvloop's timers run on a clock it reads once a loop turn,
            # to the millisecond), nothing was due yet, and the core wakes us only when its due
            # time changes: without this the wake would be lost, and a grace period never end.
            due = self.race.next_wake()
            if due is not None and due > now:
                self._arm(due)

    def _spawn(self, work: object) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _search(self, effect: Search) -> None:
        status, path = await self.searches.status(effect.game, effect.key)
        self.apply(await self._settle(self.race.settled(effect.player, status, now_ms(), path)))

    async def _log_quietly(self, entry: LogEntry) -> None:
        assert self.journal is not None
        try:
            await self.journal.append(self.id, entry)
        except (StoreDown, NotOwner) as exc:
            log.warning("race %s: %s not logged (%s)", self.id, entry, exc)

    async def _save_meta(self, meta: dict[str, Any]) -> None:
        """Save the meta, waiting while the store is down, then let the race deal."""
        assert self.journal is not None
        for delay in backoff():
            if self.race.state != "countdown":
                break
            try:
                await self.journal.save_meta(self.id, meta)
                self.logged = True
                break
            except StoreDown as exc:
                log.warning(
                    "race %s waits for the store to start (%s); retrying in %.1f s", self.id, exc, delay
                )
                await asyncio.sleep(delay)
        if self.race.state == "cancelled" and self.logged:  # everyone left while it was on its way
            await self.journal.drop(self.id)
            return
        self.apply(self.race.meta_saved(meta, now_ms()))

    def _keep_waiting(self) -> None:
        """Keep the race in the store as it is now, so it outlives this node (one write at a time,
        the latest state each time; nothing once it has started or is over)."""
        self._waiting_due = True
        if self._waiting_writer is None or self._waiting_writer.done():
            self._waiting_writer = asyncio.get_running_loop().create_task(self._write_waiting())
            self._tasks.add(self._waiting_writer)
            self._waiting_writer.add_done_callback(self._tasks.discard)

    async def _write_waiting(self) -> None:
        assert self.journal is not None
        delays = backoff()
        while self._waiting_due and self.race.state in ("open", "countdown"):
            self._waiting_due = False
            try:
                await self.journal.save_waiting(self.id, self.race.meta())
                self.logged = True  # live in the store: dropped once the race is over
            except StoreDown as exc:
                self._waiting_due = True
                delay = next(delays)
                log.warning(
                    "race %s: waiting race not kept yet (%s); retrying in %.1f s", self.id, exc, delay
                )
                await asyncio.sleep(delay)

    async def forget(self) -> None:
        """A race cancelled before it started: forget what the store keeps of it, once the last
        write of it is done."""
        if self._waiting_writer is not None:
            await asyncio.wait([self._waiting_writer])
        if self.logged and self.journal is not None:
            await self.journal.drop(self.id)

    async def flushed(self) -> None:
        """Wait for meta saves and log appends nobody waits for (before the log is dropped)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks))

    def stop(self) -> None:
        """Forget the race here (another node owns it now): no timer, no more effects."""
        self._arm(None)
        for task in self._tasks:
            task.cancel()
