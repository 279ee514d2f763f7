"""Louis (docs/rulebook.md: Louis, Moves, When a game is lost): every rule allowed in one position,
refused in its neighbour. These are the current rules; tests/terrace/test_versions.py has version 1's.

Positions are hand-built with ``louis_game``: foundations default to their
starting ace or king, ``stock`` lists the next card first, ``live`` names the
heap whose top is the card just dealt (and puts the deal past its first circuit).
Filler cards such as 9c or Td are chosen so that they fit no foundation.
"""

from __future__ import annotations

import pytest

import terrace
from terrace.rules.cards import NAME
from terrace.rules.louis import FOUNDATION_CARDS
from tests.terrace.cited import LOUIS_1, LOUIS_979, louis_line
from tests.terrace.positions import louis_game, moves_of, run

HEAPS = list("abcdefghiklm")
FOUNDATIONS = ["Ac", "Ad", "Ah", "As", "Kc", "Kd", "Kh", "Ks"]
# Twelve cards that fit no starting foundation and no abeyance, one per heap a..m.
FILLERS = ["9c", "9d", "9s", "Tc", "Td", "Ts", "8c", "8d", "8s", "7c", "7d", "7s"]

# Hearts with the ace side up to 6h and the king side down to 8h: a 7h fits both.
HEARTS_AROUND_7 = {"Ah": run("A", "h", 6), "Kh": run("K", "h", 6, up=False)}
# One 7h went up the ace side: the other 7h now fits only the king side (down to 8h).
TWIN_WENT_UP = {"Ah": run("A", "h", 7), "Kh": run("K", "h", 6, up=False)}
# One 7h went down the king side: the other 7h now fits only the ace side (up to 6h).
TWIN_WENT_DOWN = {"Ah": run("A", "h", 6), "Kh": run("K", "h", 7, up=False)}


def refuse(game: terrace.Game, move: str, code: str) -> terrace.IllegalMove:
    """Play ``move``, expect IllegalMove ``code``, and check nothing changed."""
    before, legal, history = game.view(), moves_of(game), game.moves
    with pytest.raises(terrace.IllegalMove) as excinfo:
        game.play(move)
    assert excinfo.value.code == code, excinfo.value
    assert game.view() == before
    assert moves_of(game) == legal
    assert game.moves == history
    return excinfo.value


def full_heaps(**override: list[str]) -> dict[str, list[str]]:
    """Every heap holding one filler card, with some heaps replaced."""
    heaps = {h: [c] for h, c in zip(HEAPS, FILLERS, strict=False)}
    heaps.update(override)
    return heaps


def s_moves(game: terrace.Game) -> set[str]:
    return {m for m in game.legal_moves() if m.startswith("S-")}


def home_moves(game: terrace.Game) -> set[str]:
    """The legal moves that put a card on a foundation (directly, two-card, from abeyance)."""
    return {m for m in game.legal_moves() if m.partition("-")[2] in FOUNDATIONS}


def play_home_until_stuck(game: terrace.Game) -> None:
    """Send cards home, lowest move first, until none can go (then a redeal is allowed)."""
    while home_moves(game):
        game.play(min(home_moves(game)))


# ----- the deal of a real game --------------------------------------------------------------


def test_new_game_starts_each_of_the_eight_foundations_with_its_ace_or_king() -> None:
    g = terrace.new_game("louis", deal=1)
    v = g.view()
    assert v["foundations"] == {f: [f] for f in FOUNDATIONS}
    assert v["stock"] == 96
    assert v["score"] == 8 == g.score
    assert v["phase"] == "deal" and v["status"] == "playing"
    assert v["deal"] == 1 and v["deals_left"] == 2
    assert v["abeyance"] == {"Xc": None, "Xd": None, "Xh": None, "Xs": None}
    assert v["next_heap"] == "a" and v["live"] is None


def test_foundation_start_cards_are_pack_0s_aces_and_kings() -> None:
    assert [NAME[c] for c in FOUNDATION_CARDS] == FOUNDATIONS
    assert all(c < 52 for c in FOUNDATION_CARDS)


def test_heaps_are_named_a_to_m_without_j() -> None:
    g = terrace.new_game("louis", deal=1)
    assert list(g.view()["heaps"]) == HEAPS
    assert all(cards == [] for cards in g.view()["heaps"].values())


def test_new_game_only_legal_move_is_dealing_to_heap_a() -> None:
    g = terrace.new_game("louis", deal=1)
    assert moves_of(g) == {"S-a"}


def test_new_game_refuses_dealing_to_heap_b() -> None:
    g = terrace.new_game("louis", deal=1)
    refuse(g, "S-b", "wrong_heap")
    refuse(g, "S-m", "wrong_heap")


def test_deal_1_deals_the_rules_test_vector_9d_5d_Jh_8s_3d_onto_heaps_a_to_e() -> None:
    g = terrace.new_game("louis", deal=1)
    assert [g.play("deal") for _ in range(5)] == ["S-a", "S-b", "S-c", "S-d", "S-e"]
    heaps = g.view()["heaps"]
    assert [heaps[h] for h in "abcde"] == [["9d"], ["5d"], ["Jh"], ["8s"], ["3d"]]
    assert g.view()["stock"] == 91 and g.view()["next_heap"] == "f"


