"""The solver's view of the Terrace family: position keys, safe moves, move order.

**Keys.** Cards that the rules cannot tell apart share a *class*: in
``terrace`` and ``queen-of-italy`` only rank and colour matter (foundations
alternate colours, piles alternate colours), so the two suits of a colour and
the two packs are one class; in ``signora`` foundations follow suit, so a class
is a card's name. The terrace only ever loses its top, so its length pins it.
Piles are alike, so they are sorted; a foundation is known by its top's class
(its length follows from the base). Waste and stock are kept in full.

**Safe moves.** A card sent home now is *safe* (the position after it is won
exactly when the position before it is) when both hold:

1. nothing will ever pack on it: every card that could (next rank down, other
   colour) is home already, or sits in a terrace that never frees (a terrace
   card cannot pack in ``terrace`` or ``queen-of-italy``, so a terrace card
   itself never needs this);
2. no foundation competes for it: every foundation that could ever take a card
   of its class at its level (an empty one could take anything) takes it now,
   and those foundations are interchangeable.

Then any winning line that sends the card home later can be replayed with the
card home at once (relabelling the interchangeable foundations); the card
never sat under anything. Two sources are left out because leaving them changes
later cards: a queen-of-italy pile's last card (the gap takes the next stock
card at once) and signora's waste while its recycle is unused (the waste comes
back as the stock). When a safe move exists it is the only move tried.

**Order** (measured on greedy dives): the terrace and waste tops home, then
filling or making a gap, packing the waste, pile tops home, turning the
stock, other pile moves, and the recycle last. Foundation moves whose targets
are alike, and several gaps for one card, are tried once.

Kept as one module (about 640 lines): the keys, the safe-move rule and the order are one
argument about which positions are alike and which moves need not be tried; each leans on
the others' details (card classes, interchangeable foundations), so they are read together.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from terrace.rules.cards import RANK, RED, SUIT
from terrace.rules.family import F1, FOUNDATIONS, PILES, FamilyGame, S, T, W
from terrace.rules.game import Game, Move

_COLOUR_CLASS = bytes(RANK[c] * 2 + RED[c] for c in range(104)) + bytes(152)
_SUIT_CLASS = bytes(c % 52 + 1 for c in range(104)) + bytes(152)
_DOWN = tuple(RANK[c] - 1 or 13 for c in range(104))
_UP = tuple(RANK[c] % 13 + 1 for c in range(104))
_COLOUR_KEY = tuple(RANK[c] * 2 + RED[c] for c in range(104))
_SUIT_KEY = tuple(RANK[c] * 4 + SUIT[c] for c in range(104))
# What a top accepts, as the key of the card it takes: on a foundation the next rank up
# (of its suit, or of the other colour), on a pile the next rank down of the other colour.
_HOME_SUIT = tuple(_UP[c] * 4 + SUIT[c] for c in range(104))
_HOME_COLOUR = tuple(_UP[c] * 2 + (not RED[c]) for c in range(104))
_PILE_ACCEPTS = tuple(_DOWN[c] * 2 + (not RED[c]) for c in range(104))
_SEP = b"\xff"
_SOURCES = (T, W, *PILES)
PILE1 = PILES[0]


class FamilyAdapter:
    """Keys, moves, and moves played and taken back in place, for :class:`terrace.rules.family.FamilyGame`.

    The adapter belongs to one game (the search's copy): it counts the cards home
    as moves are played and taken back, so "won" costs nothing to ask.
    """

    def __init__(
        self, game: FamilyGame, *, hasty: bool = False, safe: bool = True, bound: bool = True
    ) -> None:
        v = game.variant
        self.hasty = hasty  # prune and force moves that are only usually right (never proves "lost")
        self.safe = safe  # play a safe move alone (tests turn it off to check it)
        self.bound = bound  # cut positions the terrace bound proves dead (the same)
        self.suit_mode = v.foundation_match == "suit"
        self.table = _SUIT_CLASS if self.suit_mode else _COLOUR_CLASS
        self.fkey = _SUIT_KEY if self.suit_mode else _COLOUR_KEY
        # what a foundation's top accepts, as the key (``fkey``) of the card it takes
        self.home_accepts = _HOME_SUIT if self.suit_mode else _HOME_COLOUR
        self.autofill = v.autofill_gaps
        self.terrace_packs = v.terrace_freed_late
        self.any_gap = v.gap_fill == "any"
        self.recycles = v.recycles
        self.home = game.score
        self._terrace_rows: tuple[int, list[tuple[int, int]]] | None = None  # dead()'s, per base
        self._fits: tuple[int | None, dict[tuple[int, ...], bool]] = (None, {})  # dead()'s answers, per base

    # ----- moves played and taken back --------------------------------------------------

    def play(self, game: Game, move: Move) -> object:
        """Play ``move`` (one of :meth:`moves`) in place; the token takes it back (:meth:`undo`)."""
        token = game.push(move)
        if move[1] >= F1:
            self.home += 1
        return token

    def undo(self, game: Game, move: Move, token: object) -> None:
        """Take back :meth:`play`'s ``move``."""
        game.pop(move, token)
        if move[1] >= F1:
            self.home -= 1

    def dead(self, game: Game, move: Move | None) -> bool:
        """Whether the position ``move`` just reached (None: a search's first position) is lost
        for want of foundations for the terrace's cards (the terrace bound; docs/ENGINE.md,
        "Deciding", argues it).

        Where the terrace only goes home (``terrace``, ``queen-of-italy``), its cards go home
        top first. With the base known, a card's *level* is its rank above the base and its
        *group* the colour of the base of the foundations it can go on; each group has four
        foundations, each taking one card of every level of its group, in level order. Even
        with every card outside the terrace free to go home at any time, the terrace cards of
        one group must be shared among the group's foundations so that each foundation gets
        its terrace cards in the order they leave the terrace, levels rising, and above its
        height: a split of the group's terrace cards (top first) into at most four rising runs,
        each run starting above one foundation's top. :func:`_chains_fit` decides that split
        exactly (best fit: each card on the foundation whose top is the highest below it).

        Asked only after a card went home from elsewhere than the terrace (nothing else
        changes the terrace or the foundations): the terrace's top going home takes the very
        foundation best fit gives it (the one whose top is one below it), so the answer
        stays. Only the group of the card gone home changes (both groups at the base's
        choice, where the levels are first known)."""
        if self.terrace_packs or not self.bound or (move is not None and (move[1] < F1 or move[0] == T)):
            return False
        assert isinstance(game, FamilyGame)
        base = game.base
        terrace = game.places[T]
        if base is None or not terrace:
            return False
        rows = self._terrace_rows
        if rows is None or rows[0] != base or len(rows[1]) < len(terrace):
            rows = self._terrace_rows = (base, _terrace_rows(terrace, base))
        table = rows[1]
        p = game.places
        groups: tuple[int, ...] = (0, 1)
        if move is not None and self.home > 1:  # not the base's choice: only the group gone home
            gone = p[move[1]][-1]
            groups = (RED[gone] ^ (((RANK[gone] - base) % 13) & 1),)
        n = len(terrace)
        fits = self._fits
        if fits[0] != base:
            fits = self._fits = (base, {})
        for group in groups:
            tops = [len(f) - 1 for f in (p[i] for i in FOUNDATIONS) if f and RED[f[0]] == group]
            tops += [-1] * (4 - len(tops))
            tops.sort()  # best fit does not depend on the foundations' order
            # the answer depends on the terrace's length and the tops alone: few of them recur often
            known = (n, group, *tops)
            fit = fits[1].get(known)
            if fit is None:
                fit = fits[1][known] = _chains_fit(table, n, group, tops)
            if not fit:
                return True
        return False

    def won(self, game: Game) -> bool:
        return self.home == 104

    def key(self, game: Game) -> bytes:
        assert isinstance(game, FamilyGame)
        p = game.places
        table = self.table
        piles = sorted([bytes(p[i]).translate(table) for i in PILES])
        tops = bytes(sorted([table[p[f][-1]] if p[f] else 0 for f in FOUNDATIONS]))
        left = game.recycles_left
        # the stock only loses its next card until a recycle refills it: its length pins it
        stock = bytes(p[S]).translate(table) if left < self.recycles else b""
        head = bytes((game.base or 0, left, len(p[T]), len(p[S])))
        return _SEP.join([head, tops, bytes(p[W]).translate(table), stock, *piles])

    def dive(self, game: Game, steps: int) -> FamilyGame:
        """:func:`terrace.solve.search.dive` for this adapter, the same line, cheaper.

        The dive keeps every position it met, to never walk into one again. Here
        every move is either *progress* (a card home, the stock turned or
        recycled, a gap filled from the stock: the cards home never go down, the
        stock only shrinks until a recycle, and recycles only get used up) or a
        shuffle that changes none of those. So a position after progress was
        never met, and no earlier position will be met again: only the positions
        since the last progress need keeping (its *plateau*), and within it the
        foundations, the stock and the recycles stay put, while the terrace and
        the waste only lose their tops, so their lengths pin them. The plateau
        key is thus the piles (as :meth:`key` classes them) and two lengths, and
        it is made only when a shuffle is tried, from the piles' classes kept
        as the shuffles move them.
        """
        assert isinstance(game, FamilyGame)
        g = game.copy()
        assert isinstance(g, FamilyGame)
        table = self.table
        autofill = self.autofill
        play, undo, ordered = self.play, self.undo, self.ordered
        seen: set[tuple[object, ...]] = set()
        memo = Memo()
        tops: list[bytes] | None = None  # the piles as the plateau key classes them, while they stay
        entered = False  # whether the current position's plateau key is in ``seen``
        for _ in range(steps):
            if self.home == 104:
                break
            p = g.places
            stock_left = bool(p[S])
            for move in ordered(g, memo):
                src, dst = move
                progress = (
                    g.base is None
                    or dst >= F1
                    or src == S
                    or dst == S
                    or (autofill and src >= PILE1 and stock_left and len(p[src]) == 1)
                )
                if progress:
                    if g.base is None or dst >= F1:
                        memo.forget()
                        if src >= PILE1 or g.base is None:
                            tops = None
                    elif src >= PILE1:  # a gap filled from the stock
                        memo.piles_moved()
                        tops = None
                    play(g, move)
                    seen.clear()
                    entered = False
                    break
                if tops is None:
                    tops = [bytes(p[i]).translate(table) for i in PILES]
                if not entered:
                    seen.add((len(p[T]), len(p[W]), *sorted(tops)))
                    entered = True
                token = play(g, move)
                # a shuffle changes its two places only: the other piles' classes stay
                after = tops[:]
                if src >= PILE1:
                    after[src - PILE1] = bytes(p[src]).translate(table)
                after[dst - PILE1] = bytes(p[dst]).translate(table)
                k = (len(p[T]), len(p[W]), *sorted(after))
                if k not in seen:
                    seen.add(k)
                    tops = after
                    memo.piles_moved()  # a shuffle always moves a pile's top
                    break
                undo(g, move, token)
            else:
                break
        g.touched()
        return g

    # ----- moves ---------------------------------------------------------------------

    def moves(self, game: Game) -> list[Move]:
        """The engine's legal moves (``FamilyGame._generate``, the same order), less those
        alike, ranked: one generation pass, no sort (:meth:`ordered` gives them to a dive)."""
        # Hot (every position of a search or a playout): what a top accepts comes from
        # tables, and the tables and the rules' switches are locals.
        assert isinstance(game, FamilyGame)
        p = game.places
        base = game.base
        if base is None:
            return game.legal_pairs()
        fkey = self.fkey
        accepts_home, first_empty = self._homes(p)
        # ``_pile_tops`` less the lone piles, inline: this is the search's hottest loop
        accepts_pile: dict[int, list[int]] = {}
        gaps: list[int] = []
        pile_accepts = _PILE_ACCEPTS
        for i in PILES:
            pile = p[i]
            if pile:
                k = pile_accepts[pile[-1]]
                if k in accepts_pile:
                    accepts_pile[k].append(i)
                else:
                    accepts_pile[k] = [i]
            else:
                gaps.append(i)
        r0: list[Move] = []  # the terrace and waste tops home
        r1: list[Move] = []  # to a gap, and a lone pile card packed (it makes a gap)
        r2: list[Move] = []  # the terrace and waste packed on a pile
        r3: list[Move] = []  # pile tops home
        r5: list[Move] = []  # other pile moves
        hasty = self.hasty
        safe = self.safe
        any_gap = self.any_gap
        colour_key = _COLOUR_KEY
        rank_of = RANK
        terrace_free = self.terrace_packs and not p[S] and not p[W]
        lone_frees = bool(p[W]) or any_gap or (self.autofill and bool(p[S]))  # a gap is worth having
        for src in _SOURCES:
            pile = p[src]
            if not pile:
                continue
            card = pile[-1]
            dst = first_empty if rank_of[card] == base else accepts_home.get(fkey[card])
            if dst is not None:
                move = (src, dst)
                if (safe and self._safe(game, src, dst)) or (hasty and src == T):
                    return [move]
                (r0 if src < S else r3).append(move)
            if src == T:
                if not terrace_free:
                    continue
                lone = False
            else:
                lone = src >= PILE1 and len(pile) == 1
            targets = accepts_pile.get(colour_key[card])
            if targets:
                if src < S:
                    out: list[Move] | None = r2
                elif hasty and not (
                    lone_frees
                    if lone
                    else self._frees(pile[-2], src, base, first_empty, accepts_home, accepts_pile)
                ):
                    out = None  # it reveals nothing that can move at once
                else:
                    out = r1 if lone else r5
                if out is not None:
                    for t in targets:
                        if t != src:
                            out.append((src, t))
            if gaps and (src == W or any_gap) and not lone:
                for t in gaps:
                    if t != src:
                        r1.append((src, t))
                        break  # gaps are alike
        if p[S]:
            if not (game.recycles_left < self.recycles and p[W]):
                return r0 + r1 + r2 + r3 + [(S, W)] + r5
        elif p[W] and game.recycles_left > 0:
            return r0 + r1 + r2 + r3 + r5 + [(W, S)]
        return r0 + r1 + r2 + r3 + r5

    def ordered(self, game: Game, memo: Memo) -> Iterator[Move]:
        """:meth:`moves` for a dive: the same moves in the same order, one at a time, each
        rank worked out only when it is reached (a property test holds the two equal).

        A dive takes the first move that is progress or leads somewhere new, nearly
        always one of the first ranks: a card home (a third of a playout's moves) needs
        no pile scanned for packing, the stock turned (two fifths) none of the pile to
        pile moves. The ranks are worked out in three passes over the sources, each
        in source order, so the moves come in the order of one pass. Between two
        moves taken the caller may play a move and take it back; the position is
        then the same, so the next pass reads it as it was.

        ``memo`` keeps what a dive's positions share: what the foundations take (until
        a card goes home), and what the terrace and the piles offer (until a pile or a
        foundation changes). The stock turned changes only the waste, so the next
        position works out the waste's moves alone. (A search, whose positions share
        nothing, takes the one pass of :meth:`moves`, which is cheaper for a whole list.)
        """
        assert isinstance(game, FamilyGame)
        p = game.places
        base = game.base
        if base is None:
            yield from game.legal_pairs()
            return
        if memo.homes is None:
            memo.homes = self._homes(p)
        accepts_home, first_empty = memo.homes
        stock = bool(p[S])
        # pass 1: cards home; a safe one (or, hasty, a terrace card) is the only move
        rest = memo.rest
        if rest is None or rest[0] != stock:  # a pile's lone card is not safe home while the stock fills gaps
            rest = memo.rest = (stock, *self._home_rest(game, accepts_home, first_empty))
        _, t_move, t_first, pile_home = rest
        if t_first and t_move is not None:
            yield t_move
            return
        w_move = None
        waste = p[W]
        if waste:
            card = waste[-1]
            dst = first_empty if RANK[card] == base else accepts_home.get(self.fkey[card])
            if dst is not None:
                w_move = (W, dst)
                if self.safe and self._safe(game, W, dst):
                    yield w_move
                    return
        for move, first in pile_home:
            if first:
                yield move
                return
        if t_move is not None:
            yield t_move
        if w_move is not None:
            yield w_move
        # pass 2: to a gap, and the moves that make one or free the terrace and waste
        if memo.piles is None:
            memo.piles = _pile_tops(p)
        accepts_pile, gaps, lone_piles = memo.piles
        any_gap = self.any_gap
        r1: list[Move] = []  # to a gap, and a lone pile card packed (it makes a gap)
        r2: list[Move] = []  # the terrace and waste packed on a pile
        terrace = p[T]
        if terrace and self.terrace_packs and not stock and not waste:
            for t in accepts_pile.get(_COLOUR_KEY[terrace[-1]], ()):
                r2.append((T, t))
            if gaps and any_gap:
                r1.append((T, gaps[0]))
        if waste:
            for t in accepts_pile.get(_COLOUR_KEY[waste[-1]], ()):
                r2.append((W, t))
            if gaps:
                r1.append((W, gaps[0]))
        lone_frees = bool(waste) or any_gap or (self.autofill and stock)  # a gap is worth having
        lone = memo.lone
        if lone is None or lone[0] != lone_frees:
            lone = memo.lone = (lone_frees, self._lone_moves(p, accepts_pile, gaps, lone_piles, lone_frees))
        yield from r1
        yield from lone[1]
        yield from r2
        for move, _ in pile_home:
            yield move
        if stock and not (game.recycles_left < self.recycles and waste):
            yield (S, W)
        recycle = not stock and bool(waste) and game.recycles_left > 0
        # pass 3: other pile moves, when it is worth uncovering what lies beneath
        if memo.shuffles is None:
            memo.shuffles = self._shuffles(p, base, first_empty, accepts_home, accepts_pile)
        yield from memo.shuffles
        if recycle:
            yield (W, S)

    def _home_rest(
        self, game: FamilyGame, accepts_home: dict[int, int], first_empty: int | None
    ) -> tuple[Move | None, bool, list[tuple[Move, bool]]]:
        """Pass 1 of :meth:`ordered` for the terrace and the piles: the terrace's move home
        and whether it is played alone, the piles' moves home, each with whether it is played
        alone (only up to the first such: the rest are never reached)."""
        p = game.places
        base = game.base
        fkey = self.fkey
        safe = self.safe
        t_move, t_first = None, False
        terrace = p[T]
        if terrace:
            card = terrace[-1]
            dst = first_empty if RANK[card] == base else accepts_home.get(fkey[card])
            if dst is not None:
                t_move = (T, dst)
                t_first = self.hasty or (safe and self._safe(game, T, dst))
        piles: list[tuple[Move, bool]] = []
        for src in PILES:
            pile = p[src]
            if pile:
                card = pile[-1]
                dst = first_empty if RANK[card] == base else accepts_home.get(fkey[card])
                if dst is not None:
                    first = safe and self._safe(game, src, dst)
                    piles.append(((src, dst), first))
                    if first:
                        break
        return t_move, t_first, piles

    def _lone_moves(
        self,
        p: list[list[int]],
        accepts_pile: dict[int, list[int]],
        gaps: list[int],
        lone_piles: list[int],
        lone_frees: bool,
    ) -> list[Move]:
        """Pass 2 of :meth:`ordered` for the piles: a lone card packed (it makes a gap, worth
        it only when ``lone_frees``, unless not hasty), and a card to a gap (``any_gap``)."""
        if not self.any_gap:
            if not lone_piles or (self.hasty and not lone_frees):
                return []
            sources: Iterable[int] = lone_piles
        else:
            sources = PILES
        out: list[Move] = []
        hasty = self.hasty
        for src in sources:
            pile = p[src]
            if not pile:
                continue
            if len(pile) == 1:
                if not hasty or lone_frees:
                    for t in accepts_pile.get(_COLOUR_KEY[pile[-1]], ()):
                        if t != src:
                            out.append((src, t))
            elif gaps:
                out.append((src, gaps[0]))  # gaps are alike
        return out

    def _shuffles(
        self,
        p: list[list[int]],
        base: int,
        first_empty: int | None,
        accepts_home: dict[int, int],
        accepts_pile: dict[int, list[int]],
    ) -> list[Move]:
        """Pass 3 of :meth:`ordered`: a pile's top onto another pile (hasty: only when what
        it uncovers can move at once)."""
        out: list[Move] = []
        hasty = self.hasty
        for src in PILES:
            pile = p[src]
            if len(pile) < 2:
                continue
            targets = accepts_pile.get(_COLOUR_KEY[pile[-1]])
            if targets and not (
                hasty and not self._frees(pile[-2], src, base, first_empty, accepts_home, accepts_pile)
            ):
                for t in targets:
                    if t != src:
                        out.append((src, t))
        return out

    def _homes(self, p: list[list[int]]) -> tuple[dict[int, int], int | None]:
        """What the foundations accept (the key of the card each takes: only the first
        foundation of a key, the rest are alike) and the first empty one."""
        home_accepts = self.home_accepts
        accepts: dict[int, int] = {}
        first_empty = None
        for f in FOUNDATIONS:
            pile = p[f]
            n = len(pile)
            if n == 0:
                if first_empty is None:
                    first_empty = f
            elif n < 13:
                k = home_accepts[pile[-1]]
                if k not in accepts:
                    accepts[k] = f
        return accepts, first_empty

    def _safe(self, game: FamilyGame, src: int, dst: int) -> bool:
        p = game.places
        card = p[src][-1]
        if src in PILES and self.autofill and len(p[src]) == 1 and p[S]:
            return False
        if src == W and game.recycles_left > 0:
            return False
        base = game.base
        assert base is not None
        level = (RANK[card] - base) % 13
        suit_mode = self.suit_mode
        for f in FOUNDATIONS:
            pile = p[f]
            n = len(pile)
            if n == 0:
                if level:
                    return False  # a base yet to come may start the foundation it should go to
                continue
            if n > level:
                continue
            first = pile[0]
            # the foundation's pattern at this level: its suit, or its base colour alternating
            same = SUIT[first] == SUIT[card] if suit_mode else RED[first] ^ (level % 2 == 1) == RED[card]
            if same and n != level:
                return False
        if src == T and not self.terrace_packs:
            return True
        return self._dead_target(game, card)

    def _frees(
        self,
        card: int,
        src: int,
        base: int,
        first_empty: int | None,
        accepts_home: dict[int, int],
        accepts_pile: dict[int, list[int]],
    ) -> bool:
        """Whether ``card`` (beneath the top of pile ``src``) can move at once once uncovered:
        home, or onto another pile (the indexes are :meth:`moves`')."""
        if first_empty is not None if RANK[card] == base else self.fkey[card] in accepts_home:
            return True
        for t in accepts_pile.get(_COLOUR_KEY[card], ()):  # noqa: SIM110 (a loop: no generator frame)
            if t != src:
                return True
        return False

    def _dead_target(self, game: FamilyGame, card: int) -> bool:
        """Whether no card left out of the foundations could ever pack on ``card``."""
        p = game.places
        want, red = _DOWN[card], RED[card]
        needed = 4  # two suits of the other colour, two packs
        for f in FOUNDATIONS:
            for c in p[f]:
                if RANK[c] == want and RED[c] != red:
                    needed -= 1
        if needed and not self.terrace_packs:
            for c in p[T]:
                if RANK[c] == want and RED[c] != red:
                    needed -= 1
        return needed == 0


def _terrace_rows(terrace: list[int], base: int) -> list[tuple[int, int]]:
    """Per terrace card (bottom first): its level and its group (:meth:`FamilyAdapter.dead`)."""
    rows = []
    for card in terrace:
        level = (RANK[card] - base) % 13
        rows.append((level, RED[card] ^ (level & 1)))
    return rows


def _chains_fit(rows: list[tuple[int, int]], n: int, group: int, tops: list[int]) -> bool:
    """Whether the terrace's first ``n`` cards (``rows``, bottom first) of ``group`` can go home
    top first onto foundations whose top levels are ``tops`` (-1: empty), other cards coming
    home whenever needed: each card, top first, on the foundation whose top is the highest
    below its level (changes ``tops``). Best fit is exact: it leaves the tops as low as any
    other choice would, one by one in sorted order, and lower tops only take more."""
    for i in range(n - 1, -1, -1):
        level, g = rows[i]
        if g != group:
            continue
        best = -1
        for j, top in enumerate(tops):
            if top < level and (best < 0 or top > tops[best]):
                best = j
        if best < 0:
            return False
        tops[best] = level
    return True


class Memo:
    """What a dive's positions share (see :meth:`FamilyAdapter.ordered`): the dive calls
    :meth:`forget` when a card goes home and :meth:`piles_moved` when a pile changes."""

    __slots__ = ("homes", "lone", "piles", "rest", "shuffles")

    def __init__(self) -> None:
        self.homes: tuple[dict[int, int], int | None] | None = None
        self.piles_moved()

    def forget(self) -> None:
        self.homes = None
        self.piles_moved()

    def piles_moved(self) -> None:
        self.piles: tuple[dict[int, list[int]], list[int], list[int]] | None = None
        self.rest: tuple[bool, Move | None, bool, list[tuple[Move, bool]]] | None = None
        self.lone: tuple[bool, list[Move]] | None = None
        self.shuffles: list[Move] | None = None


def _pile_tops(p: list[list[int]]) -> tuple[dict[int, list[int]], list[int], list[int]]:
    """The piles by the key of the card they accept, the gaps, and the piles of one card."""
    accepts: dict[int, list[int]] = {}
    gaps: list[int] = []
    lone: list[int] = []
    pile_accepts = _PILE_ACCEPTS
    for i in PILES:
        pile = p[i]
        if pile:
            k = pile_accepts[pile[-1]]
            if k in accepts:
                accepts[k].append(i)
            else:
                accepts[k] = [i]
            if len(pile) == 1:
                lone.append(i)
        else:
            gaps.append(i)
    return accepts, gaps, lone
