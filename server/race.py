"""One race: its seats, its secret deal, its clock, moves, finishes, places and record.

A race goes ``open`` -> ``countdown`` -> ``running`` -> ``finished`` (or
``cancelled`` when everyone leaves before the start). Every seated player gets
a game of the same secret 32-byte seed; only the commitment is published until
the race ends. The race talks to the world through an :class:`Outbox`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from terrace import Game, IllegalMove, new_game
from terrace.deal import commitment
from terrace.errors import ProtocolError

from .accounts import Player

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
    ) -> None:
        self.id = race_id
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
        """Leave before the first view; once it is dealt, leaving is resigning."""
        if self.state == "running":
            self.resign(player)
            return
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
        if self.state != "countdown":
            return
        if not self.seats:
            self.state = "cancelled"
            self.outbox.race_changed(self)
            self.outbox.race_over(self)
            return
        loop = asyncio.get_running_loop()
        self._seed = secrets.token_bytes(32)
        self.commitment = commitment(self._seed)
        first_game: Game | None = None
        for seat in self.seats.values():
            seat.game = new_game(self.rules.variant, self._seed)
            if first_game is None:
                first_game = seat.game
            else:  # seats meet the same positions (identical bots, above all): search each once
                seat.game.share_searches(first_game)
        self.state = "running"
        self._t0 = loop.time()
        self.started_ms = now_ms()
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
            self._finish(seat, DISCONNECTED)

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
                move = game.play(text)
            except IllegalMove as e:
                raise ProtocolError("illegal_move", e.message, reason=e.code, move=text) from None
            at = self.elapsed_ms()
            # quick_status decides short lost searches here (a worker costs more than they do)
            if game.quick_status() is None:  # a long search: keep it off the loop
                game.settle(await self._search(game))
            events = game.last_events
            if any(e["type"] in ("home", "base") for e in events):  # the base card goes home too
                seat.last_home_ms = at
            seat.seq = seq
            answer: Message = {
                "type": "moved",
                "race": self.id,
                "seq": seq,
                "move": move,
                "events": events,
                "view": game.view(),
                "legal": sorted(game.legal_moves()),
                "status": game.status,
            }
            if self.state == "running":
                finish = self._reached(seat)
                if finish is not None:
                    answer["finish"] = finish
            seat.answers[seq] = (text, answer)
            if len(seat.answers) > KEEP_ANSWERS:
                seat.answers.popitem(last=False)
            seat.finishing = (answer["finish"], at) if "finish" in answer else None
            if self.on_move is not None:
                self.on_move(time.perf_counter() - t0)
            return {**answer, "re": re} if re is not None else answer

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

    def resign(self, player: Player) -> None:
        seat = self._running_seat(player)
        if seat.finish is not None:
            raise ProtocolError("player_finished", race=self.id)
        self._finish(seat, RESIGNED)

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


def _status_of(game: Game) -> str:
    return game.status
