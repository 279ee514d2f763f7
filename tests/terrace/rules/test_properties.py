"""Properties over random playouts of every variant (hypothesis chooses deals and moves)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import terrace

VARIANTS = list(terrace.VARIANTS)


def visible_cards(view: dict[str, Any]) -> list[str]:
    """Every card name a view shows, wherever it lies."""
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if k not in ("variant", "phase", "status", "base", "next_heap", "live"):
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            out.append(x)

    walk(view)
    return out


def all_pairs(game: terrace.Game) -> list[str]:
    names = [n for n in game.place_names if n != "redeal"]
    return [f"{a}-{b}" for a in names for b in names] + ["redeal", "recycle"]


def check_position(game: terrace.Game, rng: random.Random) -> None:
    view = game.view()
    json.dumps(view)  # JSON-safe plain data
    # All 104 cards accounted for: internally, and as the player sees them.
    assert sorted(c for p in game._places for c in p) == list(range(104))
    shown = visible_cards(view)
    assert len(shown) + view["stock"] == 104
    assert max(Counter(shown).values()) <= 2
    # The view is blind to the stock: reordering the stock changes nothing shown.
    other = game.copy()
    stock = other._places[-2 if view["variant"] == "louis" else 2]
    rng.shuffle(stock)
    assert other.view() == view
    # Every listed move is accepted under its own name; a few unlisted ones are refused.
    legal = game.legal_moves()
    assert len(set(legal)) == len(legal)
    for move in rng.sample(legal, min(3, len(legal))):
        assert game.resolve(move) == move
    unlisted = [m for m in all_pairs(game) if m not in legal]
    for move in rng.sample(unlisted, min(5, len(unlisted))):
        if game.is_legal(move):  # lenient input naming a listed move another way (W-F5 for W-F3)
            assert game.resolve(move) in legal
            continue
        with pytest.raises(terrace.IllegalMove) as e:
            game.play(move)
        assert e.value.code in terrace.REASONS
        assert game.view() == view


@settings(max_examples=12, deadline=None)
@given(variant=st.sampled_from(VARIANTS), deal=st.integers(0, 10**9), policy=st.integers(0, 2**32))
def test_random_playouts_keep_every_invariant(variant: str, deal: int, policy: int) -> None:
    rng = random.Random(policy)
    game = terrace.new_game(variant, deal=deal)
    while game.status == "playing" and len(game.moves) < 400:
        check_position(game, rng)
        game.play(rng.choice(game.legal_moves()))
    check_position(game, rng)
    again = terrace.replay(variant, deal, game.moves)
    assert again.view() == game.view() and again.status == game.status


@settings(max_examples=40, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS), deal=st.binary(min_size=32, max_size=32), policy=st.integers(0, 2**32)
)
def test_playouts_end_won_or_lost_and_replay_exactly(variant: str, deal: bytes, policy: int) -> None:
    rng = random.Random(policy)
    game = terrace.new_game(variant, deal=deal)
    while game.status == "playing" and len(game.moves) < 5000:
        game.play(rng.choice(game.legal_moves()))
    assert game.status in ("won", "lost")
    assert game.score == sum(len(f) for f in game.view()["foundations"].values())
    again = terrace.replay(variant, deal, game.moves)
    assert again.view() == game.view() and again.moves == game.moves


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_legal_move_of_many_positions_is_accepted_and_nothing_else(variant: str) -> None:
    # Exhaustive over all place pairs, on a few hundred positions.
    rng = random.Random(7)
    for deal in range(3):
        game = terrace.new_game(variant, deal=deal)
        while game.status == "playing" and len(game.moves) < 150:
            legal = set(game.legal_moves())
            for move in all_pairs(game):
                if move in ("recycle",):
                    continue
                ok = game.is_legal(move) and game.resolve(move) == move
                assert ok == (move in legal), (move, str(game))
            game.play(rng.choice(sorted(legal)))


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=20)
@given(deal=st.integers(0, 2**31), seed=st.integers(0, 2**31))
def test_every_view_is_the_position_as_it_is_and_its_own(variant: str, deal: int, seed: int) -> None:
    # The Terrace family names only the places a move changed and reuses the rest: each view
    # must still show the position now, and changing one view (its lists) must change no other.
    rng = random.Random(seed)
    game = terrace.new_game(variant, deal)
    fresh = terrace.new_game(variant, deal)
    for _ in range(150):
        view = game.view()
        assert view == fresh.view()
        for value in [*view.values(), *view.get("piles", {}).values(), *view.get("foundations", {}).values()]:
            if isinstance(value, list):
                value.append("spoilt")  # a caller that keeps and changes its view
        legal = game.legal_moves()
        if not legal:
            break
        move = rng.choice(sorted(legal))
        game.play(move)
        fresh.play(move)
        if hasattr(fresh, "_shown_ids"):  # the same game naming every card afresh
            fresh._shown_ids = [[-1] for _ in fresh._shown_ids]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_copy_and_its_original_each_show_their_own_position(variant: str) -> None:
    rng = random.Random(7)
    game = terrace.new_game(variant, 11)
    for _ in range(40):
        legal = sorted(game.legal_moves())
        if not legal:
            break
        game.play(rng.choice(legal))
    copy = game.copy()
    for g in (game, copy, game, copy):  # different moves on each, views taken in turn
        legal = sorted(g.legal_moves())
        if not legal:
            continue
        g.play(rng.choice(legal))
        replayed = terrace.new_game(variant, 11)
        for move in g.moves:
            replayed.play(move)
        assert g.view() == replayed.view()
