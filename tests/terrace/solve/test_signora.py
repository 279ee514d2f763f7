"""terrace.solve.signora: the beam over the stock's cards wins signora deals, each line replayed on
the engine; a spent budget says "unknown"; the answer is the same for the same node budget."""

from __future__ import annotations

from typing import Any

import pytest

import terrace
from terrace.rules.family import PILES, FamilyGame
from terrace.solve import UNKNOWN, WON, check_line, signora, solve
from terrace.solve.signora import _rehearse, evaluate, find_signora_win
from tests.terrace.positions import family_game, run

# Deals the beam of the first width wins (measured: 19,064 and 20,156 positions).
WON_DEALS = (6, 13)


def signora_deal(deal: int) -> FamilyGame:
    g = terrace.new_game("signora", deal=deal)
    assert isinstance(g, FamilyGame)
    return g


def test_wins_fixed_deals_with_lines_that_replay_to_won_games() -> None:
    for deal in WON_DEALS:
        g = signora_deal(deal)
        s = find_signora_win(g, 30_000, None)
        assert s.verdict == WON, deal
        assert s.nodes <= 30_000
        assert check_line(g, s.moves)
        replay = signora_deal(deal)
        for move in s.moves:
            replay.play(move)
        assert replay.status == "won"
        assert g.moves == [] and g.phase == "choose-base"  # the game itself is not changed


def test_solve_takes_the_beam_for_signora() -> None:
    g = signora_deal(WON_DEALS[0])
    s = solve(g, nodes=30_000)
    assert s.verdict == WON and check_line(g, s.moves)


def test_solve_keeps_to_its_node_budget_on_a_deal_the_beam_does_not_win() -> None:
    # every round of the decider narrows its beam to the round's share: all of it is used,
    # none beyond
    s = solve(signora_deal(1), nodes=40_000)
    assert s.verdict == UNKNOWN
    assert s.nodes <= 40_000


def test_the_same_node_budget_gives_the_same_answer() -> None:
    g = signora_deal(WON_DEALS[0])
    a, b = find_signora_win(g, 30_000, None), find_signora_win(g, 30_000, None)
    assert (a.verdict, a.moves, a.nodes) == (b.verdict, b.moves, b.nodes)
    c, d = find_signora_win(g, 2_000, None), find_signora_win(g, 2_000, None)
    assert (c.verdict, c.moves, c.nodes) == (d.verdict, d.moves, d.nodes)


def test_a_spent_budget_says_unknown_never_won() -> None:
    g = signora_deal(WON_DEALS[0])
    s = find_signora_win(g, 2_000, None)
    assert (s.verdict, s.moves) == (UNKNOWN, ())
    assert s.nodes <= 2_000
    timed = find_signora_win(g, 10_000_000, 0.0)
    assert timed.verdict == UNKNOWN


def test_a_wider_beam_the_budget_cannot_finish_is_not_begun(monkeypatch: pytest.MonkeyPatch) -> None:
    # narrow beams (cheap), on a deal they do not win
    g = signora_deal(1)
    monkeypatch.setattr(signora, "WIDTHS", (2,))
    alone = find_signora_win(g, 1_000_000, None)
    assert alone.verdict == UNKNOWN
    monkeypatch.setattr(signora, "WIDTHS", (2, 4))
    # with just more than the first beam's cost, the second (twice as wide) is not begun
    s = find_signora_win(g, alone.nodes + 100, None)
    assert s.verdict == UNKNOWN and s.nodes == alone.nodes
    # with the budget for it, it is
    both = find_signora_win(g, 3 * alone.nodes, None)
    assert both.nodes > alone.nodes


# Deals a beam narrowed to 12,000 positions wins, where the 12-wide beam carried on unnarrowed
# runs out of positions first (measured: 8,054 and 9,530 positions used).
NARROWED_DEALS = (27, 40)


def test_a_small_budget_narrows_the_beam_so_it_finishes_and_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    for deal in NARROWED_DEALS:
        g = signora_deal(deal)
        s = find_signora_win(g, 12_000, None)
        assert s.verdict == WON, deal
        assert s.nodes <= 12_000 and check_line(g, s.moves)
        replay = signora_deal(deal)
        for move in s.moves:
            replay.play(move)
        assert replay.status == "won"
    # never narrowed, the same budget is spent before the beam's end
    monkeypatch.setattr(signora, "MIN_WIDTH", 10**9)
    for deal in NARROWED_DEALS:
        assert find_signora_win(signora_deal(deal), 12_000, None).verdict == UNKNOWN


def test_a_narrowed_beam_gives_the_same_answer_for_the_same_node_budget() -> None:
    g = signora_deal(NARROWED_DEALS[0])
    a, b = find_signora_win(g, 12_000, None), find_signora_win(g, 12_000, None)
    assert (a.verdict, a.moves, a.nodes) == (b.verdict, b.moves, b.nodes)


def test_a_time_budget_narrows_the_beam_as_a_node_budget_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # a clock that moves one "second" per position the walks count: 12,000 such seconds (and
    # no node bound) are 12,000 positions, which the narrowed beam fits in and wins
    ticks = [0.0]
    walk = signora._walk

    def timed_walk(*args: Any) -> Any:
        *rest, count = args

        def counted() -> None:
            ticks[0] += 1.0
            count()

        return walk(*rest, counted)

    monkeypatch.setattr(signora, "_walk", timed_walk)
    for deal in NARROWED_DEALS:
        ticks[0] = 0.0
        g = signora_deal(deal)
        s = find_signora_win(g, 10**9, 12_000.0, lambda: ticks[0])
        assert s.verdict == WON and check_line(g, s.moves), deal
    monkeypatch.setattr(signora, "MIN_WIDTH", 10**9)
    ticks[0] = 0.0
    s = find_signora_win(signora_deal(NARROWED_DEALS[0]), 10**9, 12_000.0, lambda: ticks[0])
    assert s.verdict == UNKNOWN


def test_the_rehearsal_counts_cards_home_and_cards_with_no_place() -> None:
    # base 3; clubs wait for 5c; no gap: 5c goes home and 6c (pile 9's only card) after it,
    # 9h packs on the Ts, 7d fills the gap 6c left, 8d finds no place
    piles = {i: [f"{r}s"] for i, r in zip(range(1, 10), "TJQKA2456", strict=True)}
    piles[9] = ["6c"]
    g = family_game("signora", base="3", foundations={1: run("3", "c", 2)}, piles=piles, recycled=True)
    p = g.places
    assert all(p[i] for i in PILES)
    queue = [_card(g, name, p) for name in ("5c", "9h", "7d", "8d")]
    assert _rehearse(p, 3, queue) == (2, 1)


def test_the_evaluation_favours_cards_home_and_gaps() -> None:
    piles = {1: ["9s", "8h"], 2: ["Qd"]}
    before = family_game("signora", base="3", foundations={1: run("3", "c", 2)}, piles=piles)
    home = family_game("signora", base="3", foundations={1: run("3", "c", 3)}, piles=piles)
    assert evaluate(home, 3) > evaluate(before, 2)
    fewer_gaps = family_game(
        "signora", base="3", foundations={1: run("3", "c", 2)}, piles={**piles, 3: ["Jc"]}
    )
    assert evaluate(before, 2) > evaluate(fewer_gaps, 2)


def _card(g: FamilyGame, name: str, p: list[list[int]]) -> int:
    """A card id of ``name`` that is not in the game (the rehearsal only reads the queue)."""
    used = {c for place in p for c in place}
    ids = [c for c in range(104) if terrace.NAME[c] == name and c not in used]
    return ids[0]
