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

import random
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from terrace.rules.family import FamilyGame
from terrace.rules.game import Game, Move
from terrace.rules.louis import LouisGame

from ..errors import IllegalMove
from .decide import Table, prove
from .family import FamilyAdapter
from .louis import LouisAdapter
from .search import LOST, UNKNOWN, WON, Adapter, Solution, search

__all__ = [
    "LOST",
    "NODES",
    "UNKNOWN",
    "WON",
    "Solution",
    "check_line",
    "decided",
    "first_choices",
    "playout",
    "solve",
]

NODES = 200_000  # default budget: positions visited


def adapter_for(game: Game, hasty: bool = False) -> Adapter:
    if isinstance(game, FamilyGame):
        return FamilyAdapter(game, hasty=hasty)
    if isinstance(game, LouisGame):
        return LouisAdapter(game)
    raise TypeError(f"no solver for {type(game).__name__}")


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


# Stages. The complete search first, with a small share of the budget: it is the
# only one that can prove "lost", and small positions (endgames) are decided
# there at once. Then limited discrepancy searches (hasty: pile moves only when
# they free something) with 0 and 1 discrepancies (more for Louis and signora); then, until the budget is
# spent, dives that follow the hasty order but now and then swap a first choice
# for one of the next (seeded: the answer stays deterministic for a node budget).
# Measured on deals 1..50 at 60,000 positions: the dives find wins that need
# many small departures from the first choice, where two or three discrepancies
# would cost more than the whole budget (terrace 43 of 50 against 41 with
# discrepancies up to 8).
COMPLETE_SHARE = 0.05
MAX_DISCREPANCIES = 1
# Louis and signora (whose second pass is a different game) do better with the
# discrepancy searches carried further before the dives: Louis deals 1..40 at
# 40,000 positions, 31 won against 26; signora deals 1..100, 2 against 1.
DEEP_DISCREPANCIES = 8
SHAKE_CHANCES = (0.1, 0.2)  # dives alternate: a few swaps, more swaps
SHAKE_REACH = 2  # a first choice is swapped with one of the next two


class Shaken:
    """An adapter whose first choice is now and then swapped with one of the next few."""

    def __init__(self, inner: Adapter, rng: random.Random, chance: float, reach: int) -> None:
        self.inner = inner
        self.rng = rng
        self.chance = chance
        self.reach = reach
        self.play, self.undo, self.key, self.won = inner.play, inner.undo, inner.key, inner.won

    def moves(self, game: Game) -> list[Move]:
        moves = self.inner.moves(game)
        rng = self.rng
        n = len(moves)
        if n > 1:
            for i in range(min(n - 1, self.reach)):
                if rng.random() < self.chance:
                    j = i + 1 + rng.randrange(min(n - i - 1, self.reach))
                    moves[i], moves[j] = moves[j], moves[i]
        return moves


def _staged(game: Game, nodes: int, seconds: float | None, clock: Callable[[], float]) -> Solution:
    # the complete search first, briefly: small positions are decided there, lost or won
    share = None if seconds is None else seconds * COMPLETE_SHARE
    first = search(game, adapter_for(game), max(1, int(nodes * COMPLETE_SHARE)), share, clock)
    if first.verdict != UNKNOWN:
        return first
    rest = _hasty(
        game, nodes - first.nodes, None if seconds is None else seconds - first.seconds, clock, frozenset()
    )
    return Solution(rest.verdict, rest.moves, first.nodes + rest.nodes, first.seconds + rest.seconds)


def _hasty(
    game: Game, nodes: int, seconds: float | None, clock: Callable[[], float], lost: AbstractSet[bytes]
) -> Solution:
    """The win-finder's stages (limited discrepancy searches, then shaken dives) within the budget,
    skipping positions in ``lost``: ``won`` or ``unknown``."""
    spent_nodes, spent_time = 0, 0.0
    rng = random.Random(0)
    limit = 0
    dives = 0
    deep = isinstance(game, LouisGame) or (isinstance(game, FamilyGame) and game.variant.recycles > 0)
    max_discrepancies = DEEP_DISCREPANCIES if deep else MAX_DISCREPANCIES
    while True:
        stage_nodes = nodes - spent_nodes
        stage_time = None if seconds is None else seconds - spent_time
        if stage_nodes < 1 or (stage_time is not None and stage_time <= 0):
            break
        if limit <= max_discrepancies:
            answer = search(
                game, adapter_for(game, True), stage_nodes, stage_time, clock, discrepancies=limit, lost=lost
            )
            limit += 1
        else:
            chance = SHAKE_CHANCES[dives % len(SHAKE_CHANCES)]
            dives += 1
            shaken = Shaken(adapter_for(game, True), rng, chance, SHAKE_REACH)
            answer = search(game, shaken, stage_nodes, stage_time, clock, discrepancies=0, lost=lost)
        spent_nodes += answer.nodes
        spent_time += answer.seconds
        if answer.verdict == WON:
            return Solution(WON, answer.moves, spent_nodes, spent_time)
    return Solution(UNKNOWN, (), spent_nodes, spent_time)


# The decider's rounds (terrace.solve.decide): shares of the budget for a first complete
# search, then the win-finder, then a complete search with the rest (starting from the table
# of positions the first proved lost).
DECIDE_SHARES = (0.1, 0.4)


def decided(
    game: Game,
    *,
    nodes: int = NODES,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    table: Table | None = None,
) -> Solution:
    """:func:`terrace.solve.decide.decide` in :class:`Solution`'s words (won, lost, unknown):
    the complete search and the win-finder in turn, aiming at a verdict either way."""
    if nodes < 1:
        raise ValueError("the node budget must be at least 1")
    table = Table() if table is None else table
    spent_nodes, spent_time = 0, 0.0
    rounds = (*DECIDE_SHARES, 1.0 - sum(DECIDE_SHARES))
    for n, share in enumerate(rounds):
        last = n == len(rounds) - 1
        stage_nodes = nodes - spent_nodes if last else max(1, int(nodes * share))
        stage_time = None if seconds is None else (seconds - spent_time if last else seconds * share)
        if stage_nodes < 1 or (stage_time is not None and stage_time <= 0):
            break
        if n % 2 == 0:
            answer = prove(game, adapter_for(game), stage_nodes, table, stage_time, clock)
        else:
            answer = _hasty(game, stage_nodes, stage_time, clock, table.lost)
        spent_nodes += answer.nodes
        spent_time += answer.seconds
        if answer.verdict != UNKNOWN:
            if answer.verdict == WON and not check_line(game, answer.moves):
                raise AssertionError("the solver's line does not replay to a won game")  # a bug
            return Solution(answer.verdict, answer.moves, spent_nodes, spent_time)
    return Solution(UNKNOWN, (), spent_nodes, spent_time)


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


def check_line(game: Game, moves: tuple[str, ...] | list[str]) -> bool:
    """Whether ``moves`` played from ``game``'s position (not changed) are legal and win."""
    g = game.copy()
    try:
        for move in moves:
            g.play(move)
    except IllegalMove:
        return False
    return g.won()
