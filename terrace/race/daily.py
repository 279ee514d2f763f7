"""The daily deal, sans-I/O: UTC days, seeds drawn from a secret, the board's order, ghosts.

Every variant has one deal a UTC day. Its seed is ``HMAC-SHA256(secret, "variant|day|counter")``
for the smallest counter whose deal the solver proves winnable (:func:`draw`), so every node
that shares the secret finds the same seed without asking the others, and a restart finds it
again. The seed is committed to with :func:`terrace.rules.deal.commitment`, the scheme of every
race, so ``terrace verify`` checks a daily record as it checks any record; the commitment of
tomorrow's seed is published today, and the seed itself once its day is over.

A daily attempt is a one-seat race (:class:`DailyRace`) that keeps the time of every move,
never tells its seed before the day ends, and carries the standings of *ghosts*: earlier
attempts on the same deal, replayed at their recorded pace (:class:`Ghost`), placed against
the player by the one placing rule of :mod:`terrace.race.places`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from terrace.race import Race
from terrace.race.effects import Broadcast, Effect, LogEntry
from terrace.race.seat import Seat
from terrace.race.standings import ordered, rows
from terrace.rules.deal import commitment
from terrace.rules.replay import new_game
from terrace.solve import WON, solve
from terrace.vocab import Goal
from terrace.wire.messages import PlayerInfo, Standings

DAY_SECONDS = 86_400
NODES_PER_SEED = 40_000  # the solver's budget per candidate seed: the same on every node, so the same verdict
MAX_COUNTER = 10_000  # a day with no proven deal in this many candidates is a bug, not bad luck

NOT_REACHED = 1e12  # board values at or past this did not reach the goal
_SCORE_STEP = 1e9  # one card home less, further down the board
_MAX_SCORE = 200


def day_of(unix_seconds: float) -> str:
    """The UTC day (``YYYY-MM-DD``) a moment falls in."""
    return dt.datetime.fromtimestamp(unix_seconds, dt.UTC).date().isoformat()


def shift(day: str, days: int) -> str:
    """The day ``days`` after ``day`` (before it, if negative)."""
    return (dt.date.fromisoformat(day) + dt.timedelta(days=days)).isoformat()


def parse_day(text: str) -> str | None:
    """``text`` as a day if it is one (``YYYY-MM-DD``), else None."""
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        return None
    return day.isoformat() if day.isoformat() == text else None


def day_end(day: str) -> float:
    """Unix seconds at which ``day`` ends (and its seed may be told)."""
    start = dt.datetime.combine(dt.date.fromisoformat(day), dt.time(), dt.UTC)
    return start.timestamp() + DAY_SECONDS


def candidate(secret: bytes, variant: str, day: str, counter: int) -> bytes:
    """The ``counter``-th candidate seed of ``variant`` on ``day``."""
    return hmac.new(secret, f"{variant}|{day}|{counter}".encode(), hashlib.sha256).digest()


@dataclass(frozen=True)
class DailyDeal:
    """One variant's deal of one day: the seed, which candidate it was, and the solver's winning line."""

    variant: str
    day: str
    seed: bytes
    counter: int
    solution: list[str]
    rules_version: int

    @property
    def commitment(self) -> str:
        return commitment(self.seed)

    def stored(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "day": self.day,
            "seed": self.seed.hex(),
            "counter": self.counter,
            "solution": self.solution,
            "rules_version": self.rules_version,
        }

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> DailyDeal:
        return cls(
            str(data["variant"]),
            str(data["day"]),
            bytes.fromhex(str(data["seed"])),
            int(data["counter"]),
            [str(m) for m in data["solution"]],
            int(data["rules_version"]),
        )


def draw(secret: bytes, variant: str, day: str, rules_version: int, nodes: int = NODES_PER_SEED) -> DailyDeal:
    """The day's deal: candidates in counter order until the solver proves one winnable.

    Deterministic (a node budget, no time budget), so every node draws the same deal; slow
    (a second or more of one core per candidate), so the server runs it in a worker process.
    """
    for counter in range(MAX_COUNTER):
        seed = candidate(secret, variant, day, counter)
        answer = solve(new_game(variant, seed, rules_version=rules_version), nodes=nodes)
        if answer.verdict == WON:
            return DailyDeal(variant, day, seed, counter, list(answer.moves), rules_version)
    raise RuntimeError(f"no winnable {variant} deal for {day} in {MAX_COUNTER} candidates")


# ----- the board --------------------------------------------------------------------------


def board_value(goal_time: int | None, score: int, last_home: int | None) -> float:
    """One attempt's place on the daily board as one number, lower is better: the goal reached
    first (by its time), then the most cards home, then the earliest last card home."""
    if goal_time is not None:
        return float(goal_time)
    last = min(last_home if last_home is not None else _SCORE_STEP - 1, _SCORE_STEP - 1)
    return NOT_REACHED + (_MAX_SCORE - min(score, _MAX_SCORE)) * _SCORE_STEP + last


def board_row(rank: int, player: Mapping[str, Any], value: float) -> dict[str, Any]:
    """A board row: time and score only (never a move, never a card)."""
    if value < NOT_REACHED:
        return {"rank": rank, "player": dict(player), "time": int(value), "score": None, "goal": True}
    score = _MAX_SCORE - int((value - NOT_REACHED) // _SCORE_STEP)
    return {"rank": rank, "player": dict(player), "time": None, "score": score, "goal": False}


# ----- ghosts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """What a ghost replays: an earlier attempt's player, its moves with their race times, and
    how and when it finished."""

    player: PlayerInfo
    moves: list[tuple[int, str]]
    finish: str
    finish_ms: int

    def stored(self) -> dict[str, Any]:
        return {
            "player": dict(self.player),
            "moves": [[t, m] for t, m in self.moves],
            "finish": self.finish,
            "finish_ms": self.finish_ms,
        }

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Recorded:
        return cls(
            data["player"],
            [(int(t), str(m)) for t, m in data["moves"]],
            str(data["finish"]),
            int(data["finish_ms"]),
        )


class Ghost:
    """An earlier attempt replayed move by move at its recorded race times; what it shows is its
    standings row (counts only), as a seat of the race would."""

    def __init__(self, recorded: Recorded, variant: str, seed: bytes, rules_version: int, goal: Goal) -> None:
        self.recorded = recorded
        player: dict[str, Any] = {**recorded.player, "ghost": True}
        player["id"] = f"ghost:{recorded.player['id']}"
        self.seat = Seat(player, game=new_game(variant, seed, rules_version=rules_version))  # type: ignore[arg-type]
        self.goal = goal
        self._next = 0

    def next_at(self) -> int | None:
        """Race time of the ghost's next move or finish; None once it has finished."""
        if self.seat.finish is not None:
            return None
        if self._next < len(self.recorded.moves):
            return min(self.recorded.moves[self._next][0], self.recorded.finish_ms)
        return self.recorded.finish_ms

    def advance(self, race_time: int) -> bool:
        """Play what the attempt had played by ``race_time``; whether anything changed."""
        seat, moves = self.seat, self.recorded.moves
        assert seat.game is not None
        changed = False
        while seat.finish is None and self._next < len(moves) and moves[self._next][0] <= race_time:
            at, move = moves[self._next]
            seat.game.play(move)
            self._next += 1
            changed = True
            if seat.went_home():
                seat.last_home_ms = at
            if seat.reached(self.goal) is not None:
                seat.finish, seat.finish_ms = seat.reached(self.goal), at
        if seat.finish is None and self.recorded.finish_ms <= race_time and self._next >= len(moves):
            seat.finish, seat.finish_ms = self.recorded.finish, self.recorded.finish_ms  # type: ignore[assignment]
            changed = True
        return changed


