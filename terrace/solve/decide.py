"""The decider: a search that aims at a verdict, winnable (with a line) or proven lost.

    >>> import terrace
    >>> from terrace.solve.decide import decide
    >>> d = decide(terrace.new_game("terrace", deal=2), nodes=20_000)
    >>> d.verdict in ("winnable", "lost", "undecided")
    True

A proof of loss must see every position that matters, so the decider's complete
search (:func:`prove`) keeps a *table of positions proven lost* (canonical keys:
the adapters sort equivalent piles, so transpositions meet) and skips any
position met in it. A position enters the table only when it is proven, not
merely "seen": a depth-first walk that finds a position on its own path would
otherwise call the positions between lost only because the walk above them was
still open. The walk is Tarjan's strongly connected components: when a
component is finished without a win, and every move out of it leads to a
position proven lost, all of it is lost. So the table stays true when a search
stops on its budget, and a later search (a bigger budget, or another position
of the same game: hindsight walks one game's positions) starts from all that
was proven.

Positions are cut without a search when the adapter proves them dead
(``dead``: a card that can never go home, see ``family.py``) and moves are
reduced only soundly (a safe move played alone, alike targets tried once): the
argument for each is in docs/ENGINE.md, "Solving". Between complete searches the
win-finder of :func:`terrace.solve.solve` runs (pruned, hasty orders that may
miss wins but never claim a loss), skipping positions already proven lost.
Budgets grow round by round: a short complete search, then the win-finder, then
a complete search with the rest, which starts from the table the first filled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from terrace.rules.game import Game, Move

from .search import LOST, UNKNOWN, WON, Adapter, Solution
from .stages import adapter_for, check_line, find_win

WINNABLE, UNDECIDED = "winnable", "undecided"
_CLOCK_EVERY = 256


@dataclass(frozen=True)
class Decision:
    """The decider's answer: ``winnable`` with ``line`` (canonical moves that win from the
    position), ``lost`` (proven: ``positions`` is how many the proof covered) or
    ``undecided`` (the budget ran out first)."""

    verdict: str
    line: tuple[str, ...]
    positions: int
    seconds: float

    @property
    def solution(self) -> Solution:
        """The same answer in :class:`terrace.solve.search.Solution`'s words (won, lost, unknown)."""
        word = {WINNABLE: WON, LOST: LOST, UNDECIDED: UNKNOWN}[self.verdict]
        return Solution(word, self.line, self.positions, self.seconds)


class Table:
    """Positions proven lost, by canonical key, for one game (one stock: keys leave the stock's
    order out). Shared by every search of that game."""

    def __init__(self) -> None:
        self.lost: set[bytes] = set()

    def __len__(self) -> int:
        return len(self.lost)


