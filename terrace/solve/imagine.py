"""What a bot may build from what it sees: the unseen cards, and games that guess their order.

A view (``Game.view()``) shows every card but the stock's, whose count alone it
gives. :func:`unseen` names the cards the stock must hold, and :func:`imagine`
builds an engine game in exactly the view's position with a guessed stock
order, so a bot can search or roll out with the engine's own rules
(determinization) without ever seeing the real deal.

    >>> import terrace
    >>> from terrace.solve.imagine import imagine, unseen
    >>> g = terrace.new_game("terrace", deal=7)
    >>> guess = imagine(g.view(), unseen(g.view()))  # the stock in canonical order
    >>> guess.view() == g.view()
    True

Card ids: a name seen twice gets pack 0's id the first time and pack 1's the
second, in place order (the view's places first, the stock last). Ids never
matter to the rules, only names do.

Louis is supported exactly. Its view lacks the engine's ``_last`` and
``_first_circuit``, but while dealing only the card just dealt may leave a heap,
so the heaps pin them down: an empty heap means the first circuit is under way
(the next card fills the first empty heap), and when every heap holds a card
the next heap follows the last one dealt. Any choice consistent with
``next_heap`` deals the same cards to the same heaps. In Louis's second and
third deals (and signora after its recycle) the stock holds cards the player
has seen: the view does not keep their order, so a bot that remembers it must
pass it as ``stock``.

The imagined game's move history is ``view["moves"]`` placeholders (``"?"``),
so its view's move count matches; its ``deal`` is the seed ``b"imagined"``. It
plays under the current rules unless told the race's ``rules_version`` (a race
announces it; the view does not carry it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from terrace.rules.cards import NAME, RANKS, SUITS, parse_card
from terrace.rules.family import FamilyGame
from terrace.rules.game import Game
from terrace.rules.louis import LouisGame
from terrace.rules.variants import VARIANTS
from terrace.rules.versions import RULES_VERSION

__all__ = ["board", "imagine", "reshuffled", "unseen"]

_ID_BY_NAME: dict[str, tuple[int, int]] = {NAME[c]: (c, c + 52) for c in range(52)}
_TEMPLATES: dict[tuple[str, int], Game] = {}  # one game per variant and rules version, copied not dealt


def _family_places(view: dict[str, Any]) -> list[list[str]]:
    """The view's Terrace-family places as names, in engine place order (stock empty)."""
    return [
        list(view["terrace"]),
        list(view["waste"]),
        [],
        *(list(view["piles"][str(i)]) for i in range(1, 10)),
        *(list(view["foundations"][f"F{i}"]) for i in range(1, 9)),
    ]


def _louis_places(view: dict[str, Any]) -> list[list[str]]:
    """The view's Louis places as names, in engine place order (stock and redeal empty)."""
    from terrace.rules.louis import PLACE_NAMES

    heaps = [list(view["heaps"][h]) for h in PLACE_NAMES[0:12]]
    founds = [list(view["foundations"][f]) for f in PLACE_NAMES[12:20]]
    cells = [[c] if (c := view["abeyance"][x]) else [] for x in PLACE_NAMES[20:24]]
    return [*heaps, *founds, *cells, [], []]


def _variant(view: dict[str, Any]) -> str:
    variant = view.get("variant")
    if variant not in VARIANTS:
        raise ValueError(f"not a view of a known variant: {variant!r}")
    return str(variant)


def _places(view: dict[str, Any]) -> list[list[str]]:
    variant = _variant(view)
    if VARIANTS[variant].family == "louis":
        return _louis_places(view)
    return _family_places(view)


