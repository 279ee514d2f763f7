"""The one placing rule of a race, used by the server, the audit, the arena and the bots.

Players who reached the goal come first, in the order they reached it. Everyone
else follows by score (cards home, more is better), then terrace cards left (fewer
is better), then the race time of their last card home (earlier is better; never
having put a card home comes last). Players equal on every key share a place, and
the places after them skip (competition ranking: 1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NEVER = 2**62  # "no card home yet": later than any race time


@dataclass(frozen=True, order=True)
class Standing:
    """What a player's place depends on, ordered best first.

    ``goal_time`` is the race time at which the goal was reached (None: not
    reached); ``last_home`` the race time of the player's last card home (None:
    none). Arena games use move counts where races use milliseconds.
    """

    reached: int  # 0 reached the goal, 1 did not: sorts goal finishers first
    goal_time: int
    minus_score: int
    terrace_left: int
    last_home: int

    @classmethod
    def of(cls, *, goal_time: int | None, score: int, terrace_left: int, last_home: int | None) -> Standing:
        if goal_time is not None:
            return cls(0, goal_time, 0, 0, 0)  # among goal finishers only the time counts
        return cls(1, 0, -score, terrace_left, NEVER if last_home is None else last_home)


def places(standings: Sequence[Standing]) -> list[int]:
    """Each standing's place (1 is best), in the order given; equal standings share a place."""
    order = sorted(range(len(standings)), key=lambda i: standings[i])
    out = [0] * len(standings)
    previous: Standing | None = None
    place = 0
    for n, i in enumerate(order, 1):
        if standings[i] != previous:
            place, previous = n, standings[i]
        out[i] = place
    return out


def better(a: Standing, b: Standing) -> str:
    """``"a"``, ``"b"`` or ``"draw"``: who placed ahead of the other."""
    return "a" if a < b else "b" if b < a else "draw"
