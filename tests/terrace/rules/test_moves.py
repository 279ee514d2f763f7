"""The move value: canonical notation read into source and target, and written back."""

from __future__ import annotations

import pytest

import terrace
from terrace.rules.moves import Move


@pytest.mark.parametrize(
    "text,source,target,home",
    [
        ("W-3", "W", "3", False),
        ("T-F1", "T", "F1", True),
        ("S-W", "S", "W", False),
        ("W-S", "W", "S", False),
        ("b-Kh", "b", "Kh", True),
        ("Xc-Ac", "Xc", "Ac", True),
        ("a-Xd", "a", "Xd", False),
        ("e-f", "e", "f", False),
    ],
)
def test_a_canonical_move_reads_into_its_source_and_target(
    text: str, source: str, target: str, home: bool
) -> None:
    m = Move.parse(text)
    assert (m.source, m.target, m.home, str(m)) == (source, target, home, text)


def test_redeal_is_a_move_with_no_target() -> None:
    m = Move.parse("redeal")
    assert m.redeal and str(m) == "redeal" and not m.home and m.reversed() == m


@pytest.mark.parametrize("text", ["w3", "4f", "10h", "", "W-", "-3", "W--3", "redeal now"])
def test_lenient_or_broken_text_is_not_a_canonical_move(text: str) -> None:
    with pytest.raises(ValueError, match="canonical"):
        Move.parse(text)


def test_reversed_moves_the_card_back_and_the_repr_reads_like_the_move() -> None:
    assert Move.parse("3-5").reversed() == Move("5", "3")
    assert repr(Move.parse("W-3")) == "Move('W-3')"


@pytest.mark.parametrize("variant", list(terrace.VARIANTS))
def test_every_legal_move_of_a_game_reads_and_writes_back_unchanged(variant: str) -> None:
    g = terrace.new_game(variant, deal=3)
    for _ in range(60):
        legal = g.legal_moves()
        if not legal:
            break
        assert [str(Move.parse(m)) for m in legal] == legal
        g.play(sorted(legal)[len(legal) // 2])