def test_dealing_a_real_game_out_without_playing_puts_eight_cards_on_each_heap() -> None:
    g = terrace.new_game("louis", deal=1)
    for _ in range(96):
        assert len(s_moves(g)) == 1  # the deal position forces the heap
        g.play("deal")
    v = g.view()
    assert v["phase"] == "play" and v["stock"] == 0 and v["next_heap"] is None and v["live"] is None
    assert all(len(cards) == 8 for cards in v["heaps"].values())
    assert not s_moves(g)
    refuse(g, "deal", "stock_empty")


# ----- first circuit and later circuits -------------------------------------------------------


def test_first_circuit_deals_again_to_a_heap_whose_card_was_played_away() -> None:
    g = louis_game(stock=["2h", "9c", "9d"])
    assert g.play("deal") == "S-a"
    assert g.play("a-Ah") == "a-Ah"
    assert g.view()["heaps"]["a"] == []
    assert s_moves(g) == {"S-a"} and g.view()["next_heap"] == "a"
    refuse(g, "S-b", "wrong_heap")
    assert g.play("deal") == "S-a"
    assert g.view()["heaps"]["a"] == ["9c"]


def test_first_circuit_moves_on_when_the_dealt_card_stays_on_its_heap() -> None:
    g = louis_game(stock=["2h", "9c", "9d"])
    g.play("S-a")  # the 2h could go home, but it stays
    assert s_moves(g) == {"S-b"}
    refuse(g, "S-a", "wrong_heap")
    assert g.play("deal") == "S-b"


def test_first_circuit_deals_again_to_a_heap_whose_card_went_to_abeyance() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, stock=["7h", "9c"])
    g.play("S-a")
    g.play("a-Xh")
    assert s_moves(g) == {"S-a"}
    refuse(g, "S-b", "wrong_heap")


def test_first_circuit_deals_again_to_heap_m_then_wraps_to_a() -> None:
    g = louis_game(stock=[*FILLERS[:11], "2h", "9h", "5c"])
    assert [g.play("deal") for _ in range(12)][-1] == "S-m"
    g.play("m-Ah")
    assert s_moves(g) == {"S-m"}
    refuse(g, "S-a", "wrong_heap")
    g.play("deal")
    assert g.view()["heaps"]["m"] == ["9h"]
    assert s_moves(g) == {"S-a"}


def test_later_circuit_advances_to_the_next_heap_after_a_dealt_card_is_played_away() -> None:
    g = louis_game(stock=[*FILLERS, "2h", "5c", "5d"])
    for _ in range(12):
        g.play("deal")
    assert g.play("deal") == "S-a"  # the second circuit starts
    g.play("a-Ah")
    assert s_moves(g) == {"S-b"}
    refuse(g, "S-a", "wrong_heap")
    assert g.play("deal") == "S-b"
    assert g.view()["heaps"]["b"] == ["9d", "5c"]


def test_later_circuit_advances_even_when_the_heap_is_empty() -> None:
    g = louis_game(heaps=full_heaps(a=["2h"]), live="a", stock=["5c", "5d"])
    g.play("a-Ah")
    assert g.view()["heaps"]["a"] == []
    assert s_moves(g) == {"S-b"}
    refuse(g, "S-a", "wrong_heap")


# ----- while dealing: only the card just dealt --------------------------------------------------


def test_card_just_dealt_may_go_to_its_foundation() -> None:
    g = louis_game(stock=["2h", "9c"])
    g.play("deal")
    assert g.view()["live"] == "a"
    assert "a-Ah" in moves_of(g)
    assert g.play("a-Ah") == "a-Ah"
    assert g.view()["foundations"]["Ah"] == ["Ah", "2h"] and g.score == 9
    assert g.last_events == [{"type": "home", "card": "2h", "to": "Ah"}]


def test_card_just_dealt_may_not_be_played_after_the_next_deal() -> None:
    g = louis_game(stock=["2h", "9c", "9d"])
    g.play("deal")
    g.play("deal")
    assert g.view()["live"] == "b"
    assert "a-Ah" not in moves_of(g)
    refuse(g, "a-Ah", "deal_in_progress")


def test_card_beneath_the_card_just_dealt_waits_after_that_card_is_played() -> None:
    g = louis_game(heaps=full_heaps(a=["3h", "2h"]), live="a", stock=["9h"])
    g.play("a-Ah")
    assert g.view()["live"] is None and g.view()["heaps"]["a"] == ["3h"]
    assert moves_of(g) == {"S-b"}
    refuse(g, "a-Ah", "deal_in_progress")


def test_card_just_dealt_refused_on_a_foundation_where_it_does_not_fit() -> None:
    g = louis_game(stock=["3h", "9c"])
    g.play("deal")
    refuse(g, "a-Ah", "foundation_rank")
    refuse(g, "a-Ad", "foundation_suit")
    refuse(g, "a-Xh", "abeyance_needs_both")


def test_other_heap_tops_wait_while_dealing_even_when_they_fit_a_foundation() -> None:
    g = louis_game(heaps=full_heaps(a=["2h"]), live="b", stock=["9h"])
    assert moves_of(g) == {"S-c"}
    refuse(g, "a-Ah", "deal_in_progress")


def test_other_heap_tops_may_not_pack_on_heaps_while_dealing() -> None:
    g = louis_game(heaps=full_heaps(a=["5h"], b=["6h"]), live="c", stock=["9h"])
    refuse(g, "a-b", "deal_in_progress")


