"""terrace.solve.decide: the decider's verdicts agree with an exhaustive search that has no reductions
(tests/terrace/solve/checker.py) on small positions of every variant, with and without a shared table
of positions proven lost; "lost" comes with the positions the proof covered."""

from __future__ import annotations

import random
from functools import cache

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import terrace
from terrace.rules.game import Game
from terrace.solve import Shaken, adapter_for, solve
from terrace.solve.decide import LOST, UNDECIDED, WINNABLE, Table, decide
from terrace.solve.family import FamilyAdapter
from terrace.solve.search import search
from tests.terrace.positions import family_game

from .checker import winnable
from .test_solver import endgame, full_foundations

NODES = 60_000
# deals the solver wins quickly, per variant: their winning lines lead to small positions
WINNABLE_DEALS = {"terrace": (2, 4), "queen-of-italy": (1, 2), "signora": (3,), "louis": (2, 3)}


@cache
def winning_line(variant: str, deal: int) -> tuple[str, ...]:
    line = solve(terrace.new_game(variant, deal=deal), nodes=200_000).moves
    assert line, (variant, deal)
    return line


def near_the_end(variant: str, deal: int, cut: int, wander: int, seed: int) -> Game:
    """The game ``cut`` moves before the end of a winning line, then ``wander`` random legal moves
    (which may lose it)."""
    line = winning_line(variant, deal)
    g = terrace.replay(variant, deal, line[: max(0, len(line) - cut)])
    rng = random.Random(seed)
    for _ in range(wander):
        moves = sorted(g.legal_moves())
        if not moves or g.won():
            break
        g.play(rng.choice(moves))
    return g


def agree(g: Game, table: Table | None = None) -> str:
    """Decide ``g`` and hold the verdict to the checker's; the verdict."""
    truth = winnable(g)
    assume(truth is not None)  # small enough to search exhaustively
    d = decide(g, nodes=NODES, table=table)
    assert d.verdict != UNDECIDED, "a small position is decided"
    assert d.verdict == (WINNABLE if truth else LOST)
    if d.verdict == WINNABLE:
        assert terrace.solve.check_line(g, d.line)
    else:
        assert d.line == () and d.positions >= 0
    return d.verdict


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(st.sampled_from(["terrace", "queen-of-italy", "signora"]), st.integers(0, 10**6), st.integers(2, 14))
def test_verdicts_agree_with_the_exhaustive_checker_on_endgames(variant: str, seed: int, k: int) -> None:
    # complete foundations less k cards scattered over terrace, waste, stock and piles: the terrace
    # bound and the safe moves home are met here, lost positions among them
    agree(endgame(variant, random.Random(seed), k))


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(
    st.sampled_from([(v, d) for v, deals in WINNABLE_DEALS.items() for d in deals]),
    st.integers(3, 45),
    st.integers(0, 10),
    st.integers(0, 10**6),
)
def test_verdicts_agree_with_the_exhaustive_checker_on_real_games(
    vd: tuple[str, int], cut: int, wander: int, seed: int
) -> None:
    agree(near_the_end(*vd, cut, wander, seed))


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(st.sampled_from(sorted(WINNABLE_DEALS)), st.integers(8, 30), st.integers(0, 10**6))
def test_a_table_shared_along_one_game_keeps_every_verdict_true(variant: str, cut: int, seed: int) -> None:
    # one game's positions from its end backwards, as hindsight walks them: the table of positions
    # proven lost carries from each question to the next
    deal = WINNABLE_DEALS[variant][0]
    line = winning_line(variant, deal)
    played = list(line[: max(0, len(line) - cut)])
    g = terrace.replay(variant, deal, played)
    rng = random.Random(seed)
    for _ in range(12):  # a player wandering off the line
        if g.won() or not g.legal_moves():
            break
        played.append(g.play(rng.choice(sorted(g.legal_moves()))))
    table = Table()
    for k in range(len(played), len(played) - 16, -1):
        position = terrace.replay(variant, deal, played[:k])
        truth = winnable(position)
        if truth is None:
            break
        d = decide(position, nodes=NODES, table=table)
        assert d.verdict == (WINNABLE if truth else LOST)


def test_a_lost_endgame_is_proven_with_the_positions_it_covered() -> None:
    for seed in range(200):
        g = endgame("terrace", random.Random(seed), 10)
        if winnable(g) is False:
            d = decide(g, nodes=NODES)
            assert (d.verdict, d.line) == (LOST, ()) and d.positions >= 1
            assert d.solution.verdict == "lost"
            return
    raise AssertionError("no lost endgame among 200")