def prove(
    game: Game,
    adapter: Adapter,
    nodes: int,
    table: Table,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Solution:
    """A complete search from ``game`` (not changed) within ``nodes`` new positions: ``won``
    with a line, ``lost`` (proven; the root's key is then in ``table``) or ``unknown``.
    Every component it finishes without a win goes into ``table``."""
    start = clock()
    g = game.copy()
    if adapter.won(g):
        return Solution(WON, (), 1, clock() - start)
    lost = table.lost
    root = adapter.key(g)
    if root in lost:
        return Solution(LOST, (), 0, clock() - start)
    deadline = None if seconds is None else start + seconds
    play, undo, key_of, moves_of, won = adapter.play, adapter.undo, adapter.key, adapter.moves, adapter.won
    dead = getattr(adapter, "dead", None)  # a position proven dead without a search (an adapter's bound)
    if dead is not None and dead(g, None):
        lost.add(root)
        return Solution(LOST, (), 1, clock() - start)
    index: dict[bytes, int] = {root: 0}  # positions on Tarjan's stack -> their visit number
    stack: list[bytes] = [root]  # Tarjan's stack of positions not yet proven
    # a frame per position on the line: its moves, the next to try, its key, its visit number, low
    frames: list[list[Any]] = [[moves_of(g), 0, root, 0, 0]]
    line: list[tuple[Move, object]] = []
    visited = 1
    verdict = UNKNOWN
    check = _CLOCK_EVERY if deadline is not None else nodes + 1
    while True:
        frame = frames[-1]
        moves, i = frame[0], frame[1]
        if i == len(moves):  # every move tried, no win: close the frame
            frames.pop()
            key, number, low = frame[2], frame[3], frame[4]
            if low == number:  # the root of a component: all of it is lost
                while True:
                    k = stack.pop()
                    del index[k]
                    lost.add(k)
                    if k == key:
                        break
            if not frames:
                verdict = LOST
                break
            parent = frames[-1]
            if low < parent[4]:
                parent[4] = low
            move, token = line.pop()
            undo(g, move, token)
            continue
        frame[1] = i + 1
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
        number = index.get(key)
        if number is not None:  # on the stack: the same component, unless already closed
            if number < frame[4]:
                frame[4] = number
            undo(g, move, token)
            continue
        if dead is not None and dead(g, move):
            lost.add(key)
            undo(g, move, token)
            continue
        if visited >= nodes or (visited % check == 0 and clock() >= deadline):  # type: ignore[operator]
            undo(g, move, token)
            break
        number = visited
        visited += 1
        index[key] = number
        stack.append(key)
        line.append((move, token))
        frames.append([moves_of(g), 0, key, number, number])
    names = tuple(game.move_name(m) for m, _ in line) if verdict == WON else ()
    return Solution(verdict, names, visited, clock() - start)


# The decider's rounds (terrace.solve.decide): shares of the budget for a first complete
# search, then the win-finder, then a complete search with the rest (starting from the table
# of positions the first proved lost).
DECIDE_SHARES = (0.1, 0.4)
# From a deal's start a proof of loss does not come within a second (the whole game lies
# ahead): there the win-finder takes most of the budget (terrace-arena solve).
DEAL_SHARES = (0.05, 0.75)


def decided(
    game: Game,
    *,
    nodes: int = 200_000,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    table: Table | None = None,
    shares: tuple[float, float] = DECIDE_SHARES,
) -> Solution:
    """:func:`terrace.solve.decide.decide` in :class:`Solution`'s words (won, lost, unknown):
    the complete search and the win-finder in turn, aiming at a verdict either way."""
    if nodes < 1:
        raise ValueError("the node budget must be at least 1")
    table = Table() if table is None else table
    spent_nodes, spent_time = 0, 0.0
    rounds = (*shares, 1.0 - sum(shares))
    for n, share in enumerate(rounds):
        last = n == len(rounds) - 1
        stage_nodes = nodes - spent_nodes if last else max(1, int(nodes * share))
        stage_time = None if seconds is None else (seconds - spent_time if last else seconds * share)
        if stage_nodes < 1 or (stage_time is not None and stage_time <= 0):
            break
        if n % 2 == 0:
            answer = prove(game, adapter_for(game), stage_nodes, table, stage_time, clock)
        else:
            answer = find_win(game, stage_nodes, stage_time, clock, table.lost)
        spent_nodes += answer.nodes
        spent_time += answer.seconds
        if answer.verdict != UNKNOWN:
            if answer.verdict == WON and not check_line(game, answer.moves):
                raise AssertionError("the solver's line does not replay to a won game")  # a bug
            return Solution(answer.verdict, answer.moves, spent_nodes, spent_time)
    return Solution(UNKNOWN, (), spent_nodes, spent_time)


def decide(
    game: Game,
    *,
    nodes: int = 200_000,
    seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    table: Table | None = None,
) -> Decision:
    """Decide ``game``'s position (not changed) within ``nodes`` positions (and ``seconds`` by
    ``clock``). ``table``: the positions of this game already proven lost (filled further)."""
    answer = decided(game, nodes=nodes, seconds=seconds, clock=clock, table=table)
    word = {WON: WINNABLE, LOST: LOST, UNKNOWN: UNDECIDED}[answer.verdict]
    return Decision(word, answer.moves, answer.nodes, answer.seconds)