def test_card_just_dealt_may_not_go_to_another_heap() -> None:
    dealing = louis_game(heaps=full_heaps(a=["6h"], b=["5h"]), live="b", stock=["9h"])
    refuse(dealing, "b-a", "dealt_card_targets")
    playing = louis_game(heaps=full_heaps(a=["6h"], b=["5h"]))
    assert playing.play("b-a") == "b-a"


def test_card_just_dealt_may_go_to_abeyance() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, heaps=full_heaps(a=["9c", "7h"]), live="a", stock=["9h"])
    assert {"a-Ah", "a-Kh", "a-Xh"} <= moves_of(g)
    assert g.play("a-Xh") == "a-Xh"
    assert g.view()["abeyance"]["Xh"] == "7h" and g.view()["live"] is None
    assert s_moves(g) == {"S-b"}


def test_abeyance_card_that_fits_one_side_may_go_there_alone_while_dealing() -> None:
    # The other 7h went up the ace side, so the waiting 7h fits only the king side.
    g = louis_game(
        foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"}, heaps=full_heaps(), live="a", stock=["9h"]
    )
    assert "Xh-Kh" in moves_of(g)
    assert g.play("Xh-Kh") == "Xh-Kh"
    assert g.view()["foundations"]["Kh"][-1] == "7h"
    assert g.view()["phase"] == "deal"


def test_abeyance_card_that_fits_both_sides_waits_while_dealing() -> None:
    g = louis_game(
        foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps=full_heaps(), live="a", stock=["9h"]
    )
    assert moves_of(g) == {"S-b"}
    refuse(g, "Xh-Kh", "abeyance_waits")
    refuse(g, "Xh-Ah", "abeyance_waits")


def test_dealing_the_last_card_ends_the_deal_phase_and_frees_every_heap_top() -> None:
    g = louis_game(heaps=full_heaps(a=["2h"]), live="l", stock=["9h"])
    refuse(g, "a-Ah", "deal_in_progress")
    g.play("deal")
    assert g.view()["phase"] == "play"
    assert g.play("a-Ah") == "a-Ah"


# ----- play phase: foundations ---------------------------------------------------------------


def test_heap_top_goes_up_on_its_ace_foundation() -> None:
    g = louis_game(heaps={"a": ["9c", "2h"]})
    assert g.play("a-Ah") == "a-Ah"
    assert g.view()["foundations"]["Ah"] == ["Ah", "2h"] and g.score == 9


def test_ace_foundation_refuses_a_card_that_is_not_one_rank_up() -> None:
    g = louis_game(heaps={"a": ["9c", "3h"]})
    refuse(g, "a-Ah", "foundation_rank")


def test_ace_foundation_does_not_build_down() -> None:
    g = louis_game(foundations={"Ah": run("A", "h", 5)}, heaps={"a": ["4h"]})
    refuse(g, "a-Ah", "foundation_rank")


def test_heap_top_goes_down_on_its_king_foundation() -> None:
    g = louis_game(heaps={"a": ["9c", "Qh"]})
    assert g.play("a-Kh") == "a-Kh"
    assert g.view()["foundations"]["Kh"] == ["Kh", "Qh"] and g.score == 9


def test_king_foundation_refuses_a_card_that_is_not_one_rank_down() -> None:
    g = louis_game(heaps={"a": ["9c", "Jh"]})
    refuse(g, "a-Kh", "foundation_rank")


def test_king_foundation_does_not_build_up() -> None:
    g = louis_game(foundations={"Kh": run("K", "h", 5, up=False)}, heaps={"a": ["Th"]})
    refuse(g, "a-Kh", "foundation_rank")


def test_foundations_refuse_another_suit() -> None:
    g = louis_game(heaps={"a": ["2h"], "b": ["Qh"], "c": ["2d"]})
    refuse(g, "a-Ad", "foundation_suit")
    refuse(g, "b-Kd", "foundation_suit")
    refuse(g, "a-Kc", "foundation_suit")
    assert g.play("c-Ad") == "c-Ad"


def test_ace_foundation_takes_its_king_as_the_thirteenth_card() -> None:
    g = louis_game(foundations={"Ah": run("A", "h", 12)}, heaps={"a": ["Kh"]})
    assert g.play("a-Ah") == "a-Ah"
    assert len(g.view()["foundations"]["Ah"]) == 13


def test_complete_ace_foundation_does_not_turn_the_corner_to_an_ace() -> None:
    g = louis_game(foundations={"Ah": run("A", "h", 13)}, heaps={"a": ["Ah"]})
    refuse(g, "a-Ah", "foundation_complete")


def test_king_foundation_takes_its_ace_as_the_thirteenth_card() -> None:
    g = louis_game(foundations={"Kh": run("K", "h", 12, up=False)}, heaps={"a": ["Ah"]})
    assert g.play("a-Kh") == "a-Kh"
    assert len(g.view()["foundations"]["Kh"]) == 13


def test_complete_king_foundation_does_not_turn_the_corner_to_a_king() -> None:
    g = louis_game(foundations={"Kh": run("K", "h", 13, up=False)}, heaps={"a": ["Kh"]})
    refuse(g, "a-Kh", "foundation_complete")