def test_the_terrace_bound_cuts_a_position_whose_terrace_card_can_never_go_home() -> None:
    # base A: 3c goes on a black-based foundation over a red 2, and all four red 2s lie under it
    # in the terrace, which only goes home, top first
    below = ["2h", "2h", "2d", "2d"]
    dead = family_game(
        "terrace", base="A", foundations={1: ["Ac"]}, terrace_cards=[*below, "3c"], waste=["As"]
    )
    adapter = FamilyAdapter(dead)
    assert adapter.dead(dead, None)  # a search's first position: every class checked
    assert decide(dead, nodes=10).verdict == LOST  # proven at once
    # the neighbour: one red 2 out of the terrace (in the waste) can go home before 3c
    alive = family_game(
        "terrace", base="A", foundations={1: ["Ac"]}, terrace_cards=[*below[1:], "3c"], waste=["2h"]
    )
    assert not FamilyAdapter(alive).dead(alive, None)
    # a black 3 going home from the waste takes the red 2 that 3c needed: with three red 2s
    # under 3c and the fourth home, a second black 3 is one too many
    before = family_game(
        "terrace", foundations={1: ["Ac", "2d"]}, terrace_cards=[*below[:3], "3c"], waste=["3s"]
    )
    assert not FamilyAdapter(before).dead(before, None)
    after = family_game(
        "terrace", base="A", foundations={1: ["Ac", "2d", "3s"]}, terrace_cards=[*below[:3], "3c"]
    )
    assert FamilyAdapter(after).dead(after, (1, 12))  # asked after W-F1
    assert not FamilyAdapter(after).dead(after, (3, 4))  # a shuffle changes nothing it reads
    # never in signora (its terrace packs late)
    late = family_game(
        "signora", base="A", foundations={1: ["Ac"]}, terrace_cards=[*below, "3c"], waste=["As"]
    )
    assert not FamilyAdapter(late).dead(late, None)


def test_the_terrace_bound_sees_runs_across_levels_that_no_count_of_one_level_shows() -> None:
    # base K, red group: F2 wants Th (level 10), F4 wants 9c (level 9), F6 and F8 are complete.
    # The terrace gives Jc (level 11), then Th, then 9c, each needing the foundation under the
    # next: Jc takes F2 (after Th from pile 4), Th then needs F4 past 9c, which lies beneath it.
    # One card of each level, so no count of one level below a card shows it
    found = full_foundations(False)
    del found[2][-3:]  # F2: Kh .. 9c
    del found[4][-4:]  # F4: Kh .. 8h
    loose = {1: ["Qh"], 2: ["Qh"], 3: ["Jc"], 4: ["Th"]}
    dead = family_game("terrace", foundations=found, terrace_cards=["9c", "Th", "Jc"], piles=loose)
    assert FamilyAdapter(dead).dead(dead, None)
    assert winnable(dead) is False and decide(dead, nodes=10).verdict == LOST
    # 9c above Th: F4 takes 9c, then Th, and the runs fit
    alive = family_game("terrace", foundations=found, terrace_cards=["Th", "9c", "Jc"], piles=loose)
    assert not FamilyAdapter(alive).dead(alive, None)
    assert winnable(alive) is True and decide(alive, nodes=10_000).verdict == WINNABLE


def test_the_terrace_bound_is_asked_for_both_groups_when_the_base_is_chosen() -> None:
    # deal 5 of terrace: every base leaves a group's terrace cards more runs than foundations
    game = terrace.new_game("terrace", deal=5)
    adapter = FamilyAdapter(game)
    moves = adapter.moves(game)
    assert len(moves) == 4
    for move in moves:
        token = adapter.play(game, move)
        assert adapter.dead(game, move), move
        adapter.undo(game, move, token)
    assert decide(game, nodes=100).verdict == LOST


def test_the_win_finder_never_visits_a_position_the_bound_proves_dead() -> None:
    # deal 5 of terrace: every base is cut, so the win-finder's searches see the deal alone
    game = terrace.new_game("terrace", deal=5)
    assert search(game, adapter_for(game, True), 1_000, discrepancies=0).nodes == 1
    shaken = Shaken(adapter_for(game, True), random.Random(0), 0.5, 2)
    assert search(game, shaken, 1_000, discrepancies=0).nodes == 1
