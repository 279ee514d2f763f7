"""One race: its seats, its secret deal, its clock, moves, finishes, places and record.

A race goes ``open`` -> ``countdown`` -> ``running`` -> ``finished`` (or
``cancelled`` when everyone leaves before the start). Every seated player gets
a game of the same secret 32-byte seed; only the commitment is published until
the race ends. The race talks to the world through an :class:`Outbox`.

Durability (with a :class:`~server.store.Store`): when the countdown ends the race's
meta (rules, seed, start time, players) is saved before any view goes out, and every
accepted move or resignation is appended to the race's log before it is applied and
answered. :meth:`Race.restore` rebuilds a race from them after a restart; see its
docstring for what comes back and how.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from terrace import Game, IllegalMove, new_game
from terrace.conversation import backoff
from terrace.deal import commitment
from terrace.errors import ProtocolError

from .accounts import Player, hash_token
from .store import Store, StoreDown

Message = dict[str, Any]

log = logging.getLogger("terrace.server")

# Answers kept per player for resent seqs: enough for a client that pipelines a few moves.
KEEP_ANSWERS = 8

# Why a player stopped racing.
GOAL, STUCK, RESIGNED, DISCONNECTED, TIME = "goal", "stuck", "resigned", "disconnected", "time"


class Outbox(Protocol):
    """How a race reaches people: its players, and everyone watching it."""

    def to_player(self, player: Player, msg: Message) -> None: ...
    def to_watchers(self, race: Race, msg: Message) -> None: ...
    def race_changed(self, race: Race) -> None: ...
    def race_over(self, race: Race) -> None: ...


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(eq=False)
class Seat:
    player: Player
    game: Game | None = None
    seq: int = 0  # last applied seq
    # The last few answers by seq, with the text that asked for them, for resends.
    answers: OrderedDict[int, tuple[str, Message]] = field(default_factory=OrderedDict)
    finish: str | None = None
    finish_ms: int | None = None  # race time when the player finished
    last_home_ms: int | None = None  # race time of the last card put on a foundation
    connected: bool = True
    finishing: tuple[str, int] | None = None  # a finish the last answer announced, until concluded
    grace: asyncio.TimerHandle | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def score(self) -> int:
        return self.game.score if self.game else 0

    @property
    def terrace_left(self) -> int:
        return self.game.terrace_left if self.game else 0

    @property
    def move_count(self) -> int:
        return len(self.game.moves) if self.game else 0


@dataclass
class RaceRules:
    variant: str
    goal: str
    seats: int
    time_limit: int
    entry: str = "all"
    start: str = "manual"

    def admits(self, player: Player) -> bool:
        return admits(self.entry, player)


def admits(entry: str, player: Player) -> bool:
    """Whether ``entry`` (``all``, ``humans``, ``bots``: a race's entry or a queue's pool) lets ``player`` in."""
    return entry == "all" or (entry == "humans") == (player.kind == "human")


class Race:
    def __init__(
        self,
        race_id: str,
        rules: RaceRules,
        outbox: Outbox,
        executor: Executor,
        *,
        creator: Player | None,
        countdown: float,
        grace: float,
        standings_interval: float = 0.1,
        on_move: Callable[[float], None] | None = None,
        store: Store | None = None,
    ) -> None:
        self.id = race_id
        self.store = store  # None: no log, nothing survives a restart
        self.rules = rules
        self.outbox = outbox
        self.executor = executor
        self.creator = creator
        self.countdown = countdown
        self.grace = grace
        self.standings_interval = standings_interval
        self._standings_due: asyncio.TimerHandle | None = None
        self.on_move = on_move  # metrics hook: seconds spent handling an accepted move
        self.state = "open"
        self.seats: dict[str, Seat] = {}  # player id -> seat, in joining order
        self.created_ms = now_ms()
        self.starts_ms: int | None = None
        self.started_ms: int | None = None
        self.ended_ms: int | None = None
        self._t0 = 0.0  # loop time at the start
        self._seed: bytes | None = None
        self.commitment: str | None = None
        self._timers: list[asyncio.TimerHandle] = []
        self._searches: dict[str, asyncio.Future[str]] = {}  # position key -> search under way
        self.results: list[Message] = []
        self.logged = False  # the meta is in the store: the log must be dropped when the race is over
        self._starting: asyncio.Task[None] | None = None
        self._writes: set[asyncio.Task[None]] = set()  # log appends nobody waits for

    # ----- lobby side ---------------------------------------------------------------

    def summary(self) -> Message:
        """The public description of the race (lobby lists, ``race`` pushes)."""
        r = self.rules
        out: Message = {
            "id": self.id,
            "variant": r.variant,
            "goal": r.goal,
            "seats": r.seats,
            "time_limit": r.time_limit,
            "entry": r.entry,
            "start": r.start,
            "state": self.state,
            "creator": self.creator.public() if self.creator else None,
            "players": [s.player.public() for s in self.seats.values()],
            "created_at": self.created_ms,
        }
        if self.starts_ms is not None:
            out["starts_at"] = self.starts_ms
        if self.commitment is not None:
            out["commitment"] = self.commitment
        return out

    def seat(self, player: Player) -> Seat:
        if self.state != "open":
            raise ProtocolError("race_started", race=self.id)
        if len(self.seats) >= self.rules.seats:
            raise ProtocolError("race_full", race=self.id)
        if not self.rules.admits(player):
            raise ProtocolError("entry_refused", race=self.id, entry=self.rules.entry)
        seat = self.seats[player.id] = Seat(player)
        player.race = self.id
        self.outbox.race_changed(self)
        if self.rules.start == "full" and len(self.seats) == self.rules.seats:
            self.begin()
        return seat

    def unseat(self, player: Player) -> None:
        """Leave before the first view (once it is dealt, leaving is resigning: see Lobby.leave)."""
        seat = self.seats.pop(player.id, None)
        if seat is None:
            raise ProtocolError("not_in_race", race=self.id)
        player.race = None
        if self.creator is player and self.seats:
            self.creator = next(iter(self.seats.values())).player
        if not self.seats:
            self.state = "cancelled"
            self._cancel_timers()
            self.outbox.race_changed(self)
            self.outbox.race_over(self)
            return
        self.outbox.race_changed(self)

    def begin(self) -> None:
        """Start the countdown; the first view goes out when it ends."""
        if self.state != "open":
            raise ProtocolError("race_started", race=self.id)
        loop = asyncio.get_running_loop()
        self.state = "countdown"
        self.starts_ms = now_ms() + int(self.countdown * 1000)
        self._timers.append(loop.call_later(self.countdown, self._go))
        self.outbox.race_changed(self)

    # ----- the race itself ----------------------------------------------------------

    def _go(self) -> None:
        if self.state == "countdown" and self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._deal())

    async def _deal(self) -> None:
        """Deal, save the meta (waiting while the store is down), then send the first views."""
        loop = asyncio.get_running_loop()
        self._seed = secrets.token_bytes(32)
        self.commitment = commitment(self._seed)
        delays = backoff()
        while True:
            if self.state != "countdown":
                return
            if not self.seats:
                self.state = "cancelled"
                self.outbox.race_changed(self)
                self.outbox.race_over(self)
                return
            self._t0, self.started_ms = loop.time(), now_ms()
            if self.store is None:
                break
            meta = self.meta()
            try:
                await self.store.save_race_meta(self.id, meta)
            except StoreDown as exc:
                delay = next(delays)
                log.warning(
                    "race %s waits for the store to start (%s); retrying in %.1f s", self.id, exc, delay
                )
                await asyncio.sleep(delay)
                continue
            if self.state == "countdown" and [p["id"] for p in meta["players"]] == list(self.seats):
                self.logged = True
                break
            if self.state != "countdown":  # everyone left while the meta was on its way
                await self._drop_log()
                return
            # someone left while the meta was on its way: save it again without them
        self._deal_games()
        self.state = "running"
        self._timers.append(loop.call_later(self.rules.time_limit, self._time_up))
        first = next(iter(self.seats.values())).game
        assert first is not None
        view, legal = first.view(), sorted(first.legal_moves())  # the same for every seat
        for seat in self.seats.values():
            self.outbox.to_player(seat.player, self._started(view, legal, seq=0))
            if not seat.connected:
                self._start_grace(seat)
        self.outbox.race_changed(self)
        self._push_standings()

    def _deal_games(self) -> None:
        assert self._seed is not None
        first_game: Game | None = None
        for seat in self.seats.values():
            seat.game = new_game(self.rules.variant, self._seed)
            if first_game is None:
                first_game = seat.game
            else:  # seats meet the same positions (identical bots, above all): search each once
                seat.game.share_searches(first_game)

    async def _drop_log(self) -> None:
        """Forget the meta of a race cancelled while it was being saved (retried while the store is down)."""
        assert self.store is not None
        for delay in backoff():
            try:
                await self.store.log_drop(self.id)
                return
            except StoreDown as exc:
                log.warning("race %s: meta not dropped yet (%s)", self.id, exc)
                await asyncio.sleep(delay)

    def meta(self) -> Message:
        """What a restarted server needs to rebuild the race (saved as the race starts)."""
        assert self._seed is not None and self.started_ms is not None
        r = self.rules
        return {
            "v": 1,
            "rules": dataclasses.asdict(r),
            "seed": self._seed.hex(),  # the store is trusted with the secret
            "commitment": self.commitment,
            "created_at": self.created_ms,
            "starts_at": self.starts_ms,
            "started_at": self.started_ms,
            "creator": self.creator.public() if self.creator else None,
            # session hashes, not sessions: a player proves who they are with the session itself
            "players": [
                {**s.player.public(), "session_hash": hash_token(s.player.session)}
                for s in self.seats.values()
            ],
        }

    # ----- after a restart ----------------------------------------------------------

    async def restore(self, meta: Message, entries: list[Message], players: list[Player]) -> None:
        """Rebuild the running race of ``meta`` (see :meth:`meta`) and its log after a restart.

        ``players`` are the seated players, in meta order. Each player's moves are replayed
        in seq order from the deal; when one seq was logged twice the last entry wins (an
        append that answered "store down" may have reached the log all the same, and the
        player then sent that seq again), and a finish logged before one of the player's
        moves was never applied. Seqs, scores, last-home times, finishes and the answers to
        the last KEEP_ANSWERS moves (for resends) come back as they were. Everyone starts
        away. Call :meth:`go_on` once the race is in the lobby.
        """
        self.state = "running"
        self._seed = bytes.fromhex(meta["seed"])
        self.commitment = meta["commitment"]
        self.created_ms, self.starts_ms = meta["created_at"], meta["starts_at"]
        self.started_ms = started = int(meta["started_at"])
        # The clock is the wall clock's: race time keeps running while the server is down.
        self._t0 = asyncio.get_running_loop().time() - (now_ms() - started) / 1000
        self.logged = True
        for player in players:
            self.seats[player.id] = Seat(player, connected=False)
        self._deal_games()
        moves: dict[str, dict[int, Message]] = {pid: {} for pid in self.seats}
        finishes: dict[str, Message] = {}
        for entry in entries:
            pid = entry.get("p")
            if pid not in self.seats or entry["t"] >= self.rules.time_limit * 1000:
                continue  # past the limit: the clock ran out while it was logged, never applied
            if "f" in entry:
                finishes[pid] = entry
            else:
                moves[pid][entry["seq"]] = entry
                finishes.pop(pid, None)
        for seat in self.seats.values():
            await self._replay(seat, moves[seat.player.id])
            finish = finishes.get(seat.player.id)
            if seat.finish is None and finish is not None:
                seat.finish, seat.finish_ms = finish["f"], finish["t"]
            seat.player.race = self.id if seat.finish is None else None

    async def _replay(self, seat: Seat, moves: dict[int, Message]) -> None:
        game = seat.game
        assert game is not None
        keep_from = max(moves, default=0) - KEEP_ANSWERS
        while seat.seq + 1 in moves:
            entry = moves[seat.seq + 1]
            try:
                game.play(entry["m"])
            except IllegalMove:
                log.error(
                    "race %s: %s's logged move %s is illegal; replay stops", self.id, seat.player.id, entry
                )
                break
            seat.seq += 1
            if game.quick_status() is None:
                # the player moved on from every position but the last, so it was still playing
                game.settle(await self._search(game) if seat.seq + 1 not in moves else "playing")
            if _went_home(game):
                seat.last_home_ms = entry["t"]
            if seat.seq > keep_from:
                self._answer(seat, str(entry.get("x") or entry["m"]))
            if seat.seq + 1 not in moves:
                finish = self._reached(seat)
                if finish is not None:
                    seat.finish, seat.finish_ms = finish, entry["t"]

    def go_on(self) -> None:
        """Run a restored race on: end it now if everyone finished or its time ran out while the
        server was down, else set its clock and give every unfinished player a fresh grace
        period to come back (their connections died with the old server)."""
        assert self.started_ms is not None
        left = self.rules.time_limit - (now_ms() - self.started_ms) / 1000
        if left <= 0:
            self._time_up()
        elif all(s.finish is not None for s in self.seats.values()):
            self._end()
        else:
            self._timers.append(asyncio.get_running_loop().call_later(left, self._time_up))
            for seat in self.seats.values():
                if seat.finish is None:
                    self._start_grace(seat)
            self.outbox.race_changed(self)

    async def flushed(self) -> None:
        """Wait for log appends nobody waits for (before the log is dropped)."""
        if self._writes:
            await asyncio.wait(set(self._writes))

    def _started(self, view: Message, legal: list[str], seq: int, resumed: bool = False) -> Message:
        return {
            "type": "started",
            "race": self.id,
            "variant": self.rules.variant,
            "goal": self.rules.goal,
            "commitment": self.commitment,
            "view": view,
            "legal": legal,
            "seq": seq,
            "resumed": resumed,
            "clock": self.clock(),
            "players": [s.player.public() for s in self.seats.values()],
        }

    def clock(self) -> Message:
        assert self.started_ms is not None
        return {
            "started_at": self.started_ms,
            "time_limit": self.rules.time_limit,
            "ends_at": self.started_ms + self.rules.time_limit * 1000,
            "now": now_ms(),
        }

    def elapsed_ms(self) -> int:
        return int((asyncio.get_running_loop().time() - self._t0) * 1000)

    def resume(self, player: Player) -> list[Message]:
        """What a player who reconnected needs to carry on: view, legal moves, standings."""
        seat = self.seats.get(player.id)
        if seat is None:
            return []
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        was_away = not seat.connected
        seat.connected = True
        if self.state != "running":
            return [{"type": "race", "race": self.summary()}]
        out = []
        if seat.finish is None and seat.game is not None:
            out.append(
                self._started(seat.game.view(), sorted(seat.game.legal_moves()), seat.seq, resumed=True)
            )
        out.append(self.standings())
        if was_away:
            self._standings_soon()
        return out

    def disconnected(self, player: Player) -> None:
        seat = self.seats.get(player.id)
        if seat is None:
            return
        if self.state == "open":
            self.unseat(player)
            return
        seat.connected = False
        if self.state == "running" and seat.finish is None:
            self._start_grace(seat)
            self._standings_soon()

    def _start_grace(self, seat: Seat) -> None:
        if seat.grace is None:
            seat.grace = asyncio.get_running_loop().call_later(self.grace, self._grace_over, seat)

    def _grace_over(self, seat: Seat) -> None:
        seat.grace = None
        if self.state == "running" and not seat.connected and seat.finish is None:
            at = self.elapsed_ms()
            if self.store is not None and self.logged:  # best effort: without it, a restart gives new grace
                entry = {"p": seat.player.id, "f": DISCONNECTED, "t": at}
                task = asyncio.get_running_loop().create_task(self._log_quietly(entry))
                self._writes.add(task)
                task.add_done_callback(self._writes.discard)
            self._finish(seat, DISCONNECTED, at)

    async def _log_quietly(self, entry: Message) -> None:
        try:
            await self._log(entry)
        except StoreDown as exc:
            log.warning("race %s: %s not logged (%s)", self.id, entry, exc)

    async def move(self, player: Player, seq: int, text: str, re: int | None) -> Message:
        """Apply one move; the ``moved`` answer, or a ProtocolError with nothing changed."""
        seat = self._running_seat(player)
        async with seat.lock:  # one move at a time per player, the lost search included
            if seq in seat.answers:
                first_text, first = seat.answers[seq]
                if text != first_text and text != first["move"]:
                    raise ProtocolError("seq_conflict", seq=seq, move=first_text)
                return {**first, "re": re} if re is not None else dict(first)
            if seat.finish is not None:
                raise ProtocolError("player_finished", race=self.id)
            if seq != seat.seq + 1:
                raise ProtocolError("bad_seq", expected=seat.seq + 1, seq=seq)
            game = seat.game
            assert game is not None
            t0 = time.perf_counter()
            try:
                move = game.resolve(text)  # refuse an illegal move before it reaches the log
            except IllegalMove as e:
                raise ProtocolError("illegal_move", e.message, reason=e.code, move=text) from None
            at = self.elapsed_ms()
            entry: Message = {"p": player.id, "seq": seq, "m": move, "t": at}
            if text != move:  # so a resend of the same text matches after a restart
                entry["x"] = text
            await self._log(entry)  # StoreDown: `store_down`, and the move is not applied
            if self.state != "running":  # the clock ran out meanwhile
                raise ProtocolError("race_not_running", race=self.id)
            if seat.finish is not None:
                raise ProtocolError("player_finished", race=self.id)
            game.play(move)
            # quick_status decides short lost searches here (a worker costs more than they do)
            if game.quick_status() is None:  # a long search: keep it off the loop
                game.settle(await self._search(game))
            if _went_home(game):
                seat.last_home_ms = at
            seat.seq = seq
            answer = self._answer(seat, text)
            seat.finishing = (answer["finish"], at) if "finish" in answer else None
            if self.on_move is not None:
                self.on_move(time.perf_counter() - t0)
            return {**answer, "re": re} if re is not None else answer

    def _answer(self, seat: Seat, text: str) -> Message:
        """The ``moved`` answer to the move just played (seq ``seat.seq``), kept for resends."""
        game = seat.game
        assert game is not None
        answer: Message = {
            "type": "moved",
            "race": self.id,
            "seq": seat.seq,
            "move": game.moves[-1],
            "events": game.last_events,
            "view": game.view(),
            "legal": sorted(game.legal_moves()),
            "status": game.status,
        }
        finish = self._reached(seat) if self.state == "running" else None  # not if time ran out meanwhile
        if finish is not None:
            answer["finish"] = finish
        seat.answers[seat.seq] = (text, answer)
        if len(seat.answers) > KEEP_ANSWERS:
            seat.answers.popitem(last=False)
        return answer

    def conclude(self, player: Player) -> None:
        """After a ``moved`` answer is sent: finish its player if it said so, and
        update standings. Split from :meth:`move` so the player reads their last
        answer before the ``finished`` push it may cause."""
        seat = self.seats.get(player.id)
        if seat is None or self.state != "running":
            return
        finishing, seat.finishing = seat.finishing, None
        if finishing is not None and seat.finish is None:
            self._finish(seat, *finishing)
        else:
            self._standings_soon()

    async def _search(self, game: Game) -> str:
        """The lost search of ``game``'s position, once however many seats are waiting on it."""
        key = game.position_key()
        search = self._searches.get(key)
        if search is None:
            search = self._searches[key] = asyncio.ensure_future(self._search_copy(game.copy()))
            search.add_done_callback(lambda _: self._searches.pop(key, None))
        return await asyncio.shield(search)

    async def _search_copy(self, snapshot: Game) -> str:
        """The search in the executor; here (blocking) if the executor fails, because the
        move is already applied and must get its answer."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, _status_of, snapshot)
        except Exception:
            log.exception("lost search failed in the executor; searching on the event loop")
            return snapshot.status

    def _reached(self, seat: Seat) -> str | None:
        game = seat.game
        assert game is not None
        if self.rules.goal == "terrace" and game.terrace_left == 0:
            return GOAL
        if game.status == "won":
            return GOAL
        if game.status == "lost":
            return STUCK
        return None

    async def resign(self, player: Player) -> None:
        seat = self._running_seat(player)
        async with seat.lock:  # after a move under way, in the log as in the game
            self._running_seat(player)
            if seat.finish is not None:
                raise ProtocolError("player_finished", race=self.id)
            at = self.elapsed_ms()
            await self._log({"p": player.id, "f": RESIGNED, "t": at})
            if self.state == "running" and seat.finish is None:
                self._finish(seat, RESIGNED, at)

    async def _log(self, entry: Message) -> None:
        """Append ``entry`` to the race's log (nothing without a store); raises StoreDown."""
        if self.store is not None and self.logged:
            await self.store.log_append(self.id, entry)

    def _running_seat(self, player: Player) -> Seat:
        seat = self.seats.get(player.id)
        if seat is None:
            raise ProtocolError("not_in_race", race=self.id)
        if self.state != "running":
            raise ProtocolError("race_not_running", race=self.id)
        return seat

    def _finish(self, seat: Seat, why: str, at: int | None = None) -> None:
        seat.finish = why
        seat.finish_ms = self.elapsed_ms() if at is None else at
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        seat.player.race = None  # free to race again while the others play on
        if all(s.finish is not None for s in self.seats.values()):
            self._end()
        else:
            self._push_standings()

    def _time_up(self) -> None:
        if self.state != "running":
            return
        at = self.rules.time_limit * 1000
        for seat in self.seats.values():
            if seat.finish is None:
                seat.finish, seat.finish_ms = TIME, at
                seat.player.race = None
        self._end()

    def _end(self) -> None:
        self.state = "finished"
        self.ended_ms = now_ms()
        self._cancel_timers()
        self.results = self._results()
        finished = {
            "type": "finished",
            "race": self.id,
            "variant": self.rules.variant,
            "goal": self.rules.goal,
            "commitment": self.commitment,
            "seed": self._seed.hex() if self._seed else None,
            "results": self.results,
        }
        for seat in self.seats.values():
            if seat.grace is not None:
                seat.grace.cancel()
        self.outbox.to_watchers(self, finished)
        self.outbox.race_changed(self)
        self.outbox.race_over(self)

    def _cancel_timers(self) -> None:
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self._standings_due is not None:
            self._standings_due.cancel()
            self._standings_due = None

    # ----- standings and places -----------------------------------------------------

    def _order(self, seat: Seat) -> tuple[int, int, int, int, int]:
        """DESIGN.md "Races": goal reached by time; then score, terrace left, last foundation move."""
        if seat.finish == GOAL:
            return (0, seat.finish_ms or 0, 0, 0, 0)
        last_home = seat.last_home_ms if seat.last_home_ms is not None else 2**62
        return (1, 0, -seat.score, seat.terrace_left, last_home)

    def _places(self, final: bool) -> dict[str, int]:
        seats = sorted(self.seats.values(), key=self._order)
        places: dict[str, int] = {}
        previous: tuple[int, ...] | None = None
        place = 0
        for n, seat in enumerate(seats, 1):
            key = self._order(seat)
            if key != previous:
                place, previous = n, key
            if final or seat.finish == GOAL:  # a goal place is final the moment it is reached
                places[seat.player.id] = place
        return places

    def _row(self, seat: Seat, place: int | None) -> Message:
        return {
            "player": seat.player.public(),
            "score": seat.score,
            "terrace_left": seat.terrace_left,
            "moves": seat.move_count,
            "finished": seat.finish is not None,
            "finish": seat.finish,
            "time": seat.finish_ms,
            "place": place,
            "connected": seat.connected,
        }

    def _standings_soon(self) -> None:
        """Push standings within ``standings_interval``: a burst of moves makes one push."""
        if self._standings_due is None:
            loop = asyncio.get_running_loop()
            self._standings_due = loop.call_later(self.standings_interval, self._push_standings)

    def _push_standings(self) -> None:
        if self._standings_due is not None:
            self._standings_due.cancel()
            self._standings_due = None
        self.outbox.to_watchers(self, self.standings())

    def standings(self) -> Message:
        """Live standings: no cards, only counts (spectators see these and nothing else)."""
        places = self._places(final=self.state == "finished")
        rows = [self._row(s, places.get(s.player.id)) for s in sorted(self.seats.values(), key=self._order)]
        return {"type": "standings", "race": self.id, "state": self.state, "rows": rows}

    def _results(self) -> list[Message]:
        places = self._places(final=True)
        return [
            {
                **self._row(s, places[s.player.id]),
                "moves": s.move_count,
                "status": s.game.status if s.game else None,
                "last_home": s.last_home_ms,  # the last tie-break of places, so anyone can check them
            }
            for s in sorted(self.seats.values(), key=self._order)
        ]

    def record(self) -> Message:
        """The finished race, complete enough for anyone to recompute and check it."""
        moves = {s.player.id: (s.game.moves if s.game else []) for s in self.seats.values()}
        return {
            "id": self.id,
            **{k: v for k, v in self.summary().items() if k not in ("id", "players")},
            "started_at": self.started_ms,
            "ended_at": self.ended_ms,
            "seed": self._seed.hex() if self._seed else None,
            "results": [{**row, "move_list": moves[row["player"]["id"]]} for row in self.results],
        }


def _went_home(game: Game) -> bool:
    return any(e["type"] in ("home", "base") for e in game.last_events)  # the base card goes home too


def _status_of(game: Game) -> str:
    return game.status