def test_foundation_cards_never_leave() -> None:
    # A foundation name as a source is read as that card, which is on no heap or cell.
    g = louis_game(heaps={"a": ["3h"], "b": ["Qh"]}, foundations={"Ah": ["Ah", "2h"]})
    refuse(g, "Ah-a", "card_not_available")
    refuse(g, "Kh-Ah", "card_not_available")
    assert not any(m.startswith(("A", "K")) for m in g.legal_moves())


# ----- play phase: heap to heap ------------------------------------------------------------------


def test_heap_top_packs_on_same_suit_one_rank_higher() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6h"]})
    assert g.play("a-b") == "a-b"
    assert g.view()["heaps"]["b"] == ["6h", "5h"] and g.view()["heaps"]["a"] == []


def test_heap_top_packs_on_same_suit_one_rank_lower() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6h"]})
    assert g.play("b-a") == "b-a"
    assert g.view()["heaps"]["a"] == ["5h", "6h"]


def test_heap_to_heap_refuses_another_suit() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6d"], "c": ["4c"]})
    refuse(g, "a-b", "heap_sequence")
    refuse(g, "a-c", "heap_sequence")


def test_heap_to_heap_refuses_a_rank_two_away_or_the_same_rank() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["7h"], "c": ["5h"]})
    refuse(g, "a-b", "heap_sequence")
    refuse(g, "a-c", "heap_sequence")


def test_heap_to_heap_does_not_turn_the_corner() -> None:
    # Pack 1's Ah and Kh fit no foundation yet; A and K are not one rank apart.
    g = louis_game(heaps={"a": ["Ah"], "b": ["Kh"], "c": ["2h"]})
    refuse(g, "a-b", "heap_sequence")
    refuse(g, "b-a", "heap_sequence")


def test_heap_to_an_empty_heap_is_refused() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6h"]})
    refuse(g, "a-c", "heap_to_empty")
    assert not any(m.endswith("-c") for m in g.legal_moves())


def test_card_that_can_go_home_may_not_pack_on_a_heap() -> None:
    g = louis_game(heaps={"a": ["2h"], "b": ["3h"]})
    refuse(g, "a-b", "must_go_home")
    assert {m for m in moves_of(g) if m.startswith("a-")} == {"a-Ah"}


def test_card_that_cannot_go_home_may_pack_where_its_twin_could_not() -> None:
    # Neighbour: the ace side already holds a 2h, so this 2h (pack 1) cannot go home.
    g = louis_game(foundations={"Ah": ["Ah", "2h"]}, heaps={"a": ["2h"], "b": ["3h"]})
    assert "a-b" in moves_of(g)
    assert g.play("a-b") == "a-b"


def test_card_that_can_go_home_only_by_the_abeyance_move_may_not_pack() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["6h"], "b": ["5h"]})
    refuse(g, "a-b", "must_go_home")
    empty_cell = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["6h"], "b": ["5h"]})
    assert empty_cell.play("a-b") == "a-b"


# ----- abeyance ----------------------------------------------------------------------------------


def test_card_fitting_both_foundations_may_wait_in_its_abeyance_cell() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["9c", "7h"]})
    assert {"a-Ah", "a-Kh", "a-Xh"} <= moves_of(g)
    assert g.play("a-Xh") == "a-Xh"
    v = g.view()
    assert v["abeyance"]["Xh"] == "7h" and v["heaps"]["a"] == ["9c"] and v["score"] == 6 + 6 + 6
    assert g.last_events == []


def test_abeyance_refused_when_the_card_fits_only_the_ace_foundation() -> None:
    g = louis_game(foundations={"Ah": run("A", "h", 6), "Kh": ["Kh", "Qh"]}, heaps={"a": ["7h"]})
    assert "a-Ah" in moves_of(g)
    refuse(g, "a-Xh", "abeyance_needs_both")


def test_abeyance_refused_when_the_card_fits_only_the_king_foundation() -> None:
    g = louis_game(foundations={"Ah": ["Ah", "2h"], "Kh": run("K", "h", 6, up=False)}, heaps={"a": ["7h"]})
    assert "a-Kh" in moves_of(g)
    refuse(g, "a-Xh", "abeyance_needs_both")


def test_abeyance_refused_when_the_card_fits_no_foundation() -> None:
    g = louis_game(heaps={"a": ["7h"]})
    refuse(g, "a-Xh", "abeyance_needs_both")


def test_abeyance_refused_when_the_cell_is_full() -> None:
    # Both 7h fit both foundations; the cell holds one card only.
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["7h"]})
    refuse(g, "a-Xh", "abeyance_full")


def test_abeyance_refused_in_another_suits_cell() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["7h"]})
    refuse(g, "a-Xs", "abeyance_suit")
    refuse(g, "a-Xd", "abeyance_suit")
    assert g.play("a-Xh") == "a-Xh"


def test_abeyance_card_that_fits_both_sides_may_not_leave_alone() -> None:
    # The book holds it provisionally until a continuing card decides the side.
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["9c"]})
    assert not any(m.startswith("Xh") for m in g.legal_moves())
    err = refuse(g, "Xh-Ah", "abeyance_waits")
    assert err.message.startswith("The card in abeyance waits for a card that continues one side")
    refuse(g, "Xh-Kh", "abeyance_waits")
    refuse(g, "Xh-F", "abeyance_waits")
    refuse(g, "7h-Kh", "abeyance_waits")


