"""terrace.solve.hindsight: the move that lost a winnable game, a won game, a spent budget that
claims nothing it did not prove, a game stopped while still winnable, a record's every player."""

from __future__ import annotations

import pytest

import terrace
from terrace.errors import ReplayError
from terrace.solve import LOST, UNKNOWN, WON, Solution, check_line, solve
from terrace.solve.hindsight import Plan, analyse_game, analyse_record, sentence

from .games import LOST_AT_189, SEED


def test_names_the_move_that_lost_a_winnable_game() -> None:
    h = analyse_game("terrace", SEED, LOST_AT_189)
    assert (h.deal, h.verdict, h.won) == (WON, "lost_by_move", False)
    assert (h.last_winnable, h.losing_move, h.first_lost) == (189, 189, 190)
    assert LOST_AT_189[h.losing_move] == "1-F2"
    before = terrace.replay("terrace", SEED, LOST_AT_189[:189])
    assert check_line(before, h.continuation)  # the win the player missed, from just before the move
    after = terrace.replay("terrace", SEED, LOST_AT_189[:190])
    assert solve(after).verdict == LOST  # the claim holds when asked again
    assert h.describe() == "Move 190 lost it (proven): the game was winnable before it and not after."
    assert "lost_by_move" in repr(h) and "losing_move=189" in repr(h)


def test_a_won_game_has_no_losing_move() -> None:
    line = solve(terrace.new_game("terrace", SEED)).moves
    h = analyse_game("terrace", SEED, line)
    assert (h.won, h.verdict, h.deal) == (True, "won", WON)
    assert (h.losing_move, h.first_lost, h.last_winnable, h.continuation) == (None, None, len(line), ())
    assert (h.probes, h.nodes) == (1, 1)  # the end is asked about first: a won game costs nothing more


def test_a_spent_budget_says_unknown_and_claims_nothing_unproven() -> None:
    h = analyse_game("terrace", SEED, LOST_AT_189, nodes=50)
    assert h.verdict == "unknown" and h.losing_move is None
    # whatever it did prove agrees with the generous answer: winnable up to 189, lost from 190
    assert h.last_winnable is None or h.last_winnable <= 189
    assert h.first_lost is None or h.first_lost >= 190
    assert h.nodes <= 50 * 12 + 2  # the game's budget (a stage takes at least one position)
    assert h.to_dict()["verdict"] == "unknown"


def test_a_small_budget_leaves_the_move_undecided_between_what_was_proven() -> None:
    h = analyse_game("terrace", SEED, LOST_AT_189, nodes=30, probes=1)  # the walk back from the end only
    assert h.first_lost is not None and 190 < h.first_lost <= len(LOST_AT_189) and h.last_winnable is None
    assert h.losing_move is None and h.deal == "unknown" and h.nodes <= 32


def test_walking_back_from_the_end_shares_what_was_proven_lost() -> None:
    # the walk proves 19 positions lost one after another, each costing only what is new in it
    h = analyse_game("terrace", SEED, LOST_AT_189, nodes=2_000, probes=1)
    assert (h.verdict, h.losing_move) == ("lost_by_move", 189)
    assert h.nodes < 2_000


def test_a_game_stopped_while_still_winnable_was_not_lost_by_a_move() -> None:
    moves = LOST_AT_189[:100]  # resigned, or out of time, here
    h = analyse_game("terrace", SEED, moves)
    assert (h.verdict, h.last_winnable, h.losing_move, h.first_lost) == ("stopped_winnable", 100, None, None)
    assert check_line(terrace.replay("terrace", SEED, moves), h.continuation)


def test_the_same_game_and_budget_give_the_same_answer() -> None:
    a = analyse_game("terrace", SEED, LOST_AT_189, nodes=5_000)
    b = analyse_game("terrace", SEED, LOST_AT_189, nodes=5_000)
    assert a == b


def test_a_move_list_that_does_not_replay_is_refused() -> None:
    with pytest.raises(ReplayError) as caught:
        analyse_game("terrace", SEED, ["3-F1", "9-F9"])
    assert caught.value.index == 1


