"""The Terrace-family deal and the choose-base phase (docs/rulebook.md, "Layout and the base")."""

import pytest

import terrace
from terrace.rules.cards import NAME
from terrace.rules.deal import shuffle

VARIANTS = ["terrace", "queen-of-italy", "signora"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_lays_terrace_and_four_piles_and_waits_for_the_base(variant: str) -> None:
    deck = [NAME[c] for c in shuffle(range(104), 5)]
    v = terrace.new_game(variant, deal=5).view()
    assert v["phase"] == "choose-base" and v["base"] is None
    assert v["terrace"] == deck[0:11]  # bottom to top: deck card 10 is available
    assert [v["piles"][str(i)] for i in range(1, 10)] == [[c] for c in deck[11:15]] + [[]] * 5
    assert v["stock"] == 89 and v["waste"] == [] and v["score"] == 0 and v["terrace_left"] == 11


@pytest.mark.parametrize("variant", VARIANTS)
def test_choose_base_phase_lists_only_the_four_base_choices(variant: str) -> None:
    g = terrace.new_game(variant, deal=5)
    assert set(g.legal_moves()) == {"1-F1", "2-F1", "3-F1", "4-F1"}


@pytest.mark.parametrize("move", ["S-W", "5-F1", "T-F1", "1-2", "W-1"])
def test_other_moves_before_the_base_is_chosen_are_refused(move: str) -> None:
    g = terrace.new_game("terrace", deal=5)
    before = g.view()
    with pytest.raises(terrace.IllegalMove) as e:
        g.play(move)
    assert e.value.code in {"choose_base_first", "empty_source"}
    assert g.view() == before


def test_base_choice_fills_the_gap_then_piles_five_to_nine() -> None:
    deck = [NAME[c] for c in shuffle(range(104), 5)]
    g = terrace.new_game("terrace", deal=5)
    assert g.play("3-F1") == "3-F1"
    v = g.view()
    assert v["phase"] == "play" and v["base"] == deck[13][0]
    assert v["foundations"]["F1"] == [deck[13]]
    piles = [v["piles"][str(i)] for i in range(1, 10)]
    assert piles == [[deck[11]], [deck[12]], [deck[15]], [deck[14]]] + [[c] for c in deck[16:21]]
    assert v["stock"] == 83 and v["score"] == 1
    g.play("S-W")
    assert g.view()["waste"] == [deck[21]]


def test_queen_of_italy_deals_the_same_layout_as_terrace() -> None:
    a, b = terrace.new_game("terrace", deal=9), terrace.new_game("queen-of-italy", deal=9)
    a.play("2-F1"), b.play("2-F1")
    assert a.view()["piles"] == b.view()["piles"]


def test_choosing_the_base_onto_any_empty_foundation_names_f1() -> None:
    g = terrace.new_game("terrace", deal=5)
    assert g.play("1-F5") == "1-F1"
