"""Where was it lost: one player's finished game looked at again with the stock known.

    >>> from terrace.solve.hindsight import analyse_game
    >>> h = analyse_game("terrace", 2, [], nodes=5_000)
    >>> h.deal, h.last_winnable, h.losing_move
    ('won', 0, None)

This is hindsight: the solver (:func:`terrace.solve.solve`) sees the stock, which
no player did. Along a player's moves the positions are ``P0`` (the deal) to
``Pn`` (after ``n`` moves). Winnable is monotone along them: a position is
winnable when any later one of the same game is, and lost when any earlier one
is. So the game splits into winnable positions, then lost ones, and the move
between the last winnable and the first lost position is the one that lost it.

The decider (:func:`terrace.solve.decided`) is asked about a few positions: the
end, then each position before it while they are proven lost (one table of
positions proven lost serves every question: they are one game's positions, one
stock), then the deal and halves of what is still open, below an undecided
position first; each question within ``nodes`` positions, the game within
``nodes * probes``. Each answer is proven or "unknown" (the budget ran
out): a won answer carries a winning line (replayed on the engine before it is
believed), a lost answer is a complete search. A position the player reached by
following a line the solver found is winnable without asking. The result
claims only what was proven: the losing move is named only when the position
before it was proven winnable and the one after it proven lost; otherwise the
undecided moves lie between :attr:`Hindsight.last_winnable` and
:attr:`Hindsight.first_lost`.

"Won" means the game won (every card home), whatever the race's goal. The
analysis depends only on the deal, the moves and the budget (no clock), so the
same game always gets the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from terrace.rules.deal import Deal
from terrace.rules.game import Game
from terrace.rules.replay import new_game, replay
from terrace.rules.versions import RULES_VERSION

from . import LOST, UNKNOWN, WON, Solution, check_line, decided
from .decide import Table

NODES = 40_000  # positions searched per question: about a second of one core
PROBES = 12  # a game's budget, in questions' worth of positions (NODES * PROBES in all)


@dataclass(frozen=True)
class Hindsight:
    """One player's game seen with the stock known.

    ``moves``: how many moves the player made. ``deal``: whether the deal was
    winnable from its start (``won``: proven by a line; ``lost``: proven none
    wins; ``unknown``). ``last_winnable``: the latest position proven winnable,
    as a count of the player's moves (0 is the deal; ``moves`` when the game
    ended still winnable or won); None when none was proven. ``first_lost``: the
    earliest position proven lost, counted the same way, or None.
    ``losing_move``: the 0-based index in the move list of the move that lost
    the game (``last_winnable``, when ``first_lost`` is the next position), or
    None when no move lost it or it was not proven which. ``continuation``: a
    winning line (canonical moves) from the ``last_winnable`` position, empty when
    the game was won. ``won``: the player won. ``nodes``: positions searched in
    all; ``probes``: positions asked about.
    """

    moves: int
    deal: str
    last_winnable: int | None
    first_lost: int | None
    losing_move: int | None
    continuation: tuple[str, ...]
    won: bool
    nodes: int
    probes: int

    @property
    def verdict(self) -> str:
        """In one word: ``won``, ``lost_by_move`` (the move is known), ``stopped_winnable`` (the game
        ended with a win still possible: resigned, out of time), ``lost_from_deal`` (the deal was
        proven lost) or ``unknown`` (the budget did not decide where)."""
        if self.won:
            return "won"
        if self.losing_move is not None:
            return "lost_by_move"
        if self.last_winnable == self.moves:
            return "stopped_winnable"
        if self.first_lost == 0:
            return "lost_from_deal"
        return UNKNOWN

    def describe(self) -> str:
        """One plain sentence for people (:func:`sentence`, capitalised)."""
        said = sentence(self.to_dict())
        return said[0].upper() + said[1:]

    def __repr__(self) -> str:
        shown = " ".join(self.continuation[:4]) + (" ..." if len(self.continuation) > 4 else "")
        return (
            f"Hindsight({self.verdict}: moves={self.moves}, deal={self.deal}, "
            f"last_winnable={self.last_winnable}, first_lost={self.first_lost}, "
            f"losing_move={self.losing_move}, continuation=<{len(self.continuation)} moves: {shown}>, "
            f"nodes={self.nodes}, probes={self.probes})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The analysis as protocol data (``analysis`` answers, PROTOCOL.md)."""
        return {
            "moves": self.moves,
            "deal": self.deal,
            "verdict": self.verdict,
            "last_winnable": self.last_winnable,
            "first_lost": self.first_lost,
            "losing_move": self.losing_move,
            "continuation": list(self.continuation),
            "nodes": self.nodes,
            "probes": self.probes,
        }