def test_a_record_is_analysed_player_by_player() -> None:
    record = {
        "variant": "terrace",
        "seed": SEED.hex(),
        "rules_version": terrace.RULES_VERSION,
        "results": [
            {"player": {"id": "p1", "name": "Ann"}, "move_list": LOST_AT_189},
            {"player": {"id": "p2", "name": "Ben"}, "move_list": LOST_AT_189[:100]},
        ],
    }
    (ann, ha), (ben, hb) = analyse_record(record)
    assert (ann["name"], ha.losing_move) == ("Ann", 189)
    assert (ben["name"], hb.verdict) == ("Ben", "stopped_winnable")


def test_budgets_below_one_are_refused() -> None:
    with pytest.raises(ValueError):
        analyse_game("terrace", SEED, [], nodes=0)


def test_the_plan_asks_the_end_the_deal_then_halves_and_follows_the_players_line() -> None:
    moves = ["a", "b", "c", "d", "e", "f", "g", "h"]  # the plan never plays them: only compares
    plan = Plan(moves, probes=12)
    assert plan.next() == 8
    plan.tell(8, Solution(LOST, (), 1, 0.0))
    assert plan.next() == 0
    plan.tell(0, Solution(WON, ("a", "b", "x", "y"), 10, 0.0))  # the player followed it for two moves
    assert plan.lines[2] == ("x", "y")  # so position 2 is winnable without asking
    assert plan.next() == 5  # the middle of 3..7
    plan.tell(5, Solution(UNKNOWN, (), 100, 0.0))
    assert plan.next() == 4  # below the undecided 5 first: 3, 4
    plan.tell(4, Solution(UNKNOWN, (), 100, 0.0))
    assert plan.next() == 3
    plan.tell(3, Solution(WON, ("y",), 7, 0.0))
    assert plan.next() == 7  # the last winnable is pinned; then proofs of loss among 6, 7
    plan.tell(7, Solution(LOST, (), 5, 0.0))
    assert plan.next() == 6
    plan.tell(6, Solution(LOST, (), 5, 0.0))
    assert plan.next() is None  # nothing left between 3 and 6 but the undecided 4 and 5
    h = plan.result()
    assert (h.verdict, h.last_winnable, h.first_lost, h.losing_move) == ("unknown", 3, 6, None)
    assert (h.nodes, h.probes, h.continuation) == (228, 7, ("y",))


def test_the_plan_stops_at_its_probe_budget_and_when_the_end_is_winnable() -> None:
    plan = Plan(["a", "b"], probes=1)
    plan.tell(plan.next() or 0, Solution(UNKNOWN, (), 9, 0.0))
    assert plan.next() is None and plan.result().verdict == "unknown"
    ended = Plan(["a", "b"])
    assert ended.next() == 2
    ended.tell(2, Solution(WON, ("c",), 3, 0.0))
    assert ended.next() is None  # every earlier position is winnable too
    assert ended.result().verdict == "stopped_winnable"
    with pytest.raises(ValueError):
        Plan([], probes=0)


def _said(verdict: str, last_winnable: int | None = None, first_lost: int | None = None) -> str:
    losing = last_winnable if verdict == "lost_by_move" else None
    game = {
        "verdict": verdict,
        "last_winnable": last_winnable,
        "first_lost": first_lost,
        "losing_move": losing,
    }
    return sentence(game)


def test_the_sentence_says_what_each_verdict_proved_and_no_more() -> None:
    assert _said("won") == "won."
    assert _said("lost_by_move", 163, 164).startswith("move 164 lost it (proven)")
    assert _said("stopped_winnable") == "still winnable when the game ended: no move lost it."
    assert _said("lost_from_deal", None, 0) == "the deal was lost from the start: no line wins it."
    assert _said("unknown").startswith("undecided: no position")
    # both ends proven: the losing move is one of those between, undecided which
    assert _said("unknown", 49, 60).startswith(
        "winnable after move 49 and lost after move 60: one of moves 50 to 60"
    )
    # the end not proven lost (a resigned game, say): no claim that the game was lost at all
    open_end = _said("unknown", 49, None)
    assert open_end.startswith("winnable after move 49; nothing later was proven")
    assert "lost it" not in open_end and "undecided" in open_end
