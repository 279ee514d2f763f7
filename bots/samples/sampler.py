"""The sampler bot: determinized search with the solver, from the view alone.

It never sees the deal. At each choice it:

1. asks the solver which moves are worth trying here
   (``terrace.solve.first_choices``: that depends only on what the view shows); a
   safe move, a terrace card going home, or a lone move is played at once;
2. guesses the stock's order (``terrace.solve.imagine``: the unseen cards, shuffled),
   the same guesses for every candidate;
3. plays its four best candidates on every guess and lets the solver's first line
   (``terrace.solve.playout``, a greedy dive that knows the guessed stock) play
   the game out; a won playout counts 1000, any other its cards home less two for
   each card left in the terrace;
4. shares its playouts out in rounds (after sequential halving): every candidate
   on four guesses, then the better two on eight new ones. When the first round's
   playouts cannot tell the candidates apart (the same result on every guess) or
   one leads by ``MARGIN`` (two won playouts more, and then some), it stops there,
   so the playouts go to close choices;
5. plays the candidate with the best total, never one that brings back a position
   it has already stood in. The base is chosen alike: every base on six guesses.

What it remembers is what it saw: signora's second pass through the stock is the
waste it turned over, and Louis's later deals deal the heaps it gathered, in the
gathering order; then it plays with the true order instead of guesses. Once the
stock's order is known that way, or the stock is empty, the rest of the game
hides nothing, so it asks the decider itself (``terrace.solve.decided``, a node
budget, one table of positions proven lost kept for the game) for a winning line
and plays it; when it finds none within the budget the bot keeps sampling and asks
again after a few more cards are home, and once it proves the game lost it asks no more. Its
random numbers are seeded from the race id, so the same views give the same moves.
"""

from __future__ import annotations

import random
from typing import Any

from bots.bot import Bot, View
from terrace.rules.louis import GATHER_ORDER, PLACE_NAMES
from terrace.solve import decided, first_choices, playout
from terrace.solve.decide import Table
from terrace.solve.imagine import board, imagine, reshuffled, unseen

FIRST_ROUND = 4  # guessed stocks for every candidate at a choice
LAST_ROUND = 8  # new guesses for the last two candidates (each round doubles, up to this)
BASE_SAMPLES = 6  # guessed stocks per candidate base
CANDIDATES = 4  # moves compared at one choice, best first by the solver's order
STEPS = 300  # moves per playout: to the end of the game, nearly always
BASE_STEPS = 300  # the base decides the whole game: play it out to the end
WIN = 1000.0
TERRACE = 2.0  # a card left in the terrace counts against a playout (it blocks the win)
MARGIN = 2 * WIN  # a candidate this far ahead after a round is played at once (two wins more, and then some)
SOLVE_NODES = 15_000  # the solver's budget once the stock's order is known (deterministic: no clock)
RESOLVE_EVERY = 8  # cards home between two such solves when one found no win