def sentence(game: Mapping[str, Any]) -> str:
    """What one game's analysis (``Hindsight.to_dict()``, the protocol's form) says, in
    words for people, claiming nothing it did not prove. The web page's hindsight.js
    says the same in JavaScript."""
    verdict, lw, fl = game.get("verdict"), game.get("last_winnable"), game.get("first_lost")
    if verdict == "won":
        return "won."
    if verdict == "lost_by_move":
        return f"move {int(game['losing_move']) + 1} lost it (proven): the game was winnable before it and not after."
    if verdict == "stopped_winnable":
        return "still winnable when the game ended: no move lost it."
    if verdict == "lost_from_deal":
        return "the deal was lost from the start: no line wins it."
    if lw is None:
        return "undecided: no position of this game was proven winnable within the budget."
    if fl is not None:
        return (
            f"winnable after move {lw} and lost after move {fl}: one of moves {lw + 1} to {fl} "
            "lost it (which one is undecided within the budget)."
        )
    return (
        f"winnable after move {lw}; nothing later was proven, so whether a later move lost "
        "the game is undecided within the budget."
    )


class Plan:
    """Which positions of one game to ask the solver about, and what the answers prove.

    Sans-I/O: :meth:`next` names a position (a count of the player's moves) to solve,
    :meth:`tell` takes the solver's answer for it, :meth:`result` says what was proven.
    :func:`analyse_game` drives it in one call; the server drives it one solve at a time
    in its worker processes. The end of the game is asked about first (a won game is
    known at once), then the deal, then the middle of what is still open, below any
    undecided position first: that pins the last position proven winnable.
    """

    def __init__(self, moves: Sequence[str], probes: int = PROBES) -> None:
        if probes < 1:
            raise ValueError("the budgets must be at least 1")
        self.moves = list(moves)
        self.probes = probes
        self.lines: dict[int, tuple[str, ...]] = {}  # position -> a winning line from it
        self.lost: set[int] = set()
        self.unknown: set[int] = set()
        self.spent = 0
        self.asked = 0

    def next(self) -> int | None:
        """The next position to solve, or None when the plan is done."""
        n = len(self.moves)
        if self.asked >= self.probes or n in self.lines:  # out of questions, or ended winnable
            return None
        for k in (n, 0):
            if k not in self.lines and k not in self.lost and k not in self.unknown:
                return k
        low = max(self.lines, default=-1)
        high = min(self.lost, default=n + 1)
        # An undecided position is most likely lost (the solver finds most wins quickly; a proof
        # of loss must see everything): look for the last winnable position below it first.
        soft = min((k for k in self.unknown if k > low), default=high)
        below = [k for k in range(low + 1, min(soft, high)) if k not in self.unknown]
        if below:
            return below[len(below) // 2]
        rest = [k for k in range(low + 1, high) if k not in self.unknown]  # then proofs of loss
        return rest[len(rest) // 2] if rest else None

    def tell(self, k: int, answer: Solution) -> None:
        """The solver's answer for position ``k``."""
        n = len(self.moves)
        self.spent += answer.nodes
        self.asked += 1
        if answer.verdict == WON:
            # the player's next moves may follow the line: those positions are winnable too
            line, j = answer.moves, 0
            while k + j < n and j < len(line) and self.moves[k + j] == line[j]:
                self.lines[k + j] = line[j:]
                j += 1
            self.lines[k + j] = line[j:]
        elif answer.verdict == LOST:
            self.lost.add(k)
        else:
            self.unknown.add(k)

    def result(self) -> Hindsight:
        n = len(self.moves)
        lo = max(self.lines) if self.lines else None
        hi = min(self.lost) if self.lost else None
        # a proof on each side of a position would be a solver bug: never report it
        assert lo is None or hi is None or lo < hi, (lo, hi)
        won = lo == n and self.lines[n] == ()  # the game ended won: nothing left to play
        deal_verdict = WON if lo is not None else LOST if hi == 0 else UNKNOWN
        losing = lo if lo is not None and hi == lo + 1 else None
        continuation = self.lines[lo] if lo is not None else ()
        return Hindsight(n, deal_verdict, lo, hi, losing, continuation, won, self.spent, self.asked)


def analyse_game(
    variant: str,
    deal: Deal,
    moves: Sequence[str],
    *,
    rules_version: int = RULES_VERSION,
    nodes: int = NODES,
    probes: int = PROBES,
) -> Hindsight:
    """Analyse the game of ``moves`` played on ``deal`` (see the module docstring) with the
    decider (:func:`terrace.solve.decided`): at most ``nodes`` positions per question and
    ``nodes * probes`` for the whole game.

    The questions share one table of positions proven lost (they are positions of one game,
    one stock), so walking back from the end costs each position only what is new in it: the
    end is asked first, then each position before it while they are proven lost (a position
    left undecided is asked once more with half of what is left); then the deal and halves of
    what is still open, as :class:`Plan` chooses, looking for the last winnable position.

    ``moves`` must replay (a record that passed its audit); a move that does not
    raises :class:`~terrace.errors.ReplayError`.
    """
    if nodes < 1 or probes < 1:
        raise ValueError("the budgets must be at least 1")
    budget = nodes * probes
    plan = Plan(moves, budget)  # at most one question per position of the budget: never the limit
    positions = _positions(variant, deal, moves, rules_version)
    table = Table()

    def ask(k: int, limit: int) -> str:
        plan.unknown.discard(k)  # asked again (with more): the new answer counts
        answer = decided(positions[k], nodes=max(1, min(limit, budget - plan.spent)), table=table)
        plan.tell(k, answer)
        return answer.verdict

    k = len(moves)
    retried = False
    while k >= 0 and plan.spent < budget:
        verdict = ask(k, nodes)
        if verdict == UNKNOWN and not retried and plan.spent < budget:
            retried = True
            verdict = ask(k, (budget - plan.spent) // 2)
        if verdict != LOST:
            break
        k -= 1
    while plan.spent < budget and (j := plan.next()) is not None:
        ask(j, nodes)
    found = plan.result()
    assert found.last_winnable is None or check_line(positions[found.last_winnable], found.continuation)
    return found


def solve_after(
    variant: str, deal: Deal, moves: Sequence[str], *, rules_version: int = RULES_VERSION, nodes: int = NODES
) -> Solution:
    """The decider's answer for the position after ``moves`` (one question of a :class:`Plan`)."""
    return decided(replay(variant, deal, moves, rules_version=rules_version), nodes=nodes)


def _positions(variant: str, deal: Deal, moves: Sequence[str], rules_version: int) -> list[Game]:
    """The game after 0, 1, ... ``len(moves)`` moves."""
    from ..errors import IllegalMove, ReplayError

    game = new_game(variant, deal, rules_version=rules_version)
    out = [game.copy()]
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except IllegalMove as e:
            raise ReplayError(i, move, e) from None
        out.append(game.copy())
    return out


def analyse_record(
    record: Mapping[str, Any], *, nodes: int = NODES, probes: int = PROBES
) -> list[tuple[Mapping[str, Any], Hindsight]]:
    """Every player's game of a finished race's record, in the record's order of results."""
    seed = bytes.fromhex(record["seed"])
    version = record.get("rules_version", 1)
    return [
        (
            row["player"],
            analyse_game(
                record["variant"], seed, row["move_list"], rules_version=version, nodes=nodes, probes=probes
            ),
        )
        for row in record["results"]
    ]
