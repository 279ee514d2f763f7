"""Terrace-family move rules (docs/rulebook.md, "The Terrace family"): each rule allowed, and its
neighbour refused.

Positions are hand-built with ``family_game``; base rank K unless a test says otherwise.
"""

from __future__ import annotations

import pytest

import terrace
from tests.terrace.cited import signora_253
from tests.terrace.positions import family_game, moves_of, run

FAMILY = ["terrace", "queen-of-italy", "signora"]
ALTERNATE = ["terrace", "queen-of-italy"]


def refused(game: terrace.Game, move: str) -> str:
    """Play a move that must be refused; check nothing changed and return the reason code."""
    before = (game.view(), game.moves, game.legal_moves())
    with pytest.raises(terrace.IllegalMove) as e:
        game.play(move)
    assert (game.view(), game.moves, game.legal_moves()) == before
    assert e.value.message  # a human sentence comes with every code
    return e.value.code


# ----- foundations --------------------------------------------------------------------


@pytest.mark.parametrize("variant", FAMILY)
def test_base_rank_card_starts_the_lowest_empty_foundation_only(variant: str) -> None:
    g = family_game(variant, foundations={1: ["Kc"], 2: ["Kd"]}, waste=["Ks"], stock=["2c"])
    assert [m for m in g.legal_moves() if m.startswith("W-F")] == ["W-F3"]
    assert g.play("W-F7") == "W-F3"  # any empty foundation names the canonical one
    assert g.view()["foundations"]["F3"] == ["Ks"]


@pytest.mark.parametrize("variant", FAMILY)
def test_non_base_card_cannot_start_a_foundation(variant: str) -> None:
    g = family_game(variant, foundations={1: ["Kc"]}, waste=["Qs"], stock=["2c"])
    assert refused(g, "W-F2") == "not_base_rank"


@pytest.mark.parametrize("variant", ALTERNATE)
def test_alternate_colour_foundation_takes_next_rank_of_other_colour(variant: str) -> None:
    g = family_game(variant, foundations={1: ["Kc"]}, piles={1: ["Ah"], 2: ["Ac"]}, stock=["2c"])
    assert "1-F1" in moves_of(g) and "2-F1" not in moves_of(g)
    assert refused(g, "2-F1") == "foundation_colour"
    g.play("1-F1")
    assert g.view()["foundations"]["F1"] == ["Kc", "Ah"]


@pytest.mark.parametrize("variant", FAMILY)
def test_foundation_refuses_a_card_of_the_wrong_rank(variant: str) -> None:
    g = family_game(variant, foundations={1: ["Kc", "Ad"]}, piles={1: ["3c"]}, stock=["2c"])
    assert refused(g, "1-F1") == "foundation_rank"


def test_signora_foundations_follow_suit_not_colour() -> None:
    g = family_game("signora", foundations={1: ["Kh"]}, piles={1: ["Ah"], 2: ["Ad"], 3: ["Ac"]}, stock=["2c"])
    assert "1-F1" in moves_of(g)
    assert refused(g, "2-F1") == "foundation_suit"  # same colour, other suit
    assert refused(g, "3-F1") == "foundation_suit"  # alternate colour is not enough


@pytest.mark.parametrize("variant", FAMILY)
def test_foundations_turn_the_corner_from_king_to_ace_to_two(variant: str) -> None:
    suit_next = {"terrace": ("Ad", "2c"), "queen-of-italy": ("Ad", "2c"), "signora": ("Ac", "2c")}
    ace, two = suit_next[variant]
    g = family_game(
        variant, base="Q", foundations={1: ["Qd", "Kc"]}, piles={1: [ace], 2: [two]}, stock=["3c"]
    )
    g.play("1-F1")
    g.play("2-F1")
    assert g.view()["foundations"]["F1"] == ["Qd", "Kc", ace, two]


