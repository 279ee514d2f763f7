"""Hand-built positions for rule tests.

Tests name cards (``"Th"``); the builder gives each name pack 0's id the first
time and pack 1's the second, so a position may hold both copies of a card.
Places not mentioned are empty. Only the places given need to be consistent
with the rule under test: rules look at tops, never at the whole deck.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import terrace
from terrace.rules import family, louis
from terrace.rules.cards import RANKS, SUITS, parse_card


class _Ids:
    def __init__(self) -> None:
        self.used: set[int] = set()

    def __call__(self, name: str) -> int:
        parsed = parse_card(name)
        assert parsed is not None, name
        rank, suit = parsed
        for pack in (0, 1):
            cid = pack * 52 + suit * 13 + rank - 1
            if cid not in self.used:
                self.used.add(cid)
                return cid
        raise AssertionError(f"a third {name} in one position")

    def many(self, names: Iterable[str]) -> list[int]:
        return [self(n) for n in names]


def run(rank: str, suit: str, length: int, up: bool = True) -> list[str]:
    """``length`` cards of one suit from ``rank``, turning the corner, e.g. run("Q","h",3) = Qh Kh Ah."""
    r = RANKS.index(rank)
    step = 1 if up else -1
    return [RANKS[(r + step * i) % 13] + suit for i in range(length)]


def family_game(
    variant: str = "terrace",
    *,
    base: str = "K",
    terrace_cards: Iterable[str] = (),
    piles: Mapping[int, Iterable[str]] | None = None,
    foundations: Mapping[int, Iterable[str]] | None = None,
    waste: Iterable[str] = (),
    stock: Iterable[str] = (),
    recycled: bool = False,
    rules_version: int = terrace.RULES_VERSION,
) -> family.FamilyGame:
    """A Terrace-family game in the play phase. ``stock`` lists the next card first."""
    g = terrace.new_game(variant, deal=1, rules_version=rules_version)
    assert isinstance(g, family.FamilyGame)
    ids = _Ids()
    places: list[list[int]] = [[] for _ in family.PLACE_NAMES]
    places[family.T] = ids.many(terrace_cards)
    places[family.W] = ids.many(waste)
    for i, cards in (piles or {}).items():
        places[family.PILES[i - 1]] = ids.many(cards)
    for i, cards in (foundations or {}).items():
        places[family.FOUNDATIONS[i - 1]] = ids.many(cards)
    places[family.S] = ids.many(stock)[::-1]
    g._places = places
    g._base = RANKS.index(base) + 1
    if recycled:
        g._recycles_left = 0
    g._legal = g._status = None
    return g


def louis_game(
    *,
    heaps: Mapping[str, Iterable[str]] | None = None,
    foundations: Mapping[str, Iterable[str]] | None = None,
    abeyance: Mapping[str, str] | None = None,
    stock: Iterable[str] = (),
    deal_no: int = 1,
    live: str | None = None,
    rules_version: int = terrace.RULES_VERSION,
) -> louis.LouisGame:
    """A Louis game. Foundations default to their starting ace or king; ``stock`` lists the next card first.

    ``foundations`` maps ``"Ah"`` etc. to the whole pile (bottom first), e.g. run("A","h",5).
    ``rules_version`` 1 gives the rules before version 2 (terrace.rules.versions).
    """
    g = terrace.new_game("louis", deal=1, rules_version=rules_version)
    assert isinstance(g, louis.LouisGame)
    ids = _Ids()
    places: list[list[int]] = [[] for _ in louis.PLACE_NAMES]
    found = {f"A{s}": ["A" + s] for s in SUITS} | {f"K{s}": ["K" + s] for s in SUITS}
    found.update({k: list(v) for k, v in (foundations or {}).items()})
    for name, cards in found.items():
        places[louis.PLACE_NAMES.index(name)] = ids.many(cards)
    for name, cards in (heaps or {}).items():
        places[louis.PLACE_NAMES.index(name)] = ids.many(cards)
    for name, card in (abeyance or {}).items():
        places[louis.PLACE_NAMES.index(name)] = [ids(card)]
    places[louis.S] = ids.many(stock)[::-1]
    g._places = places
    g._deal_no = deal_no
    if live is not None:
        g._live = g._last = louis.PLACE_NAMES.index(live)
        g._first_circuit = False
    g._legal = g._status = None
    return g


def moves_of(game: terrace.Game) -> set[str]:
    return set(game.legal_moves())


def slow_search_position() -> terrace.Game:
    """A Signora position where moving the 6h into the gap leaves no progress move and a
    shuffle space larger than the lost search's limit: every search runs to SEARCH_LIMIT."""
    return family_game(
        "signora",
        foundations={1: ["Kc"]},
        piles={
            1: ["Qh", "Js"],
            2: ["Th", "9s"],
            3: ["Qd", "Jc"],
            4: ["Td", "9c"],
            5: ["8h"],
            6: ["8d"],
            7: ["7s", "6h"],
            8: ["7c"],
        },
        recycled=True,
    )


SLOW_MOVE = "7-9"
