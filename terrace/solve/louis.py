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

from typing import cast

from ..game import Game, Move
from ..louis import CELLS, HEAPS, REDEAL, LouisGame, S

State = tuple[list[list[int]], int, bool, int | None, int | None]
_CLASS = bytes(c % 52 + 1 for c in range(104)) + bytes(152)
_SEP = b"\xff"


class LouisAdapter:
    """Keys, moves and snapshots for :class:`terrace.louis.LouisGame`."""

    def __init__(self, game: LouisGame) -> None:
        self.deals = game.variant.deals

    def snapshot(self, game: Game) -> object:
        assert isinstance(game, LouisGame)
        return ([p[:] for p in game._places], game._deal_no, game._first_circuit, game._last, game._live)

    def restore(self, game: Game, state: object) -> None:
        assert isinstance(game, LouisGame)
        places, game._deal_no, game._first_circuit, game._last, game._live = cast(State, state)
        game._places = [p[:] for p in places]

    def play(self, game: Game, move: Move) -> object:
        state = self.snapshot(game)
        game._apply(move)
        return state

    def undo(self, game: Game, move: Move, token: object) -> None:
        self.restore(game, token)

    def won(self, game: Game) -> bool:
        return game._won()

    def key(self, game: Game) -> bytes:
        assert isinstance(game, LouisGame)
        p = game._places
        heaps = [bytes(p[h]).translate(_CLASS) for h in HEAPS]
        if game._deal_no >= self.deals and not p[S]:
            heaps.sort()
        head = bytes(
            (
                game._deal_no,
                game._first_circuit,
                255 if game._last is None else game._last,
                255 if game._live is None else game._live,
                *(len(p[f]) for f in game.foundation_places),
                *(_CLASS[p[x][0]] if p[x] else 0 for x in CELLS),
            )
        )
        return _SEP.join([head, bytes(p[S]).translate(_CLASS), *heaps])

    def moves(self, game: Game) -> list[Move]:
        assert isinstance(game, LouisGame)
        found = game.foundation_places
        home: list[Move] = []
        deal: list[Move] = []
        cells: list[Move] = []
        packs: list[Move] = []
        redeal: list[Move] = []
        for move in dict.fromkeys(game._generate()):  # the two-card move may be listed twice
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
