"""Cards as small integers, and their names.

A card id is ``pack*52 + suit_index*13 + (rank-1)`` (docs/rulebook.md, "Cards"), so
two packs give ids 0..103. Engines keep ids; views and notation use names
such as ``Th`` or ``As``. Per-card tables are precomputed because move
generation looks them up on every call.
"""

from __future__ import annotations

SUITS = "cdhs"
RANKS = "A23456789TJQK"
RED_SUITS = frozenset("dh")
DECK_SIZE = 104

_SUIT_SYMBOLS = {"♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s"}

# Tables indexed by card id.
RANK: tuple[int, ...] = tuple(c % 13 + 1 for c in range(DECK_SIZE))
SUIT: tuple[int, ...] = tuple((c % 52) // 13 for c in range(DECK_SIZE))
RED: tuple[bool, ...] = tuple(SUITS[s] in RED_SUITS for s in SUIT)
NAME: tuple[str, ...] = tuple(RANKS[RANK[c] - 1] + SUITS[SUIT[c]] for c in range(DECK_SIZE))


def card_id(pack: int, suit: str, rank: int) -> int:
    """The id of the card of ``rank`` (1..13) and ``suit`` (``c d h s``) in ``pack`` (0 or 1)."""
    return pack * 52 + SUITS.index(suit) * 13 + rank - 1


def parse_card(text: str) -> tuple[int, int] | None:
    """Read a card name leniently: ``Th``, ``10h``, ``th``, ``T♥``, ``10H``.

    Returns ``(rank, suit_index)`` or None when the text is not a card. Packs
    are not named: both packs' copies of a card share one name.
    """
    t = text.strip()
    if len(t) < 2:
        return None
    suit_ch = _SUIT_SYMBOLS.get(t[-1], t[-1].lower())
    rank_txt = t[:-1].upper()
    if suit_ch not in SUITS:
        return None
    if rank_txt == "10":
        rank_txt = "T"
    if len(rank_txt) != 1 or rank_txt not in RANKS:
        return None
    return RANKS.index(rank_txt) + 1, SUITS.index(suit_ch)


def normalise_symbols(text: str) -> str:
    """Replace suit symbols with their letters."""
    return "".join(_SUIT_SYMBOLS.get(ch, ch) for ch in text)