class DailyRace(Race):
    """A daily attempt: a one-seat race whose ``finished`` message keeps the seed back (the day is
    not over), which notes every move's race time (for ghosts), and whose standings carry ghosts."""

    def __init__(self, *args: Any, ghosts: Sequence[Recorded] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.move_times: list[int] = []
        self._recorded = list(ghosts)
        self.ghosts: list[Ghost] = []

    def _deal_games(self) -> None:
        super()._deal_games()  # ghosts start with the first view, never before
        r = self.rules
        self.ghosts = [Ghost(g, r.variant, self._seed, r.rules_version, r.goal) for g in self._recorded]

    def apply_move(self, entry: LogEntry, now: int) -> list[Effect]:
        effects = super().apply_move(entry, now)
        self.move_times.append(int(entry["t"]))
        return effects

    def next_wake(self) -> int | None:
        due = super().next_wake()
        if self.state == "running" and self.started_ms is not None:
            times = [t for g in self.ghosts if (t := g.next_at()) is not None]
            if times:
                ghost = self.started_ms + min(times)
                due = ghost if due is None else min(due, ghost)
        return due

    def tick(self, now: int) -> list[Effect]:
        # every ghost advances (a list, not any(): all of them, not up to the first that moved)
        if self.state == "running" and any([g.advance(self.race_time(now)) for g in self.ghosts]):
            self._standings_soon(now)
        return super().tick(now)

    def standings(self) -> Standings:
        """The player's row and the ghosts', placed as in a live race; once the attempt is over the
        ghosts are placed by their whole recorded attempt."""
        final = self.state == "finished"
        if final:
            for ghost in self.ghosts:
                ghost.advance(2**62)
        seats = [*self.seats.values(), *(g.seat for g in self.ghosts)]
        return {"type": "standings", "race": self.id, "state": self.state, "rows": rows(seats, final)}

    def ghost_place(self) -> int:
        """The player's final place among the ghosts (1 with none)."""
        for ghost in self.ghosts:
            ghost.advance(2**62)
        seats = [*self.seats.values(), *(g.seat for g in self.ghosts)]
        return next(p for s, p in ordered(seats) if s in self.seats.values())

    def _end(self, at: int) -> list[Effect]:
        """The race's end, with the seed kept out of ``finished`` (the day is not over) and the
        final standings, ghosts placed, after it."""
        out: list[Effect] = []
        for effect in super()._end(at):
            if isinstance(effect, Broadcast) and effect.message.get("type") == "finished":
                told = {k: v for k, v in effect.message.items() if k != "seed"}
                out += [Broadcast(told), Broadcast(self.standings())]
            else:
                out.append(effect)
        return out

    def recorded(self) -> Recorded | None:
        """This attempt as a ghost for later players (once it is over)."""
        seat = next(iter(self.seats.values()))
        if seat.game is None or seat.finish is None or seat.finish_ms is None:
            return None
        return Recorded(
            seat.player,
            list(zip(self.move_times, seat.game.moves, strict=False)),
            seat.finish,
            seat.finish_ms,
        )
