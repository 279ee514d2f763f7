"""The one percentile every figure of this project uses: nearest rank.

It lives here, in the bots package, because the bots' own figures (the arena's decision
times, the swarm's answer times) and the benchmark scripts (``benchmarks/common.py``)
both need it, and ``bots`` is what both may import: ``benchmarks/`` is not installed with
the package, so nothing installed may import it, and the core (``terrace/``) holds the
game and its protocol, not measuring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(ordered: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0 to 100) of ``ordered`` (sorted, not empty) by nearest rank: the
    smallest value with at least ``p`` percent of the values at or below it."""
    if not ordered:
        raise ValueError("no values to take a percentile of")
    if not 0 <= p <= 100:
        raise ValueError(f"a percentile is from 0 to 100, not {p}")
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]
