"""The family adapter's own move generation and in-place moves: the engine's legal moves, less
only moves alike, and every move taken back exactly; its own dive (the bots' playout) walks the
very line of the search's reference dive, and what the dive remembers between positions never
changes a position's moves; Louis's dive walks the reference line too; the dives' shaken order
stays a permutation."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

import terrace
from terrace.rules.cards import NAME
from terrace.rules.family import F1, PILES, FamilyGame, S, W
from terrace.rules.game import Game, Move
from terrace.rules.louis import CELLS, LouisGame
from terrace.rules.louis import S as LS
from terrace.rules.versions import RULES, RULES_VERSION
from terrace.solve import Shaken, playout, solve
from terrace.solve.family import FamilyAdapter, Memo
from terrace.solve.louis import LouisAdapter
from terrace.solve.search import dive
from tests.terrace.positions import family_game, louis_game, run

FAMILY = ["terrace", "queen-of-italy", "signora"]


def wander(variant: str, deal: int, steps: int, seed: int) -> FamilyGame:
    """A game ``steps`` random legal moves from deal ``deal``'s start."""
    g = walk(variant, deal, steps, seed)
    assert isinstance(g, FamilyGame)
    return g


def walk(variant: str, deal: int, steps: int, seed: int, rules_version: int = RULES_VERSION) -> Game:
    g = terrace.new_game(variant, deal=deal, rules_version=rules_version)
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


@settings(max_examples=150)
@given(
    st.sampled_from(FAMILY),
    st.integers(1, 10_000),
    st.integers(0, 250),
    st.integers(0, 10**6),
    st.booleans(),
    st.booleans(),
)
def test_a_dives_staged_moves_are_the_searchs_one_pass_moves(
    variant: str, deal: int, steps: int, seed: int, hasty: bool, safe: bool
) -> None:
    # two generations of one order: the search's in one pass, the dive's in stages
    g = wander(variant, deal, steps, seed)
    a = FamilyAdapter(g, hasty=hasty, safe=safe)
    assert list(a.ordered(g, Memo())) == a.moves(g)


class Checked(FamilyAdapter):
    """A family adapter whose dive checks every position's moves, as its memo gives them,
    against the search's generation from scratch."""

    checked = 0

    def ordered(self, game: Game, memo: Memo) -> Iterator[Move]:
        remembered = list(super().ordered(game, memo))
        assert remembered == self.moves(game)
        Checked.checked += 1
        return iter(remembered)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FAMILY), st.integers(1, 10_000), st.integers(0, 250), st.integers(0, 10**6))
def test_what_a_dive_remembers_never_changes_a_positions_moves(
    variant: str, deal: int, steps: int, seed: int
) -> None:
    # the dive's memo keeps the foundations' and piles' work between positions: a stale
    # entry would show as moves that differ from a generation from scratch
    g = wander(variant, deal, steps, seed)
    before = Checked.checked
    Checked(g, hasty=True).dive(g, 300)
    assert Checked.checked > before or FamilyAdapter(g, hasty=True).moves(g) == []


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
    # deal 20: neither won nor proven lost within a second (deal 5, once used here, is now proven lost at once)
    s = solve(terrace.new_game("terrace", deal=20), nodes=10**7, seconds=0.01, clock=time.process_time)
    assert s.verdict == "unknown" and s.moves == ()


def louis_state(g: Game) -> tuple[object, ...]:
    assert isinstance(g, LouisGame)
    return ([p[:] for p in g._places], g._deal_no, g._first_circuit, g._last, g._live)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 10_000),
    st.integers(0, 300),
    st.integers(0, 10**6),
    st.integers(1, 500),
    st.sampled_from(sorted(RULES)),
)
def test_louiss_own_dive_ends_where_the_reference_dive_ends(
    deal: int, steps: int, seed: int, budget: int, rules_version: int
) -> None:
    # Louis's dive keeps only the heaps since the last progress move and plays the first
    # move while dealing: it must walk exactly the line of ``search.dive``, by either rules
    g = walk("louis", deal, steps, seed, rules_version)
    before = louis_state(g)
    assert isinstance(g, LouisGame)
    ours = LouisAdapter(g).dive(g, budget)
    reference = dive(g, LouisAdapter(g), budget)
    assert louis_state(ours) == louis_state(reference)
    assert louis_state(playout(g, budget)) == louis_state(reference)  # the bots' playout is this dive
    assert louis_state(g) == before


def test_louiss_dive_from_a_deals_start_is_unchanged() -> None:
    # whole games from the start, through every deal and redeal
    for deal in range(1, 31):
        g = terrace.new_game("louis", deal=deal)
        ours = LouisAdapter(g).dive(g, 600)  # type: ignore[arg-type]
        reference = dive(g, LouisAdapter(g), 600)  # type: ignore[arg-type]
        assert louis_state(ours) == louis_state(reference), deal


def test_louiss_dive_while_dealing_sends_abeyance_home_before_the_live_card_and_the_deal() -> None:
    # the 7h in abeyance fits the king side alone (its twin went up): it goes home first;
    # then the live 6h, which fits the ace side; only then is the next card dealt
    g = louis_game(
        foundations={"Ah": run("A", "h", 6), "Kh": run("K", "h", 6, up=False)},
        abeyance={"Xh": "7h"},
        heaps={"a": ["9c", "6h"], "b": ["9d"]},
        live="a",
        stock=["9s", "Tc"],
    )
    g._places[g.foundation_places[2]].pop()  # the ace side up to 5h: the live 6h fits it
    for steps in (1, 2, 3):
        ours = LouisAdapter(g).dive(g, steps)
        assert louis_state(ours) == louis_state(dive(g, LouisAdapter(g), steps))
    one, two = LouisAdapter(g).dive(g, 1), LouisAdapter(g).dive(g, 2)
    assert not one._places[CELLS[2]] and len(one._places[LS]) == 2  # 7h home, nothing dealt
    assert two._places[0] == [g._places[0][0]] and len(two._places[LS]) == 2  # then 6h home