def test_abeyance_card_may_go_alone_to_the_ace_side_once_its_twin_went_down_the_king_side() -> None:
    g = louis_game(foundations=TWIN_WENT_DOWN, abeyance={"Xh": "7h"}, heaps={"a": ["9c"]})
    assert {m for m in moves_of(g) if m.startswith("Xh")} == {"Xh-Ah"}
    assert g.play("Xh-Ah") == "Xh-Ah"
    assert g.view()["foundations"]["Ah"][-1] == "7h" and g.view()["abeyance"]["Xh"] is None
    assert g.last_events == [{"type": "home", "card": "7h", "to": "Ah"}]


def test_abeyance_card_may_go_alone_to_the_king_side_once_its_twin_went_up_the_ace_side() -> None:
    g = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"}, heaps={"a": ["9c"]})
    assert {m for m in moves_of(g) if m.startswith("Xh")} == {"Xh-Kh"}
    assert g.play("Xh-Kh") == "Xh-Kh"
    assert g.view()["foundations"]["Kh"][-1] == "7h" and g.view()["abeyance"]["Xh"] is None


def test_abeyance_card_refused_on_a_foundation_where_it_no_longer_fits() -> None:
    g = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"})
    refuse(g, "Xh-Ah", "foundation_rank")
    assert g.play("Xh-Kh") == "Xh-Kh"


def test_abeyance_card_may_not_go_to_a_heap() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["8h"]})
    refuse(g, "Xh-a", "bad_target")


def test_two_card_move_plays_the_abeyance_card_then_one_below_it_to_the_king_side() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["9c", "6h"]})
    before = g.score
    assert "a-Kh" in moves_of(g)
    assert g.play("a-Kh") == "a-Kh"
    v = g.view()
    assert v["foundations"]["Kh"][-3:] == ["8h", "7h", "6h"]
    assert v["abeyance"]["Xh"] is None and v["heaps"]["a"] == ["9c"]
    assert g.score == before + 2
    assert g.last_events == [
        {"type": "home", "card": "7h", "to": "Kh"},
        {"type": "home", "card": "6h", "to": "Kh"},
    ]


def test_two_card_move_plays_the_abeyance_card_then_one_above_it_to_the_ace_side() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["9c", "8h"]})
    before = g.score
    assert g.play("a-Ah") == "a-Ah"
    v = g.view()
    assert v["foundations"]["Ah"][-3:] == ["6h", "7h", "8h"]
    assert v["abeyance"]["Xh"] is None and g.score == before + 2


def test_two_card_move_refused_on_the_wrong_side() -> None:
    # One below the abeyance card goes to the king side only; one above, to the ace side only.
    below = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["6h"]})
    refuse(below, "a-Ah", "foundation_rank")
    above = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["8h"]})
    refuse(above, "a-Kh", "foundation_rank")


def test_two_card_move_refused_for_a_card_two_ranks_from_the_abeyance_card() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["5h"], "b": ["9h"]})
    refuse(g, "a-Kh", "foundation_rank")
    refuse(g, "b-Ah", "foundation_rank")


def test_two_card_move_refused_when_the_abeyance_cell_is_empty() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["6h"]})
    refuse(g, "a-Kh", "foundation_rank")


def test_two_card_move_still_works_once_the_abeyance_card_fits_one_side_only() -> None:
    g = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"}, heaps={"a": ["9c", "6h"]})
    assert {"a-Kh", "Xh-Kh"} <= moves_of(g)
    assert g.play("a-Kh") == "a-Kh"
    assert g.view()["foundations"]["Kh"][-3:] == ["8h", "7h", "6h"]
    assert g.view()["abeyance"]["Xh"] is None


def test_two_card_move_works_for_the_card_just_dealt() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, stock=["6h", "9c"])
    g.play("deal")
    assert g.play("a-Kh") == "a-Kh"
    assert g.view()["foundations"]["Kh"][-2:] == ["7h", "6h"]
    assert s_moves(g) == {"S-a"}  # first circuit: heap a is empty again


# ----- redeal ------------------------------------------------------------------------------------

# Thirteen cards on the heaps, g holding two: gathered order g h i k l m a b c d e f.
REDEAL_HEAPS = {
    "a": ["3c"], "b": ["4c"], "c": ["5c"], "d": ["6c"], "e": ["7c"], "f": ["8c"],
    "g": ["9c", "9d"], "h": ["Tc"], "i": ["Jc"], "k": ["3d"], "l": ["4d"], "m": ["5d"],
}  # fmt: skip
GATHERED = ["9c", "9d", "Tc", "Jc", "3d", "4d", "5d", "3c", "4c", "5c", "6c", "7c", "8c"]


def test_redeal_gathers_heaps_g_to_m_then_a_to_f_each_bottom_to_top() -> None:
    g = louis_game(heaps=REDEAL_HEAPS)
    assert "redeal" in moves_of(g)
    assert g.play("redeal") == "redeal"
    assert g.last_events == [{"type": "redealt", "deal": 2}]
    v = g.view()
    assert v["stock"] == 13 and all(cards == [] for cards in v["heaps"].values())
    assert v["deal"] == 2 and v["deals_left"] == 1 and v["phase"] == "deal" and v["next_heap"] == "a"
    assert [g.play("deal") for _ in range(13)] == [f"S-{h}" for h in HEAPS] + ["S-a"]
    heaps = g.view()["heaps"]
    assert heaps["a"] == [GATHERED[0], GATHERED[12]]
    assert [heaps[h][0] for h in HEAPS] == GATHERED[:12]