@pytest.mark.parametrize("variant", FAMILY)
def test_complete_foundation_takes_no_more_cards(variant: str) -> None:
    full = (
        run("K", "h", 13)
        if variant == "signora"
        else [r + ("h" if i % 2 == 0 else "c") for i, r in enumerate("KA23456789TJQ")]
    )
    g = family_game(variant, foundations={1: full}, piles={1: ["Kd"]}, stock=["2c"])
    assert refused(g, "1-F1") == "foundation_complete"
    assert "1-F2" in moves_of(g)  # a K is a base card: it starts the next foundation


@pytest.mark.parametrize("variant", FAMILY)
def test_every_foundation_that_accepts_is_listed(variant: str) -> None:
    g = family_game(
        variant,
        foundations={1: ["Kc"], 2: ["Kc"]},
        waste=["Ac"] if variant == "signora" else ["Ah"],
        stock=["2c"],
    )
    assert {"W-F1", "W-F2"} <= moves_of(g)
    assert g.play("WF") == "W-F1"  # F: the lowest-numbered foundation that accepts


@pytest.mark.parametrize("variant", FAMILY)
def test_foundation_cards_never_move(variant: str) -> None:
    g = family_game(variant, foundations={1: ["Kc"]}, piles={1: ["Ah"]}, stock=["2c"])
    assert refused(g, "F1-1") == "foundation_is_final"


# ----- tableau ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", FAMILY)
def test_pile_takes_next_rank_down_of_other_colour(variant: str) -> None:
    g = family_game(variant, piles={1: ["9s"], 2: ["8h"], 3: ["8c"], 4: ["7h"]}, stock=["2c"])
    assert {"2-1", "4-3"} <= moves_of(g)
    assert refused(g, "3-1") == "tableau_colour"
    assert refused(g, "4-1") == "tableau_rank"
    g.play("2-1")
    assert g.view()["piles"]["1"] == ["9s", "8h"]


@pytest.mark.parametrize("variant", FAMILY)
def test_tableau_turns_the_corner_two_ace_king(variant: str) -> None:
    g = family_game(variant, piles={1: ["2s"], 2: ["Ah"], 3: ["Kc"], 4: ["Kh"]}, stock=["2c"])
    assert {"2-1", "3-2"} <= moves_of(g)  # A on 2, K on A
    assert refused(g, "4-2") == "tableau_colour"


@pytest.mark.parametrize("variant", FAMILY)
def test_waste_top_packs_on_the_tableau(variant: str) -> None:
    g = family_game(variant, piles={1: ["9s"]}, waste=["3c", "8d"], stock=["2c"])
    g.play("W1")
    assert g.view()["piles"]["1"] == ["9s", "8d"] and g.view()["waste"] == ["3c"]
    assert refused(g, "W-1") == "tableau_rank"


@pytest.mark.parametrize("variant", FAMILY)
def test_only_the_top_card_of_a_pile_moves(variant: str) -> None:
    g = family_game(variant, piles={1: ["9s", "4c"], 2: ["Th"]}, stock=["2c"])
    assert "1-2" not in moves_of(g)
    assert refused(g, "1-2") == "tableau_rank"  # the 9s under the 4c is not available
    assert refused(g, "9s-2") == "card_not_available"


@pytest.mark.parametrize("variant", FAMILY)
def test_terrace_card_goes_to_a_foundation(variant: str) -> None:
    ace = "Ac" if variant == "signora" else "Ah"
    g = family_game(variant, foundations={1: ["Kc"]}, terrace_cards=["5s", ace], stock=["2c"])
    g.play("T-F1")
    assert g.terrace_left == 1 and g.view()["terrace"] == ["5s"]


@pytest.mark.parametrize("variant", FAMILY)
def test_terrace_card_may_not_pack_while_stock_or_waste_remain(variant: str) -> None:
    g = family_game(variant, terrace_cards=["8d"], piles={1: ["9s"]}, stock=["2c"])
    assert refused(g, "T-1") == "terrace_to_foundation_only"


@pytest.mark.parametrize("variant", ALTERNATE)
def test_terrace_card_never_packs_in_terrace_and_queen_of_italy(variant: str) -> None:
    g = family_game(variant, terrace_cards=["8d"], piles={1: ["9s"]})  # stock and waste empty
    assert refused(g, "T-1") == "terrace_to_foundation_only"


