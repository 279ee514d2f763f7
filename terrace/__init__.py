"""Terrace Race's rules engine: the four variants, DEAL-V1 deals, notation, views.

Sans-I/O: plain data in, plain data out. The server, the client, the bots and
the tests all drive this package and nothing here does any I/O.

    >>> import terrace
    >>> g = terrace.new_game("terrace", deal=7)
    >>> g.play("1-F1")
    '1-F1'
"""

from terrace.rules.cards import NAME, parse_card
from terrace.rules.deal import commitment, seed_of, shuffle
from terrace.rules.game import SEARCH_LIMIT, Game
from terrace.rules.moves import Move
from terrace.rules.replay import new_game, replay
from terrace.rules.variants import VARIANTS, Variant
from terrace.rules.versions import RULES_VERSION

from .errors import REASONS, IllegalMove, ReplayError

__all__ = [
    "NAME",
    "REASONS",
    "RULES_VERSION",
    "SEARCH_LIMIT",
    "VARIANTS",
    "Game",
    "IllegalMove",
    "Move",
    "ReplayError",
    "Variant",
    "commitment",
    "new_game",
    "parse_card",
    "replay",
    "seed_of",
    "shuffle",
]
__version__ = "0.1.0"
