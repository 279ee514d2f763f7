"""Lenient input resolved to canonical moves (docs/rulebook.md, "Moves")."""

from __future__ import annotations

import pytest

import terrace
from tests.terrace.positions import family_game


def _game() -> terrace.Game:
    return family_game(
        "terrace",
        foundations={1: ["Kc"], 2: ["Kd", "Ac"]},
        terrace_cards=["5s", "Ad"],
        piles={1: ["9s"], 2: ["8h"], 3: ["2h"], 4: ["Th"]},
        waste=["7d"],
        stock=["3c"],
    )


@pytest.mark.parametrize(
    "typed, canonical",
    [
        ("2-1", "2-1"),
        ("21", "2-1"),
        ("2 1", "2-1"),
        ("2->1", "2-1"),
        ("2→1", "2-1"),
        ("3-F2", "3-F2"),
        ("3F", "3-F2"),
        ("3f", "3-F2"),
        ("3-f", "3-F2"),
        ("2h", "3-F2"),
        ("2♥", "3-F2"),
        ("2hF", "3-F2"),
        ("2h-F", "3-F2"),
        ("T-F1", "T-F1"),
        ("tf", "T-F1"),
        ("t", "T-F1"),
        ("Ad", "T-F1"),
        ("AD F", "T-F1"),
        ("S-W", "S-W"),
        ("sw", "S-W"),
        ("deal", "S-W"),
        ("stock", "S-W"),
        ("d", "S-W"),
        ("D", "S-W"),
        ("W-5", "W-5"),
        ("w5", "W-5"),
    ],
)
def test_lenient_forms_resolve_to_the_canonical_move(typed: str, canonical: str) -> None:
    assert _game().resolve(typed) == canonical


def test_d_is_the_stock_in_the_family_but_heap_d_in_louis() -> None:
    g = terrace.new_game("louis", deal=3)
    with pytest.raises(terrace.IllegalMove) as e:
        g.resolve("d")  # heap d, still empty: not the stock
    assert (e.value.code, e.value.fields) == ("empty_source", {"place": "d"})
    assert g.resolve("deal") == "S-a"


def test_ten_may_be_written_10() -> None:
    g = family_game("terrace", base="9", foundations={1: ["9c"]}, piles={1: ["Th"]}, stock=["3c"])
    assert g.play("10h") == "1-F1"


def test_a_source_alone_takes_its_only_move_when_it_cannot_go_home() -> None:
    g = family_game("terrace", piles={1: ["9s"], 2: ["8h"], 3: ["5c"]}, stock=["3c"])
    assert g.resolve("2") == "2-1"
    assert g.resolve("8h") == "2-1"


def test_a_card_with_several_moves_is_ambiguous() -> None:
    g = family_game("terrace", piles={1: ["9s"], 2: ["8h"], 3: ["9c"]}, stock=["3c"])
    with pytest.raises(terrace.IllegalMove) as e:
        g.resolve("2")
    assert e.value.code == "ambiguous_move"
    assert "2-1" in e.value.message and "2-3" in e.value.message


def test_both_copies_of_a_card_on_top_make_a_card_name_ambiguous() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah"], 2: ["Ah"]}, stock=["3c"])
    with pytest.raises(terrace.IllegalMove) as e:
        g.resolve("Ah")
    assert e.value.code == "ambiguous_move"
    assert g.resolve("1") == "1-F1"


@pytest.mark.parametrize("typed", ["", "   ", "hello", "W-", "-3", "1-2-3", "F9-1", "X-1", "0-1", "2-10"])
def test_unreadable_moves_are_bad_notation(typed: str) -> None:
    with pytest.raises(terrace.IllegalMove) as e:
        _game().resolve(typed)
    assert e.value.code == "bad_notation"


@pytest.mark.parametrize("typed", [None, 12, b"W-3", ["W", "3"]])
def test_non_text_moves_are_bad_notation(typed: object) -> None:
    with pytest.raises(terrace.IllegalMove) as e:
        _game().play(typed)  # type: ignore[arg-type]
    assert e.value.code == "bad_notation"


def test_a_card_that_is_not_on_top_is_not_available() -> None:
    with pytest.raises(terrace.IllegalMove) as e:
        _game().resolve("Qs-F")
    assert e.value.code == "card_not_available"


def test_a_source_with_no_move_says_so() -> None:
    g = family_game("terrace", piles={1: ["9s"], 2: ["4c"]}, stock=["3c"])
    with pytest.raises(terrace.IllegalMove) as e:
        g.resolve("2")
    assert e.value.code == "no_move_from" and "4c" in e.value.message


def test_overlong_text_is_refused_before_parsing() -> None:
    g = _game()
    with pytest.raises(terrace.IllegalMove) as e:
        g.resolve("W" * 100_000 + "3")
    assert e.value.code == "bad_notation" and len(e.value.message) < 200


def test_a_secret_seed_never_shows_in_the_repr() -> None:
    seed = bytes(range(32))
    g = terrace.new_game("terrace", deal=seed)
    assert seed.hex()[:8] not in repr(g) and "secret" in repr(g)
    assert "deal=7" in repr(terrace.new_game("terrace", deal=7))