def test_redeal_of_a_real_deal_deals_the_gathered_heaps_first_card_first() -> None:
    g = terrace.new_game("louis", deal=1)
    for _ in range(96):
        g.play("deal")
    play_home_until_stuck(g)
    old = g.view()["heaps"]
    gathered = [c for h in "ghiklmabcdef" for c in old[h]]
    g.play("redeal")
    while g.view()["stock"]:
        g.play("deal")
    new = g.view()["heaps"]
    assert {h: new[h] for h in HEAPS} == {h: gathered[i::12] for i, h in enumerate(HEAPS)}


def test_redeal_restarts_at_heap_a_with_the_first_circuit_rule() -> None:
    # The first deal is past its first circuit when its last card goes to heap m. The 2h
    # lies under the 9d, so no card can go home and the heaps may be gathered.
    g = louis_game(heaps={"a": ["9c"], "g": ["2h", "9d"], "l": ["9s"]}, live="l", stock=["5c"])
    g.play("deal")
    assert g.view()["heaps"]["m"] == ["5c"]
    g.play("redeal")
    assert g.play("deal") == "S-a"
    assert g.view()["heaps"]["a"] == ["2h"]
    g.play("a-Ah")
    assert s_moves(g) == {"S-a"}
    refuse(g, "S-b", "wrong_heap")
    assert g.play("deal") == "S-a"
    assert g.play("deal") == "S-b"
    assert g.play("deal") == "S-c"
    assert g.play("deal") == "S-d"
    assert g.view()["heaps"] == {h: [] for h in HEAPS} | {"a": ["9d"], "b": ["9s"], "c": ["5c"], "d": ["9c"]}


def test_redeal_keeps_abeyance_cards_in_their_cells() -> None:
    # The 7s fits both sides, so it waits; the 6s under the 9c will continue the king side.
    g = louis_game(
        foundations={"As": run("A", "s", 6), "Ks": run("K", "s", 6, up=False)},
        abeyance={"Xs": "7s"},
        heaps={"a": ["6s", "9c"], "b": ["9d"]},
    )
    g.play("redeal")
    v = g.view()
    assert v["abeyance"]["Xs"] == "7s" and v["stock"] == 3
    assert g.play("deal") == "S-a"
    assert g.play("a-Ks") == "a-Ks"
    assert g.view()["foundations"]["Ks"][-2:] == ["7s", "6s"]


def test_redeal_allowed_when_no_card_can_go_to_a_foundation() -> None:
    g = louis_game(heaps={"a": ["3h"], "b": ["4h"], "c": ["Jc"]})
    assert not home_moves(g)
    assert "redeal" in moves_of(g)
    assert g.play("redeal") == "redeal"


def test_redeal_refused_while_a_heap_top_can_go_to_a_foundation() -> None:
    g = louis_game(heaps={"a": ["3h"], "b": ["2h"], "c": ["Jc"]})
    assert home_moves(g) == {"b-Ah"}
    assert "redeal" not in moves_of(g)
    err = refuse(g, "redeal", "redeal_while_playable")
    assert err.message == "Gather the heaps only when no card can go home."
    g.play("b-Ah")
    g.play("a-Ah")
    assert g.play("redeal") == "redeal"


def test_redeal_refused_while_a_card_can_go_home_by_the_two_card_move() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["6h"], "b": ["9c"]})
    assert home_moves(g) == {"a-Kh"}
    refuse(g, "redeal", "redeal_while_playable")
    neighbour = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["5h"]})
    assert neighbour.play("redeal") == "redeal"  # the 7h still fits both sides, so it waits


def test_redeal_refused_while_the_abeyance_card_can_go_home_alone() -> None:
    g = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"}, heaps={"a": ["9c"]})
    assert home_moves(g) == {"Xh-Kh"}
    refuse(g, "redeal", "redeal_while_playable")
    g.play("Xh-Kh")
    assert g.play("redeal") == "redeal"


def test_redeal_refused_while_a_card_fitting_both_sides_could_go_to_abeyance() -> None:
    # A card that may go to abeyance fits both foundations, so it can go home.
    g = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["7h"]})
    assert home_moves(g) == {"a-Ah", "a-Kh"}
    refuse(g, "redeal", "redeal_while_playable")
    g.play("a-Xh")
    assert g.play("redeal") == "redeal"


def test_redeal_refused_while_stock_remains() -> None:
    g = louis_game(heaps=full_heaps(), live="a", stock=["9h"])
    assert "redeal" not in moves_of(g)
    refuse(g, "redeal", "redeal_while_dealing")
    g.play("deal")
    assert g.play("redeal") == "redeal"


def test_redeal_allowed_in_the_second_deal_starts_the_third() -> None:
    g = louis_game(heaps={"a": ["9c"]}, deal_no=2)
    assert g.play("redeal") == "redeal"
    assert g.view()["deal"] == 3 and g.view()["deals_left"] == 0


def test_redeal_refused_in_the_third_deal() -> None:
    g = louis_game(heaps={"a": ["9c"], "b": ["2h"]}, deal_no=3)
    assert "redeal" not in moves_of(g)
    refuse(g, "redeal", "no_more_deals")


