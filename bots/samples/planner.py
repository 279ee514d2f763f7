"""The planner bot: the greedy bot's moves, weighed by determinized rollouts.

It sees only the view and the legal moves, never the deal:

- Determinization: the stock's order is unknown, so the planner guesses it a few
  times by shuffling the unseen cards (``terrace.solve.imagine.unseen``) and builds an
  engine game for each guess (``terrace.solve.imagine.imagine``). In signora, after
  the recycle, the stock is the first pass's waste, which the planner saw and
  remembers: it then plays with the true order (memory, not hidden state).
- Decisions: when the legal moves offer genuinely different choices (packing
  the waste, moving between piles, turning the stock, which card goes home),
  each candidate is played on every guessed deal (the same guesses for every
  candidate) and followed by a fast greedy rollout on the engine; the candidate
  with the best total (cards home, plus a bonus for a cleared terrace) is played.
  Forced and dominant moves (a single choice, the terrace top going home) are
  played at once.
- A best-first search over the visible cards (every move but the stock's, so
  nothing hidden comes into play) looks for a sequence that sends a terrace
  card home, and plays it (not in signora, where the time goes to the rollouts).
- The base is chosen by the same rollouts. Louis is played as greedy.

Its random numbers are seeded from the race id, so the same views give the same moves.
"""

from __future__ import annotations

import heapq
import random
from typing import Any

from bots.bot import View
from bots.samples.greedy import GreedyBot, split
from terrace import Game
from terrace.rules.family import F1, PLACE_NAMES, S, T, W
from terrace.solve.imagine import board, imagine, unseen

NODES = 200  # positions searched per move at most
SAMPLES = 4  # guessed deals per decision
BASE_SAMPLES = 8  # guessed deals per candidate base
ROLLOUT_CAP = 250  # moves per rollout
IDLE_CAP = 6  # shuffle moves a rollout allows between two progress moves
MAX_CANDIDATES = 4
INDEX = {name: i for i, name in enumerate(PLACE_NAMES)}


class PlannerBot(GreedyBot):
    name = "planner"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)
        self.plan: list[tuple[str, View]] = []  # moves still to play, each with the board it leads to
        self.second_pass: list[str] = []  # signora: the stock's order after the recycle (seen as the waste)

    def start(self, race: dict[str, Any]) -> None:
        self.rng.seed(f"planner:{race.get('race')}")

    def choose(self, view: View, legal: list[str]) -> str | None:
        move = super().choose(view, legal)
        if move == "W-S":
            self.second_pass = list(view["waste"])  # dealt again first to last
        return move

    def pick(self, view: View, legal: list[str]) -> str | None:
        if view["variant"] == "louis":
            return super().pick(view, legal)
        if view["phase"] == "choose-base":
            return self.best_of(view, sorted(legal), BASE_SAMPLES)
        seen = {k: v for k, v in view.items() if k not in ("status", "moves")}
        if self.plan and self.plan[0][1] == seen:  # the last move went as foreseen
            self.plan.pop(0)
        else:
            self.plan = []
        if not self.plan and view["variant"] != "signora":  # signora's budget goes to rollouts
            self.plan = self.search(view, seen)
        if self.plan and self.plan[0][0] in legal:
            return self.plan[0][0]
        self.plan = []
        greedy = super().pick(view, legal)
        if greedy is None or greedy.startswith("T-F"):
            return greedy
        options = self.candidates(view, legal, greedy)
        return greedy if len(options) < 2 else self.best_of(view, options, SAMPLES)

    def candidates(self, view: View, legal: list[str], greedy: str) -> list[str]:
        """The moves worth comparing: one per source going home, packing, gaps, the stock."""
        out = [greedy]
        gap_seen: set[str] = set()
        for m in sorted(legal, key=lambda m: ("TW".find(m[0]) % 3, m)):
            src, dst = split(m)
            if m in out or "-".join((dst, src)) == self.last:
                continue
            if dst.startswith("F"):
                if any(o.startswith(src + "-F") for o in out):
                    continue  # foundations that accept a card are alike
            elif dst not in ("W", "S") and src != "S" and not view["piles"][dst]:
                if src in gap_seen:
                    continue  # gaps are alike
                gap_seen.add(src)
            out.append(m)
        return out[:MAX_CANDIDATES] + [m for m in out[MAX_CANDIDATES:] if m[0] == "S" or m == "W-S"]

    def orders(self, view: View, k: int) -> list[list[str]]:
        stock = view["stock"]
        if self.second_pass and view["recycles_left"] == 0:
            return [self.second_pass[len(self.second_pass) - stock :]]
        cards = unseen(view)
        out = []
        for _ in range(k):
            self.rng.shuffle(cards)
            out.append(list(cards))
        return out

    def best_of(self, view: View, options: list[str], k: int) -> str:
        games = [imagine(view, order) for order in self.orders(view, k)]
        best, best_value = options[0], -1.0
        for move in options:
            value = 0.0
            for game in games:  # the same guessed deals for every move: a fairer comparison
                g = game.copy()
                g.play(move)
                value += _rollout(g, (INDEX[split(move)[0]], INDEX[split(move)[1]]))
            if value > best_value:
                best, best_value = move, value
        return best

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


def _key(b: View) -> str:
    """Positions that differ only by which pile is which are one position."""
    return repr([b["terrace"], b["waste"], sorted(b["piles"].values()), b["foundations"]])


def _rollout(game: Game, back: tuple[int, int]) -> float:
    """A fast greedy game on a guessed deal, on the engine's own move pairs (no names, no
    status, no views): its score, plus a bonus for a cleared terrace."""
    p = game.places
    idle = 0
    for _ in range(ROLLOUT_CAP):
        best, rank = back, 9
        for move in game.legal_pairs():
            src, dst = move
            if dst >= F1:
                r = min(src, 2)  # the terrace top, the waste, then the piles
            elif src == S or dst == S:
                r = 6 if src == S else 7
            elif idle > IDLE_CAP or (dst, src) == back:
                continue
            elif src in (T, W):
                if not (p[dst] or len(p[W]) > 1):
                    continue
                r = 3
            elif p[dst] and len(p[src]) == 1 and p[W]:
                r = 4  # a gap for the waste
            else:
                continue
            if r < rank:
                best, rank = move, r
        if rank == 9:
            break
        game.advance(best)
        idle = 0 if rank in (0, 1, 2, 6, 7) else idle + 1
        back = best
    game.touched()
    return game.score + (20.0 if not p[T] else 0.0)
