"""How fast a house bot plays when a person races it: a think time per move, drawn like a person's.

People do not move at a steady rate: most moves come quickly, some take a long look.
A log-normal distribution is the usual model of such reaction and decision times
(right-skewed, never negative), so a pace is its median and spread, clipped to a
floor and a ceiling so one draw can neither be instant nor stall a race.

    PACES["casual"].draw(random.Random(1))  # seconds to think before the next move

A bot written ``planner@fast`` plays at the ``fast`` pace; ``full`` never waits.
Pace applies only while a person races: a race of programs runs at full speed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Pace:
    """Think times of median ``median`` seconds, log-normal with shape ``spread``, within
    ``[floor, ceiling]``; the first move of a race takes ``first`` times longer (reading the deal)."""

    name: str
    median: float
    spread: float = 0.5
    floor: float = 0.3
    ceiling: float = 12.0
    first: float = 2.0

    def draw(self, rng: random.Random, first: bool = False) -> float:
        """Seconds to think before one move."""
        if self.median <= 0:
            return 0.0
        seconds = rng.lognormvariate(math.log(self.median), self.spread)
        if first:
            seconds *= self.first
        return min(max(seconds, self.floor), self.ceiling)


# Medians from people playing patience on a screen: a quick player takes a little over a
# second a move, a relaxed one two to three, a careful one four or more.
PACES: dict[str, Pace] = {
    "full": Pace("full", 0.0, floor=0.0, ceiling=0.0, first=1.0),
    "fast": Pace("fast", 1.3, spread=0.45),
    "casual": Pace("casual", 2.5, spread=0.55),
    "slow": Pace("slow", 4.0, spread=0.6, ceiling=20.0),
}
DEFAULT_PACE = "casual"


def pace_named(name: str) -> Pace:
    """The pace called ``name``; ValueError naming the choices otherwise."""
    try:
        return PACES[name]
    except KeyError:
        raise ValueError(f"unknown pace {name!r}: choose one of {', '.join(PACES)}") from None


def split_pace(spec: str) -> tuple[str, str | None]:
    """``"planner@fast"`` -> ``("planner", "fast")``; ``"planner"`` -> ``("planner", None)``.

    Raises ValueError for an unknown pace."""
    bot, sep, pace = spec.partition("@")
    if not sep:
        return spec, None
    pace_named(pace)
    return bot, pace
