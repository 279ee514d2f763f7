"""Card ids and names (docs/rulebook.md, "Cards")."""

import pytest

from terrace.rules.cards import NAME, RANK, RED, SUIT, card_id, parse_card


def test_card_id_follows_pack_suit_rank_formula() -> None:
    assert card_id(0, "c", 1) == 0
    assert card_id(0, "d", 13) == 25
    assert card_id(1, "s", 10) == 52 + 39 + 9
    assert NAME[card_id(1, "s", 10)] == "Ts"


def test_both_packs_share_names_and_colours() -> None:
    for c in range(52):
        assert NAME[c] == NAME[c + 52]
        assert RANK[c] == RANK[c + 52] and SUIT[c] == SUIT[c + 52]
    assert [RED[card_id(0, s, 5)] for s in "cdhs"] == [False, True, True, False]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Th", (10, 2)),
        ("10h", (10, 2)),
        ("10H", (10, 2)),
        ("th", (10, 2)),
        ("T♥", (10, 2)),
        ("As", (1, 3)),
        ("a♠", (1, 3)),
        ("Kc", (13, 0)),
        ("7♦", (7, 1)),
    ],
)
def test_parse_card_accepts_lenient_forms(text: str, expected: tuple[int, int]) -> None:
    assert parse_card(text) == expected


@pytest.mark.parametrize("text", ["", "h", "1h", "11h", "Tx", "T", "KKh", "0h"])
def test_parse_card_refuses_non_cards(text: str) -> None:
    assert parse_card(text) is None
