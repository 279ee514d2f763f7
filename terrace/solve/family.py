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
"""

from __future__ import annotations

from typing import cast

from ..cards import RANK, RED, SUIT
from ..family import F1, FOUNDATIONS, PILES, FamilyGame, S, T, W
from ..game import Game, Move

_COLOUR_CLASS = bytes(RANK[c] * 2 + RED[c] for c in range(104)) + bytes(152)
_SUIT_CLASS = bytes(c % 52 + 1 for c in range(104)) + bytes(152)
_DOWN = tuple(RANK[c] - 1 or 13 for c in range(104))
_SEP = b"\xff"

State = tuple[list[list[int]], int | None, int]


class FamilyAdapter:
    """Keys, moves and snapshots for :class:`terrace.family.FamilyGame`."""

    def __init__(self, game: FamilyGame, *, hasty: bool = False, safe: bool = True) -> None:
        v = game.variant
        self.hasty = hasty  # prune and force moves that are only usually right (never proves "lost")
        self.safe = safe  # play a safe move alone (tests turn it off to check it)
        self.suit_mode = v.foundation_match == "suit"
        self.table = _SUIT_CLASS if self.suit_mode else _COLOUR_CLASS
        self.autofill = v.autofill_gaps
        self.terrace_packs = v.terrace_freed_late
        self.any_gap = v.gap_fill == "any"

    # ----- state ---------------------------------------------------------------------

    def snapshot(self, game: Game) -> object:
        assert isinstance(game, FamilyGame)
        return ([p[:] for p in game._places], game._base, game._recycles_left)

    def restore(self, game: Game, state: object) -> None:
        assert isinstance(game, FamilyGame)
        places, game._base, game._recycles_left = cast(State, state)
        game._places = [p[:] for p in places]

    def key(self, game: Game) -> bytes:
        assert isinstance(game, FamilyGame)
        p = game._places
        table = self.table
        piles = sorted(bytes(p[i]).translate(table) for i in PILES)
        tops = bytes(sorted(table[p[f][-1]] if p[f] else 0 for f in FOUNDATIONS))
        head = bytes((game._base or 0, game._recycles_left, len(p[T])))
        parts = [head, tops, bytes(p[W]).translate(table), bytes(p[S]).translate(table), *piles]
        return _SEP.join(parts)

    # ----- moves ---------------------------------------------------------------------

    def moves(self, game: Game) -> list[Move]:
        assert isinstance(game, FamilyGame)
        p = game._places
        generated = game._generate()
        if game._base is None:
            return generated
        ranked: list[tuple[int, int, Move]] = []
        homed: set[int] = set()
        gapped: set[int] = set()
        for n, move in enumerate(generated):
            src, dst = move
            if dst >= F1:
                if src in homed:
                    continue  # every foundation that takes this card is alike
                homed.add(src)
                if (self.safe and self._safe(game, src, dst)) or (self.hasty and src == T):
                    return [move]
                rank = 0 if src in (T, W) else 3
            elif src == S or dst == S:
                rank = 4 if src == S else 6
            elif not p[dst]:
                if src in gapped or (src in PILES and len(p[src]) == 1):
                    continue  # gaps are alike; a lone card to a gap changes nothing
                gapped.add(src)
                rank = 1
            elif src in PILES:
                if self.hasty and not self._reveals(game, src):
                    continue
                rank = 1 if len(p[src]) == 1 else 5
            else:
                rank = 2
            ranked.append((rank, n, move))
        ranked.sort()
        return [m for _, _, m in ranked]

    def _safe(self, game: FamilyGame, src: int, dst: int) -> bool:
        p = game._places
        card = p[src][-1]
        if src in PILES and self.autofill and len(p[src]) == 1 and p[S]:
            return False
        if src == W and game._recycles_left > 0:
            return False
        base = game._base
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

    def _reveals(self, game: FamilyGame, src: int) -> bool:
        """Whether moving the top of pile ``src`` leaves something that can move at once."""
        p = game._places
        pile = p[src]
        if len(pile) == 1:
            return bool(p[W]) or self.any_gap or (self.autofill and bool(p[S]))
        card = pile[-2]
        return self._homes(game, card) or any(
            t != src and p[t] and _DOWN[p[t][-1]] == RANK[card] and RED[p[t][-1]] != RED[card] for t in PILES
        )

    def _homes(self, game: FamilyGame, card: int) -> bool:
        """Whether ``card`` fits a foundation now."""
        p = game._places
        rank = RANK[card]
        for f in FOUNDATIONS:
            pile = p[f]
            if not pile:
                if rank == game._base:
                    return True
                continue
            top = pile[-1]
            matches = SUIT[top] == SUIT[card] if self.suit_mode else RED[top] != RED[card]
            if len(pile) < 13 and rank == RANK[top] % 13 + 1 and matches:
                return True
        return False

    def _dead_target(self, game: FamilyGame, card: int) -> bool:
        """Whether no card left out of the foundations could ever pack on ``card``."""
        p = game._places
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