def test_signora_frees_the_terrace_once_stock_and_waste_are_empty() -> None:
    g = family_game("signora", terrace_cards=["8d"], piles={1: ["9s"]})
    assert g.view()["terrace_free"] is True
    assert {"T-1", "T-2"} <= moves_of(g)  # on a pile, and into a gap
    g.play("T-1")
    assert g.view()["piles"]["1"] == ["9s", "8d"] and g.terrace_left == 0


def test_signora_keeps_the_terrace_closed_while_the_waste_holds_cards() -> None:
    g = family_game("signora", terrace_cards=["8d"], piles={1: ["9s"]}, waste=["2c"])
    assert g.view()["terrace_free"] is False
    assert refused(g, "T-1") == "terrace_to_foundation_only"


def test_signora_free_terrace_card_refused_on_a_pile_for_its_rank() -> None:
    g = family_game("signora", terrace_cards=["8d"], piles={1: ["Ts"], 2: ["9s"]})
    assert g.view()["terrace_free"] is True
    assert refused(g, "T-1") == "tableau_rank"
    assert g.play("T-2") == "T-2"


def test_signora_free_terrace_card_refused_on_a_pile_for_its_colour() -> None:
    g = family_game("signora", terrace_cards=["8d"], piles={1: ["9h"], 2: ["9s"]})
    assert refused(g, "T-1") == "tableau_colour"
    assert g.play("T-2") == "T-2"


def test_signora_misfit_from_the_closed_terrace_is_refused_as_terrace_to_foundation_only() -> None:
    # Neighbour of the two above: with a card left in the stock the terrace is not free yet.
    g = family_game("signora", terrace_cards=["8d"], piles={1: ["9h"], 2: ["9s"]}, stock=["2c"])
    assert refused(g, "T-1") == "terrace_to_foundation_only"
    assert refused(g, "T-2") == "terrace_to_foundation_only"


def test_signora_deal_253_after_229_moves_refuses_a_misfit_terrace_card_for_its_rank() -> None:
    g = signora_253()
    v = g.view()
    assert len(g.moves) == 229 and v["terrace_free"] and v["terrace"][-1] == "9d"
    assert v["piles"]["1"][-1] == "5c"
    with pytest.raises(terrace.IllegalMove) as e:
        g.play("T-1")
    assert e.value.code == "tableau_rank"
    assert e.value.message == "9d cannot go on 5c: a pile takes the next rank down."
    assert g.play("T-2") == "T-2"  # onto the Ts


# ----- gaps ---------------------------------------------------------------------------


def test_terrace_gap_takes_the_waste_top_by_choice() -> None:
    g = family_game("terrace", piles={1: ["9s"], 2: ["5c"]}, waste=["7d"], stock=["2c"])
    assert "W-3" in moves_of(g)
    assert refused(g, "1-3") == "gap_waste_only"
    g.play("W-3")
    assert g.view()["piles"]["3"] == ["7d"]


def test_terrace_gap_stays_open_until_the_player_fills_it() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah"]}, stock=["2c", "3c"])
    g.play("1-F1")
    assert g.view()["piles"]["1"] == [] and g.view()["stock"] == 2


def test_queen_of_italy_fills_a_gap_at_once_from_the_stock() -> None:
    g = family_game(
        "queen-of-italy", foundations={1: ["Kc"]}, piles={1: ["Ah"], 2: ["4s"], 3: ["5h"]}, stock=["2c", "3c"]
    )
    g.play("1-F1")
    assert g.view()["piles"]["1"] == ["2c"] and g.view()["stock"] == 1
    assert {"type": "gap_filled", "pile": "1"} in g.last_events
    g.play("2-3")  # a pile-to-pile move that empties a pile fills it too
    assert g.view()["piles"]["2"] == ["3c"] and g.view()["stock"] == 0


def test_queen_of_italy_gap_takes_only_the_waste_once_the_stock_is_out() -> None:
    g = family_game("queen-of-italy", piles={1: ["9s"], 2: ["5c"]}, waste=["7d"])
    assert "W-3" in moves_of(g)
    assert refused(g, "1-3") == "gap_waste_only"


