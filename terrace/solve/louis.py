"""The solver's view of Louis: position keys and move order.

Louis's suits all matter, so a card's class is its name (the two packs' copies
are alike). Heaps keep their identity while deals remain (dealing and gathering
go round them in a fixed order); in the last deal's play phase they are alike
and sorted. Foundations are known by their lengths (each holds one suit in one
direction), the abeyance cells by their cards, and the dealing state (deal
number, the heap dealt to last, the first circuit, the live heap) is kept whole.

Order: cards home (abeyance first), dealing, heap to abeyance, heap to heap,
redeal last. No move is pruned but foundation moves that are the same card to
the same foundation.
"""

from __future__ import annotations

from terrace.rules.game import Game, Move
from terrace.rules.louis import CELLS, HEAPS, REDEAL, LouisGame, S

_HEAPS_END = HEAPS.stop  # places below it are heaps

_CLASS = bytes(c % 52 + 1 for c in range(104)) + bytes(152)
_SEP = b"\xff"


class LouisAdapter:
    """Keys, moves and snapshots for :class:`terrace.rules.louis.LouisGame`."""

    def __init__(self, game: LouisGame) -> None:
        self.deals = game.variant.deals

    def play(self, game: Game, move: Move) -> object:
        return game.push(move)

    def undo(self, game: Game, move: Move, token: object) -> None:
        game.pop(move, token)

    def won(self, game: Game) -> bool:
        return game.won()

    def key(self, game: Game) -> bytes:
        assert isinstance(game, LouisGame)
        p = game.places
        heaps = [bytes(p[h]).translate(_CLASS) for h in HEAPS]
        first_circuit, last, live = game.dealing
        if game.deal_no >= self.deals and not p[S]:
            heaps.sort()
        head = bytes(
            (
                game.deal_no,
                first_circuit,
                255 if last is None else last,
                255 if live is None else live,
                *(len(p[f]) for f in game.foundation_places),
                *(_CLASS[p[x][0]] if p[x] else 0 for x in CELLS),
            )
        )
        return _SEP.join([head, bytes(p[S]).translate(_CLASS), *heaps])

    def dive(self, game: Game, steps: int) -> LouisGame:
        """:func:`terrace.solve.search.dive` for this adapter, the same line, cheaper.

        As in :meth:`terrace.solve.family.FamilyAdapter.dive`: every move but a heap's
        card onto another heap is *progress*. A redeal raises the deal number; within a
        deal, a card home adds to the foundations, dealing shortens the stock, a heap's
        card into abeyance fills a cell that empties only to the foundations. So a
        position after progress was never met and no earlier one comes back: only the
        positions since the last progress move are kept. Between them only the heaps
        change (no heap move while dealing), so their key is the heaps, as :meth:`key`
        has them. Heap moves are taken back by hand; progress is played on the engine.
        """
        assert isinstance(game, LouisGame)
        g = game.copy()
        assert isinstance(g, LouisGame)
        p = g.places
        found = g.foundation_places
        moves, advance = self.moves, g.advance
        home = g.score
        seen: set[tuple[bytes, ...]] = set()
        entered = False  # whether the current position's heaps are in ``seen``
        alike = False  # heaps are alike (sorted in the key) in the last deal's play phase
        home_moves, deal_target = g.home_moves, g.deal_target
        for _ in range(steps):
            if home == 104:
                break
            if p[S]:
                # dealing: every move is progress, so the first of :meth:`moves` is played:
                # a card home from abeyance, else the live card home, else the next card dealt
                out: list[Move] = []
                for x in CELLS:
                    if p[x]:
                        home_moves(x, p[x][0], out)
                live = g.dealing[2]
                if not out and live is not None:
                    # its first move is home: abeyance is offered only after both home moves
                    home_moves(live, p[live][-1], out)
                move = out[0] if out else (S, deal_target())
                advance(move)
                if move[1] in found:
                    home = g.score
                continue
            for move in moves(g):
                src, dst = move
                if src >= _HEAPS_END or dst >= _HEAPS_END:
                    advance(move)
                    if dst in found:
                        home = g.score
                    seen.clear()
                    entered = False
                    break
                if not entered:
                    alike = g.deal_no >= self.deals
                    seen.add(_heaps_key(p, alike))
                    entered = True
                p[dst].append(p[src].pop())  # what the engine's heap move does (no card is live)
                k = _heaps_key(p, alike)
                if k not in seen:
                    seen.add(k)
                    break
                p[src].append(p[dst].pop())
            else:
                break
        g.touched()
        return g

    def moves(self, game: Game) -> list[Move]:
        assert isinstance(game, LouisGame)
        found = game.foundation_places
        generated = game.legal_pairs()
        if len(generated) == 1:
            return generated  # most often the next card dealt, alone
        home: list[Move] = []
        deal: list[Move] = []
        cells: list[Move] = []
        packs: list[Move] = []
        redeal: list[Move] = []
        for move in dict.fromkeys(generated):  # the two-card move may be listed twice
            src, dst = move
            if dst in found:
                home.append(move)
            elif src == S:
                deal.append(move)
            elif src == REDEAL:
                redeal.append(move)
            elif dst in CELLS:
                cells.append(move)
            else:
                packs.append(move)
        home.sort(key=lambda m: m[0] not in CELLS)
        return home + deal + cells + packs + redeal


def _heaps_key(p: list[list[int]], alike: bool) -> tuple[bytes, ...]:
    """The heaps as :meth:`LouisAdapter.key` has them (see :meth:`LouisAdapter.dive`)."""
    heaps = [bytes(p[h]).translate(_CLASS) for h in HEAPS]
    if alike:
        heaps.sort()
    return tuple(heaps)