def test_three_deals_in_all_from_a_real_game() -> None:
    g = terrace.new_game("louis", deal=1)
    for n in (1, 2, 3):
        assert g.view()["deal"] == n
        while g.view()["stock"]:
            g.play("deal")
        play_home_until_stuck(g)
        if n < 3:
            g.play("redeal")
    refuse(g, "redeal", "no_more_deals")


def test_third_deal_refuses_redeal_as_no_more_deals_even_while_a_card_can_go_home() -> None:
    g = louis_game(heaps={"a": ["9c"], "b": ["2h"]}, deal_no=3)
    refuse(g, "redeal", "no_more_deals")


# ----- status ------------------------------------------------------------------------------------


def _all_home_but_the_last_ace_of_hearts() -> terrace.Game:
    foundations = {f"A{s}": run("A", s, 13) for s in "cdhs"}
    foundations |= {f"K{s}": run("K", s, 13, up=False) for s in "cds"}
    foundations["Kh"] = run("K", "h", 12, up=False)
    return louis_game(foundations=foundations, heaps={"a": ["Ah"]}, deal_no=3)


def test_game_is_won_when_all_104_cards_are_home() -> None:
    g = _all_home_but_the_last_ace_of_hearts()
    assert g.score == 103 and g.status == "playing"
    g.play("a-Kh")
    assert g.score == 104 and g.status == "won" and g.view()["status"] == "won"
    assert g.last_events[-1] == {"type": "game_over", "status": "won"}
    assert g.legal_moves() == []
    refuse(g, "redeal", "game_over")


def test_game_is_won_in_the_first_deal_too() -> None:
    g = _all_home_but_the_last_ace_of_hearts()
    g._deal_no = 1
    g.play("a-Kh")
    assert g.status == "won" and g.last_events[-1] == {"type": "game_over", "status": "won"}


def test_third_deal_play_phase_with_no_possible_move_is_lost() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["9c"]}, deal_no=3)
    assert g.legal_moves() == []
    assert g.status == "lost" and g.view()["status"] == "lost"


def test_cards_shuttling_between_heaps_for_ever_is_lost() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6h"]}, deal_no=3)
    assert moves_of(g) == {"a-b", "b-a"}
    assert g.status == "lost"


def test_progress_reachable_only_through_a_shuffle_is_not_lost() -> None:
    # 9c onto Tc uncovers the 2h, which goes home.
    g = louis_game(heaps={"a": ["2h", "9c"], "b": ["Tc"]}, deal_no=3)
    assert not any(m.endswith(("Ah", "Kh", "Ac", "Kc")) for m in g.legal_moves())
    assert g.status == "playing"


def test_neighbour_where_the_uncovering_shuffle_is_impossible_is_lost() -> None:
    g = louis_game(heaps={"a": ["2h", "9c"], "b": ["Td"]}, deal_no=3)
    assert g.status == "lost"


def test_progress_reachable_through_several_shuffles_is_not_lost() -> None:
    # 5d onto 6d uncovers the Tc; 9c onto Tc uncovers the 2h.
    g = louis_game(heaps={"a": ["2h", "9c"], "b": ["Tc", "5d"], "c": ["6d"]}, deal_no=3)
    assert g.status == "playing"


def test_the_lost_search_puts_every_card_back() -> None:
    g = louis_game(heaps={"a": ["2h", "9c"], "b": ["Tc", "5d"], "c": ["6d"]}, deal_no=3)
    heaps = g.view()["heaps"]
    assert g.status == "playing"
    assert g.view()["heaps"] == heaps


@pytest.mark.parametrize("deal_no", [1, 2])
def test_a_dead_position_in_the_first_or_second_deal_is_not_lost_while_a_redeal_remains(deal_no: int) -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["9c"]}, deal_no=deal_no)
    assert moves_of(g) == {"redeal"}
    assert g.status == "playing"


def test_third_deal_is_not_lost_while_cards_remain_to_deal() -> None:
    g = louis_game(heaps=full_heaps(), live="a", stock=["5h"], deal_no=3)
    assert g.status == "playing"
    g.play("deal")
    assert g.status == "lost"
    assert g.last_events[-1] == {"type": "game_over", "status": "lost"}


def test_third_deal_with_only_an_abeyance_card_fitting_both_sides_is_lost() -> None:
    # No 6h or 8h is left to continue a side, and the waiting 7h cannot leave alone.
    g = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, heaps={"a": ["9c"]}, deal_no=3)
    assert g.legal_moves() == []
    assert g.status == "lost"


def test_third_deal_with_an_abeyance_card_that_fits_one_side_is_not_lost() -> None:
    g = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"}, heaps={"a": ["9c"]}, deal_no=3)
    assert g.status == "playing"


def test_move_that_leaves_no_reachable_progress_ends_the_game_lost() -> None:
    g = louis_game(heaps={"a": ["5h", "2h"]}, deal_no=3)
    assert g.status == "playing"
    g.play("a-Ah")
    assert g.status == "lost"
    assert g.last_events == [
        {"type": "home", "card": "2h", "to": "Ah"},
        {"type": "game_over", "status": "lost"},
    ]


def test_move_that_leaves_progress_reachable_has_no_game_over_event() -> None:
    g = louis_game(heaps={"a": ["5h", "2h"], "b": ["3h"]}, deal_no=3)
    g.play("a-Ah")
    assert g.status == "playing"
    assert g.last_events == [{"type": "home", "card": "2h", "to": "Ah"}]


# ----- positions cited from real deals ------------------------------------------------------------