class SamplerBot(Bot):
    name = "sampler"
    first_round = FIRST_ROUND
    last_round = LAST_ROUND
    margin = MARGIN
    base_samples = BASE_SAMPLES
    candidates = CANDIDATES

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.rules_version: int | None = None
        self.known: list[str] = []  # a second pass's stock, in dealing order, once it is known
        self.been: set[str] = set()  # positions stood in
        self.line: list[str] = []  # a winning line the solver found once the stock's order was known
        self.solved_at = -1  # cards home when the solver last looked at a known stock
        self.table = Table()  # positions the decider proved lost in this game (the stock it knew)

    def start(self, race: dict[str, Any]) -> None:
        self.table = Table()
        self.rng.seed(f"sampler:{race.get('race')}")
        version = race.get("rules_version")
        self.rules_version = version if isinstance(version, int) else None

    def choose(self, view: View, legal: list[str]) -> str | None:
        here = _key(view)
        self.been.add(here)
        move = self.pick(view, legal)
        if move == "W-S":  # signora: the waste, first card first, is the next pass
            self.known = list(view["waste"])
        elif move == "redeal":  # Louis: the heaps, gathered in order, are the next deal
            self.known = [c for h in GATHER_ORDER for c in view["heaps"][PLACE_NAMES[h]]]
        return move

    def exact(self, view: View) -> list[str] | None:
        """The stock's order when this bot knows it (nothing unseen, or a pass it watched)."""
        stock = view["stock"]
        second = view.get("recycles_left") == 0 or view.get("deal", 1) > 1
        if self.known and second and stock <= len(self.known):
            return self.known[len(self.known) - stock :]
        cards = unseen(view)
        return [] if not cards else None

    def solved(self, view: View, legal: list[str]) -> str | None:
        """Once the stock's order is known the rest of the game hides nothing: the solver's
        winning line, if it finds one within its budget (it looks again every few cards home)."""
        if self.line and self.line[0] in legal:
            return self.line.pop(0)
        self.line = []
        if view.get("phase") == "choose-base" or view["score"] < self.solved_at + RESOLVE_EVERY:
            return None
        order = self.exact(view)
        if order is None:
            return None
        self.solved_at = view["score"]
        s = decided(self.imagine(view, order), nodes=SOLVE_NODES, table=self.table)
        if s.verdict == "lost":
            self.solved_at = 105  # proven: no later look can find a win
        if s.verdict != "won" or not s.moves or s.moves[0] not in legal:
            return None
        self.line = list(s.moves[1:])
        return s.moves[0]

    def guesses(self, view: View, own: Any, k: int) -> list[Any]:
        """``k`` games in the view's position, each with its own guess at the stock (``own``
        is the view imagined once); the one true game when this bot knows the stock's order."""
        known = self.exact(view)
        if known is not None:
            return [self.imagine(view, known)]
        return [reshuffled(own, self.rng) for _ in range(k)]

    def orders(self, view: View, k: int) -> list[list[str]]:
        known = self.exact(view)
        if known is not None:
            return [known]
        cards = unseen(view)
        out = []
        for _ in range(k):
            self.rng.shuffle(cards)
            out.append(list(cards))
        return out

    def imagine(self, view: View, order: list[str]) -> Any:
        if self.rules_version is None:
            return imagine(view, order)
        return imagine(view, order, rules_version=self.rules_version)

    def pick(self, view: View, legal: list[str]) -> str | None:
        if not legal:
            return None
        line = self.solved(view, legal)
        if line is not None:
            return line
        own = self.imagine(view, unseen(view))
        options = [m for m in first_choices(own) if m in legal]
        if not options:
            return sorted(legal)[0]
        if len(options) == 1:
            return options[0]
        if view.get("phase") == "choose-base":
            return self.pick_base(view, own, options)
        known = self.exact(view)
        here = own if known is None else self.imagine(view, known)
        fresh = [m for m in options if not self.returns(here, m)]
        return self.compare((fresh or options)[: self.candidates], view, own)

    def pick_base(self, view: View, own: Any, options: list[str]) -> str:
        """Every base on the same guesses, played out to the end: the base decides the whole game."""
        games = self.guesses(view, own, self.base_samples)
        fresh = [m for m in options if not self.returns(games[0], m)]
        best, best_value = (fresh or options)[0], -1.0
        for move in fresh:
            value = sum(self.value(game, move, BASE_STEPS) for game in games)
            if value > best_value:
                best, best_value = move, value
        return best

    def compare(self, moves: list[str], view: View, own: Any) -> str:
        """The best of ``moves``, by playouts on guessed stocks (the same guesses for every move).

        Rounds, in the manner of sequential halving: every move on ``first_round``
        guesses, then the better half on more guesses, and so on, until one move is
        left; a round whose playouts cannot tell the moves apart, or where one move
        leads by far, ends the comparison early (the budget goes to close choices).
        """
        if len(moves) == 1:
            return moves[0]
        totals = dict.fromkeys(moves, 0.0)
        alive = list(moves)
        guesses = self.first_round
        while True:
            games = self.guesses(view, own, guesses)
            rows = {m: [self.value(g, m, STEPS) for g in games] for m in alive}
            for m in alive:
                totals[m] += sum(rows[m])
            alive.sort(key=lambda m: -totals[m])  # stable: ties keep the solver's order
            if len(games) == 1:  # the stock's order is known: one playout says it all
                return alive[0]
            first, second = alive[0], alive[1]
            if all(rows[m] == rows[first] for m in alive):
                return first  # nothing to tell them apart on these guesses
            if totals[first] - totals[second] >= self.margin:
                return first
            if len(alive) <= 2 and guesses >= self.last_round:
                return first
            alive = alive[: max(2, len(alive) // 2)]
            guesses = min(guesses * 2, self.last_round)

    def value(self, game: Any, move: str, steps: int) -> float:
        """One playout of ``move`` on a guessed game: a win counts ``WIN``, else cards home
        less a few for each card left in the terrace."""
        g = game.copy()
        g.play(move)
        end = playout(g, steps)
        return WIN if end.won() else end.score - TERRACE * end.terrace_left

    def returns(self, game: Any, move: str) -> bool:
        """Whether ``move`` leads back to a position this bot has stood in (a loop)."""
        g = game.copy()
        g.play(move)
        return _key(board(g)) in self.been


def _key(view: View) -> str:
    """The position as seen, without the move count and status."""
    return repr(sorted((k, v) for k, v in view.items() if k not in ("moves", "status")))
