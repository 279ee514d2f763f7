"""The solver's search: depth-first over the positions a game can reach, stock known.

A depth-first walk with one set of every position visited (by a canonical key)
is a complete search for "can a won position be reached": when the walk ends
without a win, no win exists. The engine adapters (``family.py``, ``louis.py``)
supply the key, the ordered and pruned moves of a position, and a cheap
snapshot of the engine's state; the engine's own ``_generate`` and ``_apply``
play the moves, so the solver follows the very rules the server checks.

The walk is deterministic: the same game and node budget give the same answer
and the same line. A time budget may stop it earlier ("unknown"), never change a
"won" or "lost" into the other.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..game import Game, Move

WON, LOST, UNKNOWN = "won", "lost", "unknown"

# How often (in positions) the clock is read when a time budget is set.
_CLOCK_EVERY = 256


class Adapter(Protocol):
    """What the search needs from an engine (one adapter per engine)."""

    def key(self, game: Game) -> bytes:
        """Equal keys: positions with the same future (won from one iff from the other)."""
        ...

    def moves(self, game: Game) -> list[Move]:
        """The moves worth trying, best first; a lone safe move when there is one."""
        ...

    def snapshot(self, game: Game) -> object:
        """The engine's whole mutable state, to put back with :meth:`restore`."""
        ...

    def restore(self, game: Game, state: object) -> None: ...


@dataclass(frozen=True)
class Solution:
    """The solver's answer for one position.

    ``verdict`` is ``"won"`` (``moves`` is a winning line from the position,
    canonical notation), ``"lost"`` (no line wins: proven) or ``"unknown"``
    (the budget ran out first). ``nodes`` counts the positions visited.
    """

    verdict: str
    moves: tuple[str, ...]
    nodes: int
    seconds: float

    def to_dict(self) -> dict[str, object]:
        return {"verdict": self.verdict, "moves": list(self.moves), "nodes": self.nodes}


def search(
    game: Game,
    adapter: Adapter,
    nodes: int,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    discrepancies: int | None = None,
) -> Solution:
    """Search from ``game``'s position (``game`` itself is left unchanged).

    With ``discrepancies`` the search is a limited discrepancy search: a line may
    leave the adapter's first choice at most that many times below the root. It may then miss
    wins, so it never answers "lost" (it says "unknown" when it ends without a win).
    """
    start = clock()
    g = game.copy()
    if g._won():
        return Solution(WON, (), 1, clock() - start)
    deadline = None if seconds is None else start + seconds
    limit = nodes if discrepancies is None else discrepancies
    # key -> the most discrepancies left when it was expanded: a position met again
    # with more left is expanded again (with ``discrepancies=None`` never)
    seen = {adapter.key(g): limit}
    frames: list[tuple[object, list[Move], int, int]] = [(adapter.snapshot(g), adapter.moves(g), 0, limit)]
    path: list[str] = []
    verdict = LOST
    visited = 1
    while frames:
        state, moves, i, left = frames[-1]
        if i == len(moves):
            frames.pop()
            if path:
                path.pop()
            continue
        frames[-1] = (state, moves, i + 1, left)
        # the root's choices are free: the first move (the base) matters most
        child_left = left - 1 if i and discrepancies is not None and len(frames) > 1 else left
        if child_left < 0:
            continue
        move = moves[i]
        adapter.restore(g, state)
        name = g.move_name(move)
        g._apply(move)
        if g._won():
            path.append(name)
            verdict = WON
            break
        key = adapter.key(g)
        before = seen.get(key)
        if before is not None and before >= child_left:
            continue
        seen[key] = child_left
        visited += 1
        if visited >= nodes or (deadline is not None and visited % _CLOCK_EVERY == 0 and clock() >= deadline):
            verdict = UNKNOWN
            break
        path.append(name)
        frames.append((adapter.snapshot(g), adapter.moves(g), 0, child_left))
    if verdict == LOST and discrepancies is not None:
        verdict = UNKNOWN
    line = tuple(path) if verdict == WON else ()
    return Solution(verdict, line, visited, clock() - start)


def dive(game: Game, adapter: Adapter, steps: int) -> Game:
    """The search's first line from ``game``: the adapter's first choice at every position
    that leads somewhere new, for at most ``steps`` moves. Returns where it ends (a copy)."""
    g = game.copy()
    seen = {adapter.key(g)}
    for _ in range(steps):
        if g._won():
            break
        state = adapter.snapshot(g)
        for move in adapter.moves(g):
            g._apply(move)
            key = adapter.key(g)
            if key not in seen:
                seen.add(key)
                break
            adapter.restore(g, state)
        else:
            break
    g._legal = None
    g._status = None
    return g