def test_deal_979_after_106_moves_offers_the_home_move_and_not_the_redeal() -> None:
    g = louis_line(979, LOUIS_979)
    assert len(g.moves) == 106 and g.view()["stock"] == 0 and g.view()["deal"] == 1
    assert home_moves(g) == {"l-Kd"}
    assert "redeal" not in moves_of(g)
    refuse(g, "redeal", "redeal_while_playable")
    g.play("l-Kd")
    play_home_until_stuck(g)
    assert g.play("redeal") == "redeal"


def test_deal_1_after_88_moves_keeps_the_8c_in_abeyance_until_a_continuing_card() -> None:
    g = louis_line(1, LOUIS_1)
    v = g.view()
    assert len(g.moves) == 88 and v["abeyance"]["Xc"] == "8c"
    assert (v["foundations"]["Ac"][-1], v["foundations"]["Kc"][-1]) == ("7c", "9c")
    assert moves_of(g) == {"S-k"}
    refuse(g, "Xc-Ac", "abeyance_waits")
    refuse(g, "Xc-Kc", "abeyance_waits")


# ----- notation ----------------------------------------------------------------------------------


def test_word_deal_plays_the_forced_deal_move() -> None:
    g = louis_game(stock=["9c", "9d", "9s"])
    assert g.play("deal") == "S-a"
    assert g.play("S") == "S-b"
    assert g.play("s-c") == "S-c"
    assert g.view()["phase"] == "play"
    refuse(g, "deal", "stock_empty")


def test_word_redeal_is_the_redeal_move() -> None:
    g = louis_game(heaps={"a": ["9c"]})
    assert "redeal" in g.legal_moves()
    assert g.resolve("Redeal") == "redeal"
    assert g.play("redeal") == "redeal"


def test_uppercase_F_is_the_first_foundation_that_accepts() -> None:
    both = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["7h"]})
    assert both.resolve("aF") == "a-Ah"  # ace foundations come before king foundations
    assert both.resolve("a-F") == "a-Ah"
    king = louis_game(heaps={"a": ["Qh"]})
    assert king.resolve("aF") == "a-Kh"
    assert king.play("a F") == "a-Kh"


def test_uppercase_F_refused_when_no_foundation_accepts() -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6h"]})
    err = refuse(g, "aF", "foundation_rank")
    assert "Ah" in err.message


def test_lowercase_letter_after_a_heap_is_another_heap() -> None:
    g = louis_game(heaps={"a": ["5h"], "f": ["6h"], "h": ["4h"]})
    assert g.resolve("af") == "a-f"
    assert g.resolve("ah") == "a-h"  # heap h, not the foundation Ah
    assert g.resolve("a h") == "a-h"


def test_lowercase_heap_pair_refused_by_the_heap_rule() -> None:
    g = louis_game(heaps={"a": ["5h"], "f": ["6h"]})
    refuse(g, "ah", "heap_to_empty")  # heap h is empty


def test_foundations_and_cells_named_explicitly() -> None:
    g = louis_game(foundations=HEARTS_AROUND_7, heaps={"a": ["7h"]})
    assert g.resolve("a-Ah") == "a-Ah"
    assert g.resolve("aKh") == "a-Kh"
    assert g.resolve("a-Xh") == "a-Xh"
    g.play("aXh")
    refuse(g, "XhKh", "abeyance_waits")
    one_side = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"})
    assert one_side.resolve("XhKh") == "Xh-Kh"


def test_card_name_source_resolves_to_the_heap_holding_it() -> None:
    g = louis_game(foundations={"Ah": run("A", "h", 8)}, heaps={"a": ["5c"], "c": ["5c", "9h"]})
    for typed in ("9h-Ah", "9hAh", "9h", "9hF", "9H-Ah", "9♥-Ah"):
        assert g.resolve(typed) == "c-Ah", typed


def test_card_name_source_resolves_to_the_abeyance_cell_holding_it() -> None:
    g = louis_game(foundations=TWIN_WENT_UP, abeyance={"Xh": "7h"})
    assert g.resolve("7h-Kh") == "Xh-Kh"
    assert g.resolve("7h") == "Xh-Kh"


def test_card_name_source_refused_when_the_card_is_not_on_top() -> None:
    g = louis_game(foundations={"Ah": run("A", "h", 8)}, heaps={"c": ["9h", "5c"]})
    refuse(g, "9h-Ah", "card_not_available")


@pytest.mark.parametrize(
    "typed", ["", "zz", "j-a", "a-j", "a-b-c", "S-Z", "a-Xz", "x", "redeal now", "a-", "-a"]
)
def test_unreadable_louis_moves_are_bad_notation(typed: str) -> None:
    g = louis_game(heaps={"a": ["5h"], "b": ["6h"]})
    refuse(g, typed, "bad_notation")


def test_legal_moves_use_canonical_names() -> None:
    g = louis_game(
        foundations=HEARTS_AROUND_7 | {"As": run("A", "s", 8)},
        abeyance={"Xs": "9s"},
        heaps={"a": ["7h"], "b": ["5c"], "c": ["4c"]},
    )
    assert moves_of(g) == {"a-Ah", "a-Kh", "a-Xh", "b-c", "c-b", "Xs-As"}
    g.play("Xs-As")
    g.play("a-Xh")
    assert moves_of(g) == {"redeal", "b-c", "c-b"}
