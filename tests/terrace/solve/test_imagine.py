"""terrace.solve.imagine: games built from a view with a guessed stock play on exactly like the real one."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import terrace
from terrace.rules.cards import NAME
from terrace.solve.imagine import board, imagine, reshuffled, unseen

FAMILY = ("terrace", "queen-of-italy", "signora")
STOCK = {"terrace": 2, "queen-of-italy": 2, "signora": 2, "louis": 24}  # the engine's stock place


def true_stock(g: terrace.Game) -> list[str]:
    return [NAME[c] for c in g._places[STOCK[g.variant.id]][::-1]]  # first element dealt next


def pick(rng: random.Random, legal: list[str]) -> str:
    """Mostly progress moves, so playouts reach the late game (signora's recycle, Louis's redeals)."""
    legal = sorted(legal)
    progress = [m for m in legal if "-F" in m or m[:2] in ("S-", "W-S") or m[-2:-1] in "AK" or m == "redeal"]
    return rng.choice(progress if progress and rng.random() < 0.8 else legal)


def check_same(g: terrace.Game, rng: random.Random, moves: int) -> None:
    """imagine(g's view, g's true stock) is g: same view, same moves, and it plays on identically."""
    view = g.view()
    h = imagine(view, true_stock(g))
    assert h.view() == view
    assert set(h.legal_moves()) == set(g.legal_moves())
    for _ in range(moves):
        if g.status != "playing":
            break
        move = pick(rng, g.legal_moves())
        assert g.play(move) == h.play(move)
        assert h.view() == g.view()
        assert set(h.legal_moves()) == set(g.legal_moves())


@pytest.mark.parametrize("variant", [*FAMILY, "louis"])
@pytest.mark.parametrize("deal", range(1, 9))
def test_imagined_game_plays_on_like_the_real_one(variant: str, deal: int) -> None:
    g = terrace.new_game(variant, deal=deal)
    rng = random.Random(deal)
    step = 0
    while g.status == "playing" and step < 600:
        assert Counter(unseen(g.view())) == Counter(true_stock(g))
        if step % 37 == 0:
            check_same(g.copy(), random.Random(step), 40)
        g.play(pick(rng, g.legal_moves()))
        step += 1
    check_same(g, rng, 40)


def test_choose_base_phase_and_stock_count() -> None:
    g = terrace.new_game("terrace", deal=3)
    view = g.view()
    assert view["phase"] == "choose-base"
    assert len(unseen(view)) == view["stock"] == 89
    h = imagine(view, true_stock(g))
    assert h.view() == view
    h.play("2-F1")
    g.play("2-F1")
    assert h.view() == g.view()


def test_signora_after_the_recycle() -> None:
    g = terrace.new_game("signora", deal=5)
    rng = random.Random(5)
    while g.view()["recycles_left"] == 1 and g.status == "playing":
        g.play(
            "W-S"
            if "W-S" in g.legal_moves()
            else "S-W"
            if "S-W" in g.legal_moves()
            else pick(rng, g.legal_moves())
        )
    assert g.view()["recycles_left"] == 0
    check_same(g, rng, 200)


def test_unseen_is_in_canonical_order() -> None:
    view = terrace.new_game("queen-of-italy", deal=11).view()
    names = unseen(view)
    seen = Counter(view["terrace"]) + Counter(c for p in view["piles"].values() for c in p)
    # Card-id order: a name's pack-0 copy goes to the seen card first, so only both-unseen names repeat.
    ids = [NAME.index(n) + (52 if seen[n] or names[:i].count(n) else 0) for i, n in enumerate(names)]
    assert ids == sorted(ids)


def test_wrong_stock_raises() -> None:
    g = terrace.new_game("terrace", deal=4)
    g.play("1-F1")
    view = g.view()
    stock = true_stock(g)
    with pytest.raises(ValueError):
        imagine(view, stock[:-1])
    with pytest.raises(ValueError):
        imagine(view, [*stock, "As"])
    wrong = [*stock]
    visible = view["terrace"][0]
    swap = next(i for i, c in enumerate(wrong) if c != visible)
    wrong[swap] = visible if Counter(stock)[visible] == 0 else wrong[swap - 1]
    if Counter(wrong) != Counter(stock):
        with pytest.raises(ValueError):
            imagine(view, wrong)
    with pytest.raises(ValueError):
        imagine({**view, "variant": "nope"}, stock)


def test_a_guessed_order_is_a_different_deal_of_the_same_position() -> None:
    g = terrace.new_game("terrace", deal=6)
    g.play("3-F1")
    view = g.view()
    order = unseen(view)
    random.Random(1).shuffle(order)
    h = imagine(view, order)
    assert h.view() == view
    h.play("S-W")
    assert h.view()["waste"] == [order[0]]
    assert board(h) == {k: v for k, v in h.view().items() if k not in ("status", "moves")}


@pytest.mark.parametrize("variant", [*FAMILY, "louis"])
def test_reshuffled_is_the_same_view_with_the_stock_in_another_order(variant: str) -> None:
    g = terrace.new_game(variant, deal=4)
    view = g.view()
    own = imagine(view, unseen(view))
    before = true_stock(own)
    guesses = [reshuffled(own, random.Random(seed)) for seed in range(3)]
    assert true_stock(own) == before  # the game it copies keeps its order
    for h in guesses:
        assert h.view() == view
        assert Counter(true_stock(h)) == Counter(before)
    assert len({tuple(true_stock(h)) for h in [own, *guesses]}) == 4  # each its own order
    assert true_stock(reshuffled(own, random.Random(0))) == true_stock(guesses[0])  # seeded
    h = guesses[0]
    h.play(h.legal_moves()[0])  # plays on, alone
    assert own.view() == view
