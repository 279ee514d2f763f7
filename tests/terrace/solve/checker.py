"""An exhaustive checker for the decider's verdicts (tests only): no reductions, no keys of the solver.

Every position reachable from a game by the engine's own legal moves, in its own notation
(``legal_moves`` and ``play`` on copies), each kept once by the engine's whole position
(``snapshot``: every card of every place, the stock's order included, and the engine's other
state). A won position among them makes the game winnable; none, lost. Small positions only:
past ``limit`` positions it gives up (None).
"""

from __future__ import annotations

from terrace.rules.game import Game


def winnable(game: Game, limit: int = 20_000) -> bool | None:
    """Whether any sequence of legal moves from ``game`` (not changed) wins it; None past ``limit``."""
    start = game.copy()
    seen = {repr(start.snapshot())}
    todo = [start]
    while todo:
        g = todo.pop()
        if g.won():
            return True
        for move in g.legal_moves():
            h = g.copy()
            h.play(move)
            key = repr(h.snapshot())
            if key not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(key)
                todo.append(h)
    return False
