"""Whether moves came faster than a person plays: the measure that holds a result back from the
people's boards (and flags it for the operator).

A person reads the board, decides, then types a move or clicks a card and its target: a few
tenths of a second a move at the very least, and the quickest of people have slower moves
among their quick ones. A program that was told the deal plays its line as fast as it can
send it. Three signs, any one enough: the median time between moves under
:data:`MEDIAN_FLOOR_MS` (over at least :data:`MIN_MOVES` moves); :data:`RUN` moves in a row
each under :data:`RUN_FLOOR_MS` after the one before; or :data:`SPAN` moves in a row made in
under :data:`SPAN_FLOOR_MS` a move on average (a program spacing its moves unevenly to keep
the median up still keeps a pace nobody holds for thirty decisions). A program slowed to a
person's pace passes: no server can tell it from a fast person (docs/FAIRPLAY.md says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from statistics import median

MIN_MOVES = 10
MEDIAN_FLOOR_MS = 150
RUN = 10
RUN_FLOOR_MS = 60
SPAN = 30
SPAN_FLOOR_MS = 250


def inhuman(move_times: Sequence[int]) -> bool:
    """Whether moves at these race times (ms, in order) came faster than a person plays."""
    gaps = [b - a for a, b in pairwise(move_times)]
    if len(move_times) >= MIN_MOVES and median(gaps) < MEDIAN_FLOOR_MS:
        return True
    run = 0
    for gap in gaps:
        run = run + 1 if gap < RUN_FLOOR_MS else 0
        if run >= RUN:
            return True
    span = SPAN * SPAN_FLOOR_MS
    return any(move_times[i + SPAN] - move_times[i] < span for i in range(len(move_times) - SPAN))
