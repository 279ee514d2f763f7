"""The planner bot: the greedy bot, plus sampling for the base and a search to free the terrace.

It sees only the view and the legal moves, never the deal:

- The base is chosen by flat Monte Carlo over determinizations: the unseen cards
  are shuffled a few times (``terrace.imagine.unseen``), each candidate base is
  played out with a quick greedy policy on the very same guessed deals
  (``terrace.imagine.imagine``), and the base with the best total wins.
- Before each move it runs a best-first search over the visible cards (every
  move but the stock's, so nothing hidden comes into play; queen-of-italy's gap
  fill is a leaf) for a sequence of moves that sends a terrace card home, and
  plays it. Measured: searching for any card home (not only terrace cards)
  raised the score but *lowered* the win rate, since it spends gaps and packs
  eagerly.
- Otherwise it plays as :class:`GreedyBot`. Louis is played as greedy.

Its random numbers are seeded from the race id, so the same views give the same moves.
"""

from __future__ import annotations

import heapq
import random
from typing import Any

from bots.bot import View
from bots.samples.greedy import GreedyBot, split
from terrace import Game
from terrace.imagine import board, imagine, unseen

NODES = 300  # positions searched per move at most
SAMPLES = 6  # guessed deals per candidate base
PLAYOUT_CAP = 1500  # moves per base playout


class PlannerBot(GreedyBot):
    name = "planner"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)
        self.plan: list[tuple[str, View]] = []  # moves still to play, each with the board it leads to

    def start(self, race: dict[str, Any]) -> None:
        self.rng.seed(f"planner:{race.get('race')}")

    def pick(self, view: View, legal: list[str]) -> str | None:
        if view["variant"] == "louis":
            return super().pick(view, legal)
        if view["phase"] == "choose-base":
            return self.choose_base(view, legal)
        seen = {k: v for k, v in view.items() if k not in ("status", "moves")}
        if self.plan and self.plan[0][1] == seen:  # the last move went as foreseen
            self.plan.pop(0)
        else:
            self.plan = []
        if not self.plan:
            self.plan = self.search(view, seen)
        if self.plan and self.plan[0][0] in legal:
            return self.plan[0][0]
        self.plan = []
        return super().pick(view, legal)

    def search(self, view: View, root_board: View) -> list[tuple[str, View]]:
        """Best-first over the non-stock moves for a path that sends a terrace card home.

        Returns the path to the best such position (most cards home), [] if there is none.
        """
        terrace_left = view["terrace_left"]
        best_value = 0.0
        best_path: list[tuple[str, View]] = []
        seen = {_key(root_board)}
        frontier: list[tuple[float, int, Game, list[tuple[str, View]]]] = [
            (0.0, 0, imagine(view, unseen(view)), [])
        ]
        tick = 0
        while frontier and tick < NODES:
            _, _, game, path = heapq.heappop(frontier)
            for move in sorted(game.legal_moves()):
                src, dst = split(move)
                if src == "S" or dst == "S" or (path and split(path[-1][0]) == (dst, src)):
                    continue
                child = game.copy()
                child.play(move)
                cboard = board(child)
                key = _key(cboard)
                if key in seen:
                    continue
                seen.add(key)
                tick += 1
                value = 100.0 * cboard["score"] - 30.0 * cboard["terrace_left"]
                cpath = [*path, (move, cboard)]
                if cboard["terrace_left"] < terrace_left and (not best_path or value > best_value):
                    best_value, best_path = value, cpath
                if cboard["stock"] == view["stock"]:  # else a gap took a guessed stock card: a leaf
                    heapq.heappush(frontier, (-value, tick, child, cpath))
        return best_path

    def choose_base(self, view: View, legal: list[str]) -> str:
        cards = unseen(view)
        orders = []
        for _ in range(SAMPLES):
            self.rng.shuffle(cards)
            orders.append(list(cards))
        best, best_value = "", -1.0
        for move in sorted(legal):
            value = 0.0
            for order in orders:  # the same guessed deals for every base: a fairer comparison
                game = imagine(view, order)
                game.play(move)
                value += _playout(game)
            if value > best_value:
                best, best_value = move, value
        return best


def _key(b: View) -> str:
    """Positions that differ only by which pile is which are one position."""
    return repr([b["terrace"], b["waste"], sorted(b["piles"].values()), b["foundations"]])


def _playout(game: Game) -> float:
    """A quick greedy game on a guessed deal: its score, plus a bonus for a cleared terrace."""
    last = ""
    for _ in range(PLAYOUT_CAP):
        if game.status != "playing":
            break
        legal = game.legal_moves()
        homes = [m for m in legal if split(m)[1].startswith("F")]
        if homes:
            move = min(homes, key=lambda m: "TW".find(m[0]) % 3)  # terrace, waste, then piles
        else:
            back = "-".join(reversed(split(last)))
            packs = [m for m in legal if m[0] in "TW" and m != back]
            move = packs[0] if packs else next((m for m in ("S-W", "W-S") if m in legal), "")
        if not move:
            break
        game.play(move)
        last = move
    return game.score + (30.0 if game.terrace_left == 0 else 0.0)
