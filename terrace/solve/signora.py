"""The signora win-finder: a beam search over the stock's cards, stock known.

Signora's game is paced by the stock: 83 cards on the first pass, then the waste
turned over once and dealt again, each card of that second pass placed before the
next is seen. A depth-first search spends its budget deep in one first pass whose
early choices (what is left on the waste) doom the second. This search instead
keeps a *beam* of the best few positions at each turn of the stock and moves them
all forward together:

- from every position of the beam, a small depth-first walk over the moves that
  leave the stock alone (the hasty order of ``family.py``: safe moves alone, pile
  moves only when they free something) finds the positions reachable before the
  next card; each of them, with the stock turned (or the waste recycled), is a
  candidate for the next level;
- candidates that are the same position (the adapter's canonical key) count once;
  the best ``width`` by :func:`evaluate` form the next beam;
- positions past the second pass (stock and waste both empty: the terrace is free)
  are finished by the depth-first search of ``search.py``, the best first.

The width starts at 12 and grows fourfold (:data:`WIDTHS`); a wider beam is begun only
when the budget left can see it through, so an easy deal is won at once and a hard one
gets a wider look. A beam cut off before its end wins nothing, so from level to level
it is narrowed (never below :data:`MIN_WIDTH`) to what the positions and seconds left can
carry through the stock's turns left, at the cost per beam position measured so far. Every position a walk reaches counts as a node, so the answer is
deterministic for a node budget. The evaluation (:func:`evaluate`) favours cards home,
gaps, the next card wanted by each foundation lying near the top of its pile, and a short
waste (every waste card must find a place on the second pass); and it rehearses the cards
still to come (:func:`_rehearse`), counting those that would go home and those that would
find no place. Its weights were tuned on deals 1-40 (docs/BENCHMARKS-HISTORY.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any

from terrace.rules.cards import RANK, RED, SUIT
from terrace.rules.family import FOUNDATIONS, PILES, FamilyGame, S, T, W
from terrace.rules.game import Game, Move

from .family import FamilyAdapter
from .search import UNKNOWN, WON, Solution, search

WIDTHS = (12, 48, 192, 768)  # the beam's widths, tried in turn while the budget lasts
LOCAL = 12  # positions one beam position's walk may reach before the next card
ENDS = 4  # end positions (stock and waste empty) finished by the depth-first search, per level
END_NODES = 2_000  # that search's budget per end position
_CLOCK_EVERY = 256
MIN_WIDTH = 2  # a beam is never narrowed below this
SPARE = 0.8  # the share of the budget left per level a narrowed beam may plan to spend

_UP = tuple(RANK[c] % 13 + 1 for c in range(104))
_DOWN = tuple(RANK[c] - 1 or 13 for c in range(104))
_COLOUR_KEY = tuple(RANK[c] * 2 + RED[c] for c in range(104))
_PILE_ACCEPTS = tuple(_DOWN[c] * 2 + (not RED[c]) for c in range(104))
_CLASS = tuple(c % 52 for c in range(104))  # the card's name: both packs' copies alike
_NEXT_CLASS = tuple(SUIT[c] * 13 + _UP[c] - 1 for c in range(104))  # the class that follows it home

# The evaluation's weights (measured on deals 1..30; see docs/BENCHMARKS.md).
HOME = 100.0
GAP = 120.0
BURIED = 6.0  # per card above a card a foundation wants next
WASTE = 50.0  # per card on the waste (each must find a place on the second pass)
STUCK = 60.0  # per card the rehearsal of the next pass finds no place for
AHEAD_HOME = 30.0  # per card the rehearsal sends home

Line = tuple[Move, Any] | None  # a line of moves as a chain: (last move, the line before it)


def evaluate(game: FamilyGame, home: int) -> float:
    """How promising a signora position looks (higher is better)."""
    p = game.places
    base = game.base
    assert base is not None
    score = HOME * home
    # where each card's nearer copy waits (not home), by the cards above it: piles, then the
    # terrace (doubled: it unstacks only home) and the waste (halved: the stock turns past it)
    depth = [99] * 52
    gaps = 0
    for i in PILES:
        pile = p[i]
        n = len(pile)
        if not n:
            gaps += 1
            continue
        for j, c in enumerate(pile):
            k = c % 52
            if n - 1 - j < depth[k]:
                depth[k] = n - 1 - j
    terrace = p[T]
    n = len(terrace)
    for j, c in enumerate(terrace):
        k = c % 52
        if 2 * (n - j) < depth[k]:
            depth[k] = 2 * (n - j)
    waste = p[W]
    n = len(waste)
    for j, c in enumerate(waste):
        k = c % 52
        if (n - 1 - j) // 2 < depth[k]:
            depth[k] = (n - 1 - j) // 2
    buried = 0
    started = [0, 0, 0, 0]
    for f in FOUNDATIONS:
        pile = p[f]
        if not pile or len(pile) == 13:
            if pile:
                started[SUIT[pile[0]]] += 1
            continue
        started[SUIT[pile[0]]] += 1
        top = pile[-1]
        want = SUIT[top] * 13 + _UP[top] - 1
        buried += depth[want] if depth[want] < 99 else 0
    for suit in range(4):
        if started[suit] < 2:
            d = depth[suit * 13 + base - 1]
            buried += d if d < 99 else 0
    score += GAP * gaps - BURIED * buried
    if game.recycles_left:
        score -= WASTE * len(waste)
        queue = [*waste, *p[S][::-1]]  # the next pass, were every card left to come round
    else:
        queue = [*waste[-1:], *p[S][::-1]]
    gained, stuck = _rehearse(p, base, queue)
    score += AHEAD_HOME * gained - STUCK * stuck
    return score


def _rehearse(p: list[list[int]], base: int, queue: list[int]) -> tuple[int, int]:
    """A rough rehearsal of the cards to come (``queue``, first first) dealt one by one: each goes
    home if it can (and then any pile top that can follow it), else onto a pile top that takes it
    or into a gap, else it is *stuck*. Returns the cards it sent home and the cards stuck.

    Rough: a pile whose top went home still takes what its old top took (the index of what
    piles take is only added to), and no pile is ever dug into."""
    # Hot (once per candidate position): plain lists by card class (c % 52), no dict.
    wanted = [0] * 52  # per card class, the foundations that take it now
    for f in FOUNDATIONS:
        pile = p[f]
        if not pile:
            for suit in range(4):
                wanted[suit * 13 + base - 1] += 1  # counted per suit: at most two start, ample
        elif len(pile) < 13:
            wanted[_NEXT_CLASS[pile[-1]]] += 1
    last_rank = (base + 11) % 13 + 1
    piles = [p[i][:] for i in PILES if p[i]]
    gaps = 9 - len(piles)
    accepts: dict[int, list[list[int]]] = {}  # what the piles take (for packing)
    for pile in piles:
        key = _PILE_ACCEPTS[pile[-1]]
        if key in accepts:
            accepts[key].append(pile)
        else:
            accepts[key] = [pile]
    gained = stuck = 0
    cls, next_cls, rank, colour_key, pile_accepts = _CLASS, _NEXT_CLASS, RANK, _COLOUR_KEY, _PILE_ACCEPTS
    for c in queue:
        if wanted[cls[c]]:
            moved = c
            while True:
                wanted[cls[moved]] -= 1
                if rank[moved] != last_rank:
                    wanted[next_cls[moved]] += 1
                gained += 1
                for pile in piles:
                    if pile and wanted[cls[pile[-1]]]:
                        moved = pile.pop()
                        if not pile:
                            gaps += 1
                        break
                else:
                    break
            continue
        onto = accepts.get(colour_key[c])
        if onto:
            pile = onto.pop()
            pile.append(c)
        elif gaps:
            gaps -= 1
            pile = [c]
            piles.append(pile)
        else:
            stuck += 1
            continue
        key = pile_accepts[c]
        if key in accepts:
            accepts[key].append(pile)
        else:
            accepts[key] = [pile]
    return gained, stuck


def find_signora_win(
    game: Game,
    nodes: int,
    seconds: float | None,
    clock: Callable[[], float] = time.perf_counter,
    lost: AbstractSet[bytes] = frozenset(),
) -> Solution:
    """Beams of growing width (:data:`WIDTHS`) from ``game`` (not changed) within the budget:
    ``won`` with a line, or ``unknown``. Positions whose keys are in ``lost`` are skipped."""
    start = clock()
    deadline = None if seconds is None else start + seconds
    spent = 0
    last: tuple[int, int, float] | None = None  # the last beam's width, nodes and seconds
    for width in WIDTHS:
        left = nodes - spent
        now = clock()
        if left < 1 or (deadline is not None and now >= deadline):
            break
        if last is not None:
            # A beam wins only at its end: one the budget cannot see through is not begun
            # (its cost grows about as its width), and the rest goes to the other stages.
            grow = width / last[0]
            if last[1] * grow > left or (deadline is not None and now + last[2] * grow > deadline):
                break
        answer, used = _beam(game, width, left, deadline, clock, lost)
        spent += used
        last = (width, used, clock() - now)
        if answer is not None:
            return Solution(WON, tuple(game.move_name(m) for m in answer), spent, clock() - start)
    return Solution(UNKNOWN, (), spent, clock() - start)


class _Budget(Exception):
    """The node or time budget ran out."""


def _beam(
    game: Game,
    width: int,
    nodes: int,
    deadline: float | None,
    clock: Callable[[], float],
    lost: AbstractSet[bytes],
) -> tuple[list[Move] | None, int]:
    """One beam search of ``width``: a winning line, or None; and the nodes spent."""
    g = game.copy()
    assert isinstance(g, FamilyGame)
    adapter = FamilyAdapter(g, hasty=True)
    counter = [0]

    def count() -> None:
        counter[0] += 1
        if counter[0] >= nodes or (
            deadline is not None and counter[0] % _CLOCK_EVERY == 0 and clock() >= deadline
        ):
            raise _Budget

    if g.base is None:
        # the base: each choice starts a beam position of its own
        beam: list[tuple[object, Line, int]] = []
        for move in g.legal_pairs():
            token = adapter.play(g, move)
            beam.append((g.snapshot(), (move, None), adapter.home))
            adapter.undo(g, move, token)
    else:
        beam = [(g.snapshot(), None, adapter.home)]
    cost_per_position = 0.0  # nodes one beam position's walk costs, on average (measured)
    seconds_per_position = 0.0
    try:
        while beam:
            # The beam is narrowed to what the budget left can carry through the levels left
            # (one a card still to be dealt): a beam cut off before its end wins nothing.
            if len(beam) > 1 and counter[0] > 0 and cost_per_position > 0:
                g.restore(beam[0][0])
                levels = _levels_left(g)
                allowance = (nodes - counter[0]) / (levels * cost_per_position)
                if deadline is not None and seconds_per_position > 0:
                    allowance = min(allowance, (deadline - clock()) / (levels * seconds_per_position))
                keep = max(MIN_WIDTH, int(allowance * SPARE))
                if keep < len(beam):
                    beam = beam[:keep]
            level_nodes, level_start = counter[0], clock()
            candidates: dict[bytes, tuple[float, object, Line, int]] = {}
            ends: list[tuple[float, object, Line, int]] = []
            seen: set[bytes] = set()
            for snapshot, line, home in beam:
                g.restore(snapshot)
                adapter.home = home
                won = _walk(g, adapter, line, seen, candidates, ends, lost, count)
                if won is not None:
                    return _unchain(won), counter[0]
            ends.sort(key=lambda e: -e[0])
            for _, snapshot, line, home in ends[:ENDS]:
                g.restore(snapshot)
                adapter.home = home
                budget = min(END_NODES, nodes - counter[0])
                if budget < 1:
                    raise _Budget
                answer = search(g, FamilyAdapter(g, hasty=True), budget, None, clock, lost=lost)
                counter[0] += answer.nodes
                if answer.verdict == WON:
                    return _unchain(line) + [_named(g, m) for m in answer.moves], counter[0]
            ranked = sorted(candidates.values(), key=lambda c: -c[0])[:width]
            # the cost of one beam position's level, smoothed: the next beam is sized by it
            level_cost = (counter[0] - level_nodes) / len(beam)
            level_seconds = (clock() - level_start) / len(beam)
            if cost_per_position:
                cost_per_position = (cost_per_position * 3 + level_cost) / 4
                seconds_per_position = (seconds_per_position * 3 + level_seconds) / 4
            else:
                cost_per_position, seconds_per_position = level_cost, level_seconds
            beam = [(snapshot, line, home) for _, snapshot, line, home in ranked]
    except _Budget:
        pass
    return None, counter[0]


def _walk(
    g: FamilyGame,
    adapter: FamilyAdapter,
    line: Line,
    seen: set[bytes],
    candidates: dict[bytes, tuple[float, object, Line, int]],
    ends: list[tuple[float, object, Line, int]],
    lost: AbstractSet[bytes],
    count: Callable[[], None],
) -> Line | None:
    """The positions reachable from ``g`` before the next card (at most :data:`LOCAL`), each
    with the stock turned put in ``candidates``; those past the stock go to ``ends``.
    Returns the line of a win found on the way."""
    reached = 0
    frames: list[list[Any]] = [[adapter.moves(g), 0]]
    path: list[tuple[Move, object]] = []
    chains: list[Line] = [line]
    p = g.places
    while frames:
        frame = frames[-1]
        moves, i = frame
        if i == 0 and not p[S] and not p[W]:
            ends.append((evaluate(g, adapter.home), g.snapshot(), chains[-1], adapter.home))
        if i == len(moves):
            frames.pop()
            chains.pop()
            if path:
                move, token = path.pop()
                adapter.undo(g, move, token)
            continue
        frame[1] = i + 1
        move = moves[i]
        chain = chains[-1]
        token = adapter.play(g, move)
        if adapter.home == 104:
            return (move, chain)
        key = adapter.key(g)
        if key in lost or key in seen:
            adapter.undo(g, move, token)
            continue
        seen.add(key)
        count()
        if move[0] == S or move[1] == S:
            candidates[key] = (evaluate(g, adapter.home), g.snapshot(), (move, chain), adapter.home)
            adapter.undo(g, move, token)
            continue
        reached += 1
        if reached > LOCAL:
            adapter.undo(g, move, token)
            continue
        path.append((move, token))
        chains.append((move, chain))
        frames.append([adapter.moves(g), 0])
    return None


def _levels_left(g: FamilyGame) -> int:
    """The stock's turns still to come from ``g``, at most: the first pass's cards, then every
    card of stock and waste again (fewer in truth: some waste cards find a place first)."""
    p = g.places
    if g.recycles_left:
        return 2 * len(p[S]) + len(p[W]) + 1
    return len(p[S]) + 1


def _unchain(line: Line) -> list[Move]:
    out: list[Move] = []
    while line is not None:
        out.append(line[0])
        line = line[1]
    out.reverse()
    return out


def _named(g: FamilyGame, name: str) -> Move:
    src, dst = name.split("-")
    return (g.place_names.index(src), g.place_names.index(dst))
