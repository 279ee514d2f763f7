"""The daily deal, sans-I/O: UTC days, seeds drawn from a secret, the board's order, ghosts.

Every variant has one deal a UTC day. Its seed is ``HMAC-SHA256(secret, "variant|day|counter")``
for the smallest counter whose deal the solver proves winnable (:func:`draw`), so every node
that shares the secret finds the same seed without asking the others, and a restart finds it
again. The seed is committed to with :func:`terrace.rules.deal.commitment`, the scheme of every
race, so ``terrace verify`` checks a daily record as it checks any record; the commitment of
tomorrow's seed is published today, and the seed itself once its day is over.

A daily attempt is a one-seat private race (:class:`~terrace.race.rules.RaceOptions`) that
never tells its seed before the deal is revealed, and carries the standings of *ghosts*:
earlier attempts on the same deal, replayed at their recorded pace (:mod:`terrace.race.ghosts`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from terrace.rules.deal import commitment
from terrace.rules.replay import new_game
from terrace.solve import WON, solve
from terrace.wire.messages import BoardPlayer, DailyRow

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


def board_row(rank: int, player: Mapping[str, Any], value: float) -> DailyRow:
    """A board row: time and score only (never a move, never a card)."""
    who = cast(BoardPlayer, dict(player))
    if value < NOT_REACHED:
        return {"rank": rank, "player": who, "time": int(value), "score": None, "goal": True}
    score = _MAX_SCORE - int((value - NOT_REACHED) // _SCORE_STEP)
    return {"rank": rank, "player": who, "time": None, "score": score, "goal": False}
