"""The solver's stages, shared by :func:`terrace.solve.solve` and the decider: the adapter for
a game, the win-finder (limited discrepancy searches, then shaken dives; for signora a beam
search over the stock's cards before them, ``signora.py``) and the check of a line."""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from terrace.rules.family import FamilyGame
from terrace.rules.game import Game, Move
from terrace.rules.louis import LouisGame

from ..errors import IllegalMove
from .family import FamilyAdapter
from .louis import LouisAdapter
from .search import UNKNOWN, WON, Adapter, Solution, search
from .signora import find_signora_win


def adapter_for(game: Game, hasty: bool = False) -> Adapter:
    if isinstance(game, FamilyGame):
        return FamilyAdapter(game, hasty=hasty)
    if isinstance(game, LouisGame):
        return LouisAdapter(game)
    raise TypeError(f"no solver for {type(game).__name__}")


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
        self.dead = getattr(inner, "dead", None)

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


def find_win(
    game: Game, nodes: int, seconds: float | None, clock: Callable[[], float], lost: AbstractSet[bytes]
) -> Solution:
    """The win-finder's stages (limited discrepancy searches, then shaken dives) within the budget,
    skipping positions in ``lost``: ``won`` or ``unknown``."""
    spent_nodes, spent_time = 0, 0.0
    if isinstance(game, FamilyGame) and game.variant.recycles > 0:
        # signora: the beams over the stock's cards first (signora.py). What they leave goes to
        # the stages below only when it is more than they spent: less finds nothing they missed
        # (deals 1-20 at 40,000 positions), and a winnable draw does better on its next seed.
        beam = find_signora_win(game, nodes, seconds, clock, lost)
        if beam.verdict == WON or nodes - beam.nodes <= beam.nodes:
            return beam
        spent_nodes, spent_time = beam.nodes, beam.seconds
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


def check_line(game: Game, moves: tuple[str, ...] | list[str]) -> bool:
    """Whether ``moves`` played from ``game``'s position (not changed) are legal and win."""
    g = game.copy()
    try:
        for move in moves:
            g.play(move)
    except IllegalMove:
        return False
    return g.won()
