"""The solver: a winning line for a game with its stock known, or proof that none exists.

    >>> import terrace
    >>> from terrace.solve import solve
    >>> s = solve(terrace.new_game("terrace", deal=3), nodes=50_000)
    >>> s.verdict in ("won", "lost", "unknown")
    True

``solve(game, nodes=..., seconds=...)`` searches from the game's position
(the game is not changed) and answers with a :class:`Solution`: ``won`` with a
line of canonical moves that replays to a won game, ``lost`` when no line
wins, or ``unknown`` when the budget ran out first. It never gives a wrong
answer: "lost" only after every reachable position was seen (less those a safe
move makes needless, see ``family.py``), and every "won" line is replayed on
the engine before it is returned. For a given node budget (and no time budget)
the answer is deterministic. This is hindsight: it sees the stock, which no
player does.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from terrace.rules.game import Game

from .decide import decided
from .family import FamilyAdapter
from .louis import LouisAdapter
from .search import LOST, UNKNOWN, WON, Solution, search
from .stages import COMPLETE_SHARE, Shaken, adapter_for, check_line, find_win

__all__ = [
    "LOST",
    "NODES",
    "UNKNOWN",
    "WON",
    "Shaken",
    "Solution",
    "adapter_for",
    "check_line",
    "decided",
    "first_choices",
    "playout",
    "solve",
]

NODES = 200_000  # default budget: positions visited


def solve(
    game: Game,
    *,
    nodes: int = NODES,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Solution:
    """Search ``game``'s position for a win within ``nodes`` positions (and ``seconds``
    by ``clock``: wall time by default, ``time.process_time`` for this process's CPU time)."""
    if nodes < 1:
        raise ValueError("the node budget must be at least 1")
    solution = _staged(game, nodes, seconds, clock)
    if solution.verdict == WON and not check_line(game, solution.moves):
        raise AssertionError("the solver's line does not replay to a won game")  # a bug, never an answer
    return solution


def _staged(game: Game, nodes: int, seconds: float | None, clock: Callable[[], float]) -> Solution:
    # the complete search first, briefly: small positions are decided there, lost or won
    share = None if seconds is None else seconds * COMPLETE_SHARE
    first = search(game, adapter_for(game), max(1, int(nodes * COMPLETE_SHARE)), share, clock)
    if first.verdict != UNKNOWN:
        return first
    rest = find_win(
        game, nodes - first.nodes, None if seconds is None else seconds - first.seconds, clock, frozenset()
    )
    return Solution(rest.verdict, rest.moves, first.nodes + rest.nodes, first.seconds + rest.seconds)


def playout(game: Game, steps: int = 400) -> Game:
    """Where the solver's first line from ``game`` ends (a copy): fast, and blind to
    nothing, so a bot calls it only on games whose stock it guessed (``terrace.solve.imagine``)."""
    adapter = adapter_for(game, True)
    assert isinstance(adapter, FamilyAdapter | LouisAdapter)
    return adapter.dive(game, steps)  # the same line as ``dive``, cheaper (tests/terrace/solve)


def first_choices(game: Game) -> list[str]:
    """The moves the solver's first search would try from ``game``, best first: one
    move alone when it is safe (or a terrace card going home). Depends only on what
    the player sees (the stock by its count), so a bot may call it on its own game."""
    g = game.copy()
    return [g.move_name(m) for m in adapter_for(g, True).moves(g)]
