"""Replaying a recorded game: the basis of ``verify`` and of crash recovery."""

from __future__ import annotations

from collections.abc import Iterable

from .deal import Deal
from .errors import IllegalMove, ReplayError
from .game import Game


def new_game(variant: str, deal: Deal) -> Game:
    """A fresh game of ``variant`` (an id of ``terrace.VARIANTS``) on ``deal``.

    ``deal`` is an int for a public numbered deal or bytes for a raw seed.
    """
    from .family import FamilyGame
    from .louis import LouisGame
    from .variants import VARIANTS

    try:
        v = VARIANTS[variant]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}") from None
    engine = LouisGame if v.family == "louis" else FamilyGame
    return engine(v, deal)


def replay(variant: str, deal: Deal, moves: Iterable[str]) -> Game:
    """Play ``moves`` from the start of the deal and return the game.

    Raises :class:`ReplayError` naming the first move that is refused.
    """
    game = new_game(variant, deal)
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except IllegalMove as e:
            raise ReplayError(i, move, e) from None
    return game
