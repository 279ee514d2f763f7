"""The family adapter's own move generation and in-place moves: the engine's legal moves, less
only moves alike, and every move taken back exactly; its own dive (the bots' playout) walks the
very line of the search's reference dive; the dives' shaken order stays a permutation."""

from __future__ import annotations

import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import terrace
from terrace.cards import NAME
from terrace.family import F1, PILES, FamilyGame, S, W
from terrace.solve import Shaken, playout, solve
from terrace.solve.family import FamilyAdapter
from terrace.solve.search import dive
from tests.terrace.positions import family_game

FAMILY = ["terrace", "queen-of-italy", "signora"]


def wander(variant: str, deal: int, steps: int, seed: int) -> FamilyGame:
    """A game ``steps`` random legal moves from deal ``deal``'s start."""
    g = terrace.new_game(variant, deal=deal)
    assert isinstance(g, FamilyGame)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = g.legal_moves()
        if not legal:
            break
        g.play(rng.choice(sorted(legal)))
    return g


def state(g: FamilyGame) -> tuple[object, ...]:
    return ([p[:] for p in g._places], g._base, g._recycles_left)


@settings(max_examples=150)
@given(st.sampled_from(FAMILY), st.integers(1, 10_000), st.integers(0, 200), st.integers(0, 10**6))
def test_unpruned_moves_are_the_engines_less_only_moves_alike(
    variant: str, deal: int, steps: int, seed: int
) -> None:
    g = wander(variant, deal, steps, seed)
    ours = FamilyAdapter(g, safe=False).moves(g)
    engine = g._generate()
    assert set(ours) <= set(engine)
    p = g._places
    for src, dst in set(engine) - set(ours):
        if dst >= F1:
            assert any(m[0] == src and m[1] >= F1 for m in ours)  # another foundation, alike
        else:
            assert dst in PILES and not p[dst]  # another gap, alike, or a lone card to a gap
            assert (src in PILES and len(p[src]) == 1) or any(m[0] == src and not p[m[1]] for m in ours)


@settings(max_examples=150)
@given(st.sampled_from(FAMILY), st.integers(1, 10_000), st.integers(0, 250), st.integers(0, 10**6))
def test_every_move_played_in_place_is_taken_back_exactly(
    variant: str, deal: int, steps: int, seed: int
) -> None:
    g = wander(variant, deal, steps, seed)
    a = FamilyAdapter(g, safe=False)
    before, home = state(g), a.home
    for move in a.moves(g):
        twin = g.copy()
        token = a.play(g, move)
        twin._apply(move)
        assert state(g) == state(twin)  # the same as the engine's own move
        assert a.home == twin.score
        a.undo(g, move, token)
        assert state(g) == before and a.home == home


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILY),
    st.integers(1, 10_000),
    st.integers(0, 250),
    st.integers(0, 10**6),
    st.integers(1, 400),
)
def test_the_adapters_own_dive_ends_where_the_reference_dive_ends(
    variant: str, deal: int, steps: int, seed: int, budget: int
) -> None:
    # the adapter's dive keeps only the positions since the last progress move, with a
    # smaller key: it must walk exactly the line of ``search.dive`` (full keys, all kept)
    g = wander(variant, deal, steps, seed)
    before = state(g)
    ours = FamilyAdapter(g, hasty=True).dive(g, budget)
    reference = dive(g, FamilyAdapter(g, hasty=True), budget)
    assert state(ours) == state(reference)
    assert state(playout(g, budget)) == state(reference)  # the bots' playout is this dive
    assert state(g) == before  # a copy walks, the game stays


def test_the_dive_from_a_deals_start_is_unchanged() -> None:
    # whole games from the start (base chosen by the dive), every variant: the same end as the reference
    for variant in FAMILY:
        for deal in range(1, 31):
            g = terrace.new_game(variant, deal=deal)
            assert isinstance(g, FamilyGame)
            ours = FamilyAdapter(g, hasty=True).dive(g, 400)
            reference = dive(g, FamilyAdapter(g, hasty=True), 400)
            assert state(ours) == state(reference), (variant, deal)


def test_a_gap_filled_from_the_stock_and_a_recycle_are_taken_back() -> None:
    q = family_game("queen-of-italy", piles={1: ["5h"], 2: ["6s"]}, stock=["9c", "2d"])
    a = FamilyAdapter(q)
    before = state(q)
    token = a.play(q, (PILES[0], PILES[1]))  # 5h onto 6s: pile 1 empties, the stock fills it
    assert [NAME[c] for c in q._places[PILES[0]]] == ["9c"] and len(q._places[S]) == 1
    a.undo(q, (PILES[0], PILES[1]), token)
    assert state(q) == before
    s = family_game("signora", waste=["3c", "4d"])
    a = FamilyAdapter(s)
    before = state(s)
    token = a.play(s, (W, S))
    assert [NAME[c] for c in s._places[S]] == ["4d", "3c"] and s._recycles_left == 0
    a.undo(s, (W, S), token)
    assert state(s) == before


def test_shaken_order_is_a_permutation_and_seeded() -> None:
    g = wander("terrace", 7, 40, 1)
    a = FamilyAdapter(g, safe=False)
    first = Shaken(a, random.Random(5), 0.9, 2).moves(g)
    again = Shaken(a, random.Random(5), 0.9, 2).moves(g)
    assert sorted(first) == sorted(a.moves(g)) and first == again


def test_a_cpu_time_budget_says_unknown_when_spent() -> None:
    s = solve(terrace.new_game("terrace", deal=5), nodes=10**7, seconds=0.01, clock=time.process_time)
    assert s.verdict == "unknown" and s.moves == ()