def test_signora_gap_takes_any_available_card() -> None:
    g = family_game("signora", piles={1: ["9s"], 2: ["5c"]}, waste=["7d"], terrace_cards=["Qh"], stock=["2c"])
    assert {"W-3", "1-3", "2-3"} <= moves_of(g)
    assert "T-3" not in moves_of(g)  # the terrace is not free yet
    g.play("1-3")
    assert g.view()["piles"]["3"] == ["9s"] and g.view()["piles"]["1"] == []


def test_signora_moves_a_pile_s_only_card_into_a_gap() -> None:
    g = family_game("signora", piles={1: ["9s"]}, stock=["2c"])
    assert {f"1-{i}" for i in range(2, 10)} <= moves_of(g)


# ----- stock and waste ----------------------------------------------------------------


@pytest.mark.parametrize("variant", FAMILY)
def test_stock_turns_one_card_onto_the_waste(variant: str) -> None:
    g = family_game(variant, stock=["2c", "3d"], piles={1: ["9s"]})
    g.play("S-W")
    assert g.view()["waste"] == ["2c"] and g.view()["stock"] == 1
    g.play("sw")
    assert g.view()["waste"] == ["2c", "3d"]
    assert refused(g, "S-W") == "stock_empty"


@pytest.mark.parametrize("variant", ALTERNATE)
def test_no_redeal_in_terrace_and_queen_of_italy(variant: str) -> None:
    g = family_game(variant, waste=["2c", "3d"], piles={1: ["9s"]})
    assert "W-S" not in moves_of(g)
    assert refused(g, "W-S") == "no_recycle"


def test_signora_recycles_once_the_stock_is_out_in_first_dealt_order() -> None:
    g = family_game("signora", waste=["2c", "3d", "4h"], piles={1: ["9s"]}, stock=["6c"])
    assert refused(g, "W-S") == "stock_not_empty"
    g.play("S-W")
    assert g.play("recycle") == "W-S"
    assert g.view()["stock"] == 4 and g.view()["waste"] == [] and g.view()["recycles_left"] == 0
    assert [e["type"] for e in g.last_events] == ["recycled"]
    g.play("S-W")
    assert g.view()["waste"] == ["2c"]  # the first card of the first pass comes first again


def test_signora_recycles_only_once() -> None:
    g = family_game("signora", waste=["2c"], piles={1: ["9s"]}, recycled=True)
    assert refused(g, "W-S") == "recycle_used"


def test_signora_cannot_recycle_an_empty_waste() -> None:
    g = family_game("signora", piles={1: ["9s"]})
    assert "W-S" not in moves_of(g)
    assert refused(g, "W-S") == "waste_empty"


def test_signora_after_recycle_each_card_must_be_played_before_the_next() -> None:
    g = family_game(
        "signora", foundations={1: ["Kc"]}, piles={1: ["9s"]}, stock=["Ac", "2c", "7h"], recycled=True
    )
    g.play("S-W")
    assert "S-W" not in moves_of(g)
    assert refused(g, "S-W") == "play_waste_first"
    g.play("W-F1")
    g.play("S-W")
    g.play("W-F1")
    g.play("S-W")
    assert g.view()["waste"] == ["7h"]


def test_before_the_recycle_signora_turns_freely() -> None:
    g = family_game("signora", stock=["2c", "3d"], waste=["Qh"], piles={1: ["9s"]})
    g.play("S-W")
    assert "S-W" in moves_of(g)


# ----- bad sources and targets --------------------------------------------------------


@pytest.mark.parametrize(
    "move, code",
    [
        ("5-1", "empty_source"),
        ("1-1", "same_place"),
        ("1-W", "bad_target"),
        ("T-S", "bad_target"),
        ("S-1", "bad_target"),
        ("W-T", "bad_target"),
    ],
)
def test_impossible_moves_are_refused_with_their_reason(move: str, code: str) -> None:
    g = family_game("terrace", terrace_cards=["5s"], piles={1: ["9s"]}, waste=["2c"], stock=["3c"])
    assert refused(g, move) == code