def _seen(places: Iterable[list[str]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for place in places:
        for name in place:
            parsed = parse_card(name)
            if parsed is None or RANKS[parsed[0] - 1] + SUITS[parsed[1]] != name:
                raise ValueError(f"not a card name: {name!r}")
            counts[name] += 1
    bad = [n for n, k in counts.items() if k > 2]
    if bad:
        raise ValueError(f"more than two of {', '.join(sorted(bad))} in the view")
    return counts


def unseen(view: dict[str, Any]) -> list[str]:
    """The names of the cards the player cannot see (the stock's multiset), in canonical order.

    Canonical order is card-id order: clubs A..K, diamonds, hearts, spades, then
    the second pack's copies of the cards both of whose copies are unseen.
    """
    seen = _seen(_places(view))
    out: list[str] = []
    for c in range(104):
        name = NAME[c]
        pack = c // 52
        if seen[name] <= pack:  # pack-0 ids go to the seen copies first
            out.append(name)
    if len(out) != view["stock"]:
        raise ValueError(f"the view shows {104 - len(out)} cards but a stock of {view['stock']}")
    return out


def imagine(view: dict[str, Any], stock: Sequence[str], *, rules_version: int = RULES_VERSION) -> Game:
    """An engine game in exactly ``view``'s position whose stock is ``stock`` (dealt first to last),
    played under ``rules_version``.

    Raises ValueError when ``stock`` is not exactly the multiset :func:`unseen` names,
    or when the view is not a consistent position.
    """
    variant = _variant(view)
    places = _places(view)
    if Counter(stock) != Counter(unseen(view)):
        raise ValueError("stock must hold exactly the unseen cards (terrace.solve.imagine.unseen)")
    used: set[int] = set()

    def ids(names: Iterable[str]) -> list[int]:
        out = []
        for name in names:
            first, second = _ID_BY_NAME[name]
            cid = first if first not in used else second
            used.add(cid)
            out.append(cid)
        return out

    template = _TEMPLATES.get((variant, rules_version))
    if template is None:
        from terrace.rules.replay import new_game

        template = new_game(variant, b"imagined", rules_version=rules_version)
        _TEMPLATES[variant, rules_version] = template
    game = template.copy()
    ids_of = [ids(p) for p in places]
    extra: tuple[Any, ...]
    if isinstance(game, FamilyGame):
        from terrace.rules.family import S

        ids_of[S] = ids(stock)[::-1]  # pop() deals the next card
        base = view["base"]
        extra = (None if base is None else RANKS.index(base) + 1, int(view["recycles_left"]))
    else:
        assert isinstance(game, LouisGame)
        extra = _louis_state(view, ids_of, ids(stock))
    game.set_position((ids_of, extra), int(view.get("moves", 0)))
    if board(game) != {k: v for k, v in view.items() if k not in ("status", "moves")}:
        raise ValueError("the view is not a position this variant can reach")
    return game


def _louis_state(view: dict[str, Any], p: list[list[int]], stock: list[int]) -> tuple[Any, ...]:
    """The Louis engine's state besides its places (``LouisGame.snapshot``), with the stock put in ``p``."""
    from terrace.rules.louis import PLACE_NAMES
    from terrace.rules.louis import S as STOCK

    p[STOCK] = stock[::-1]
    deal_no = int(view["deal"])
    live_name = view["live"]
    live = None if live_name is None else PLACE_NAMES.index(live_name)
    nxt = view["next_heap"]
    if nxt is None:  # play phase: a redeal resets the dealing state
        return deal_no, True, None, live
    target = PLACE_NAMES.index(nxt)
    if live is not None:
        # The card just dealt is on top of the live heap; a heap holding only it is being
        # filled by the first circuit (later circuits deal onto the first circuit's cards).
        return deal_no, len(p[live]) == 1, live, live
    if not p[target]:
        # First circuit (later circuits find every heap filled): "the last card went to an
        # empty heap" sends the next card to that heap, the same as "the next heap is empty".
        return deal_no, True, target, live
    return deal_no, False, (target - 1) % 12, live  # every heap holds a card: in order


def reshuffled(game: Game, rng: random.Random) -> Game:
    """A copy of ``game`` (an imagined game) with its stock in a new random order by ``rng``:
    another guess, for the price of a copy (no view to read; :func:`imagine` checks one)."""
    from terrace.rules.family import S as FAMILY_STOCK
    from terrace.rules.louis import S as LOUIS_STOCK

    g = game.copy()
    stock = g.places[FAMILY_STOCK if isinstance(g, FamilyGame) else LOUIS_STOCK][::-1]
    rng.shuffle(stock)
    g.set_stock(stock)
    return g


def board(game: Game) -> dict[str, Any]:
    """``game.view()`` without ``status`` and ``moves``: never runs the lost search, so a
    bot's search can score many positions cheaply."""
    return game.board()
