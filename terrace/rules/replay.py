"""Replaying a recorded game: the basis of ``verify`` and of crash recovery."""

from __future__ import annotations

from collections.abc import Iterable

from terrace.errors import IllegalMove, ReplayError
from terrace.rules.deal import Deal
from terrace.rules.game import Game
from terrace.rules.versions import RULES_VERSION


def new_game(variant: str, deal: Deal, *, rules_version: int = RULES_VERSION) -> Game:
    """A fresh game of ``variant`` (an id of ``terrace.VARIANTS``) on ``deal``.

    ``deal`` is an int for a public numbered deal or bytes for a raw seed.
    ``rules_version`` is a key of ``terrace.rules.versions.RULES`` (ValueError otherwise):
    the current rules unless an old record is being replayed.
    """
    from terrace.rules.family import FamilyGame
    from terrace.rules.louis import LouisGame
    from terrace.rules.variants import VARIANTS

    try:
        v = VARIANTS[variant]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}") from None
    engines: dict[str, type[Game]] = {"terrace": FamilyGame, "louis": LouisGame}
    return engines[v.family](v, deal, rules_version)


def replay(variant: str, deal: Deal, moves: Iterable[str], *, rules_version: int = RULES_VERSION) -> Game:
    """Play ``moves`` from the start of the deal under ``rules_version`` and return the game.

    Raises :class:`ReplayError` naming the first move that is refused.
    """
    game = new_game(variant, deal, rules_version=rules_version)
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except IllegalMove as e:
            raise ReplayError(i, move, e) from None
    return game
