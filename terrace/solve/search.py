"""The solver's search: depth-first over the positions a game can reach, stock known.

A depth-first walk with one set of every position visited (by a canonical key)
is a complete search for "can a won position be reached": when the walk ends
without a win, no win exists. The engine adapters (``family.py``, ``louis.py``)
supply the key, the ordered and pruned moves of a position, and play and take
back a move in place (the family adapter with its own generation and undo,
held to the engine's ``_generate`` and ``_apply`` by a property test; Louis's
with the engine's own and a snapshot), so the solver follows the very rules the
server checks; every "won" line is replayed on the engine besides.

The walk is deterministic: the same game and node budget give the same answer
and the same line. A time budget may stop it earlier ("unknown"), never change a
"won" or "lost" into the other.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol

from terrace.rules.game import Game, Move

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

    def play(self, game: Game, move: Move) -> object:
        """Play ``move`` (one of :meth:`moves`) in place; returns what :meth:`undo` needs."""
        ...

    def undo(self, game: Game, move: Move, token: object) -> None:
        """Take back ``move``, played last by :meth:`play` (which gave ``token``)."""
        ...

    def won(self, game: Game) -> bool:
        """Whether every card is home."""
        ...


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
    lost: AbstractSet[bytes] = frozenset(),
) -> Solution:
    """Search from ``game``'s position (``game`` itself is left unchanged).

    ``adapter`` must have been made for ``game`` (it plays on a copy of it).
    With ``discrepancies`` the search is a limited discrepancy search: a line may
    leave the adapter's first choice at most that many times below the root. It may then miss
    wins, so it never answers "lost" (it says "unknown" when it ends without a win).
    Positions whose keys are in ``lost`` (proven lost: :class:`terrace.solve.decide.Table`) are skipped.
    """
    start = clock()
    g = game.copy()
    if adapter.won(g):
        return Solution(WON, (), 1, clock() - start)
    deadline = None if seconds is None else start + seconds
    limit = nodes if discrepancies is None else discrepancies
    lds = discrepancies is not None
    # key -> the most discrepancies left when it was expanded: a position met again
    # with more left is expanded again (with ``discrepancies=None`` never)
    seen = {adapter.key(g): limit}
    play, undo, key_of, moves_of, won = adapter.play, adapter.undo, adapter.key, adapter.moves, adapter.won
    dead = getattr(adapter, "dead", None)  # a position proven lost without a search: never worth a visit
    # one frame per position on the line: its moves, the next to try, discrepancies left
    frames: list[list[Any]] = [[moves_of(g), 0, limit]]
    line: list[tuple[Move, object]] = []  # the moves played to reach the top frame, with their tokens
    verdict = LOST
    visited = 1
    check = _CLOCK_EVERY if deadline is not None else nodes + 1
    while frames:
        frame = frames[-1]
        moves, i, left = frame
        if i == len(moves):
            frames.pop()
            if line:
                move, token = line.pop()
                undo(g, move, token)
            continue
        frame[1] = i + 1
        # the root's choices are free: the first move (the base) matters most
        if lds and i and len(frames) > 1:
            child_left = left - 1
            if child_left < 0:
                continue
        else:
            child_left = left
        move = moves[i]
        token = play(g, move)
        if won(g):
            line.append((move, token))
            verdict = WON
            break
        key = key_of(g)
        if key in lost:
            undo(g, move, token)
            continue
        before = seen.get(key)
        if before is not None and before >= child_left:
            undo(g, move, token)
            continue
        seen[key] = child_left
        if dead is not None and dead(g, move):
            undo(g, move, token)
            continue
        visited += 1
        if visited >= nodes or (visited % check == 0 and clock() >= deadline):  # type: ignore[operator]
            verdict = UNKNOWN
            break
        line.append((move, token))
        frames.append([moves_of(g), 0, child_left])
    if verdict == LOST and lds:
        verdict = UNKNOWN
    names = tuple(game.move_name(m) for m, _ in line) if verdict == WON else ()
    return Solution(verdict, names, visited, clock() - start)


def dive(game: Game, adapter: Adapter, steps: int) -> Game:
    """The search's first line from ``game``: the adapter's first choice at every position
    that leads somewhere new, for at most ``steps`` moves. Returns where it ends (a copy).
    ``adapter`` must have been made for ``game``."""
    g = game.copy()
    seen = {adapter.key(g)}
    for _ in range(steps):
        if adapter.won(g):
            break
        for move in adapter.moves(g):
            token = adapter.play(g, move)
            key = adapter.key(g)
            if key not in seen:
                seen.add(key)
                break
            adapter.undo(g, move, token)
        else:
            break
    g.touched()
    return g
