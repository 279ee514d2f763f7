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

from ..errors import IllegalMove
from ..family import FamilyGame
from ..game import Game
from ..louis import LouisGame
from .family import FamilyAdapter
from .louis import LouisAdapter
from .search import LOST, UNKNOWN, WON, Adapter, Solution, dive, search

__all__ = ["LOST", "NODES", "UNKNOWN", "WON", "Solution", "check_line", "first_choices", "playout", "solve"]

NODES = 200_000  # default budget: positions visited


def adapter_for(game: Game, hasty: bool = False) -> Adapter:
    if isinstance(game, FamilyGame):
        return FamilyAdapter(game, hasty=hasty)
    if isinstance(game, LouisGame):
        return LouisAdapter(game)
    raise TypeError(f"no solver for {type(game).__name__}")


def solve(game: Game, *, nodes: int = NODES, seconds: float | None = None) -> Solution:
    """Search ``game``'s position for a win within ``nodes`` positions (and ``seconds``)."""
    if nodes < 1:
        raise ValueError("the node budget must be at least 1")
    solution = _staged(game, nodes, seconds)
    if solution.verdict == WON and not check_line(game, solution.moves):
        raise AssertionError("the solver's line does not replay to a won game")  # a bug, never an answer
    return solution


# Limited discrepancy searches first (hasty: pile moves only when they free
# something), 0, 1, 2... discrepancies sharing this part of the budget; the rest
# goes to the complete search, the only one that can prove a deal lost.
HASTY_SHARE = 0.85
MAX_DISCREPANCIES = 8


def _staged(game: Game, nodes: int, seconds: float | None) -> Solution:
    spent_nodes, spent_time = 0, 0.0
    hasty_nodes = int(nodes * HASTY_SHARE)
    hasty_time = None if seconds is None else seconds * HASTY_SHARE
    for limit in range(MAX_DISCREPANCIES + 1):
        stage_nodes = hasty_nodes - spent_nodes
        stage_time = None if hasty_time is None else hasty_time - spent_time
        if stage_nodes < 1 or (stage_time is not None and stage_time <= 0):
            break
        answer = search(game, adapter_for(game, True), stage_nodes, stage_time, discrepancies=limit)
        spent_nodes += answer.nodes
        spent_time += answer.seconds
        if answer.verdict == WON:
            return Solution(WON, answer.moves, spent_nodes, spent_time)
    stage_time = None if seconds is None else max(0.0, seconds - spent_time)
    answer = search(game, adapter_for(game), max(1, nodes - spent_nodes), stage_time)
    return Solution(answer.verdict, answer.moves, spent_nodes + answer.nodes, spent_time + answer.seconds)


def playout(game: Game, steps: int = 400) -> Game:
    """Where the solver's first line from ``game`` ends (a copy): fast, and blind to
    nothing, so a bot calls it only on games whose stock it guessed (``terrace.imagine``)."""
    return dive(game, adapter_for(game, True), steps)


def first_choices(game: Game) -> list[str]:
    """The moves the solver's first search would try from ``game``, best first: one
    move alone when it is safe (or a terrace card going home). Depends only on what
    the player sees (the stock by its count), so a bot may call it on its own game."""
    g = game.copy()
    return [g.move_name(m) for m in adapter_for(g, True).moves(g)]


def check_line(game: Game, moves: tuple[str, ...] | list[str]) -> bool:
    """Whether ``moves`` played from ``game``'s position (not changed) are legal and win."""
    g = game.copy()
    try:
        for move in moves:
            g.play(move)
    except IllegalMove:
        return False
    return g._won()
