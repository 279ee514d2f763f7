"""No answer of the engine depends on a card the player cannot see.

Every player of a race has the same deal, so anything that depends on the order of the
stock (a refusal's sentence, the legal moves, the view, the status) would tell a player a
card before it is turned. The property: at any position of any variant, a twin whose stock
holds the same cards in another order answers every move text the same (accepted or not,
the same canonical move, the same code and sentence), and the same view, legal moves and
status; only a move that turns a stock card may then differ.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import terrace
from terrace.rules.cards import RANKS, SUITS
from terrace.rules.game import Game
from terrace.solve.imagine import reshuffled

RANK_FORMS = {r: {r, r.lower()} | ({"10"} if r == "T" else set()) for r in RANKS}
SUIT_FORMS = {
    "c": {"c", "C", "♣", "♧"},
    "d": {"d", "D", "♦", "♢"},
    "h": {"h", "H", "♥", "♡"},
    "s": {"s", "S", "♠", "♤"},
}
# every card of one pack named in every form the engine reads (rank, then suit)
CARD_TEXTS = sorted(
    {r + s for rank in RANKS for r in RANK_FORMS[rank] for suit in SUITS for s in SUIT_FORMS[suit]}
)
FAMILY_PLACES = ["T", "W", "S", "F", *(str(i) for i in range(1, 10)), *(f"F{i}" for i in range(1, 9))]
LOUIS_PLACES = ["S", "F", *"abcdefghiklm", *(k + s for k in "AKX" for s in SUITS)]
WORDS = ["deal", "stock", "redeal", "recycle", "d", "sw", "s-w", "ws", "w-s", "", " ", "-", "->", "?", "help"]
JUNK = st.text(alphabet=st.sampled_from("sSwWtTfF0123456789-> acdhkqjx♣♦♥♠"), max_size=6)


def places(game: Game) -> list[str]:
    return LOUIS_PLACES if game.variant.family == "louis" else FAMILY_PLACES


def single_texts(game: Game) -> list[str]:
    """Every card in every form, every place and every word, each alone (a source with no target)."""
    names = places(game)
    return CARD_TEXTS + names + [n.lower() for n in names] + WORDS


def answer(game: Game, text: str) -> tuple[Any, ...]:
    """What the engine says to ``text``, played on a copy: the refusal's code and sentence, or the
    canonical move with what followed it (unless it turned a stock card, which may differ)."""
    g = game.copy()
    stock = g.view()["stock"]
    try:
        move = g.play(text)
    except terrace.IllegalMove as refused:
        return ("refused", refused.code, refused.message)
    if g.view()["stock"] < stock:  # a card came from the stock: what it is may differ, nothing else
        return ("accepted", move)
    return ("accepted", move, g.last_events, g.view(), sorted(g.legal_moves()), g.status)


def position(variant: str, deal: int, steps: int, seed: int, stock_bias: float) -> Game:
    """A position reached by random legal moves, turning the stock with probability
    ``stock_bias`` when it can (so the end of the stock, a recycle and redeals come up)."""
    rng = random.Random(seed)
    g = terrace.new_game(variant, deal)
    for _ in range(steps):
        if g.status != "playing":
            break
        legal = sorted(g.legal_moves())
        stock = [m for m in legal if m.startswith("S-") or m in ("W-S", "redeal")]
        g.play(rng.choice(stock) if stock and rng.random() < stock_bias else rng.choice(legal))
    return g


def assert_blind_to_the_stock_order(game: Game, texts: list[str], seed: int) -> None:
    twin = reshuffled(game, random.Random(seed))
    assert twin.view() == game.view()
    assert sorted(twin.legal_moves()) == sorted(game.legal_moves())
    assert twin.status == game.status
    for text in texts:
        assert answer(twin, text) == answer(game, text), text


@given(
    variant=st.sampled_from(sorted(terrace.VARIANTS)),
    deal=st.integers(1, 10_000),
    steps=st.sampled_from([0, 0, 1, 5, 40, 150, 400]),
    seed=st.integers(0, 2**32),
    stock_bias=st.sampled_from([0.2, 0.6, 0.95]),
    pairs=st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(["", "-", " ", "->"])),
        max_size=40,
    ),
    junk=st.lists(JUNK, max_size=10),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_answer_depends_on_the_order_of_the_stock(
    variant: str,
    deal: int,
    steps: int,
    seed: int,
    stock_bias: float,
    pairs: list[tuple[int, int, str]],
    junk: list[str],
) -> None:
    game = position(variant, deal, steps, seed, stock_bias)
    singles = single_texts(game)
    sources, targets = singles, places(game)
    typed = [f"{sources[a % len(sources)]}{sep}{targets[b % len(targets)]}" for a, b, sep in pairs]
    assert_blind_to_the_stock_order(game, singles + typed + junk, seed)


def test_the_first_view_names_no_stock_card_when_the_stock_is_asked_to_move() -> None:
    """At the base choice the stock cannot be turned: the refusal says so without naming its
    top card (it once said "Qc at S has no legal move now.")."""
    for variant in ("terrace", "queen-of-italy", "signora"):
        for deal in range(1, 201):
            g = terrace.new_game(variant, deal)
            for text in ("s", "S", "stock", "s-w", "deal"):
                try:
                    g.resolve(text)
                except terrace.IllegalMove as refused:
                    assert refused.code == "choose_base_first", (variant, deal, text, refused)
                else:
                    raise AssertionError(f"{variant} {deal}: {text!r} accepted before the base")


def test_every_variant_after_its_stock_ends_and_comes_again_is_blind_to_its_order() -> None:
    """Signora after its recycle and Louis after a redeal: the stock is cards the player saw, but
    still nothing the server answers may come from its order before a card is turned."""
    for variant, deal in (("signora", 9), ("signora", 253), ("louis", 1), ("louis", 7)):
        game = position(variant, deal, 2_000, deal, 0.97)
        texts = single_texts(game)
        for seed in range(3):
            assert_blind_to_the_stock_order(game, texts, seed)
