"""Replaying recorded games: what ``verify`` and crash recovery rely on."""

from __future__ import annotations

import random

import pytest

import terrace


def _played(variant: str, deal: int | bytes, n: int) -> terrace.Game:
    rng = random.Random(1)
    g = terrace.new_game(variant, deal=deal)
    while g.status == "playing" and len(g.moves) < n:
        g.play(rng.choice(sorted(g.legal_moves())))
    return g


@pytest.mark.parametrize("variant", list(terrace.VARIANTS))
def test_replay_reproduces_a_recorded_game(variant: str) -> None:
    seed = bytes(range(32))
    g = _played(variant, seed, 120)
    again = terrace.replay(variant, seed, g.moves)
    assert again.view() == g.view() and again.moves == g.moves and again.status == g.status


def test_replay_names_the_first_illegal_move_and_its_reason() -> None:
    g = _played("terrace", 4, 30)
    moves = [*g.moves[:10], "T-5", *g.moves[10:]]
    with pytest.raises(terrace.ReplayError) as e:
        terrace.replay("terrace", 4, moves)
    assert e.value.index == 10 and e.value.move == "T-5"
    assert e.value.code == "terrace_to_foundation_only"
    assert "move 11" in e.value.message
    assert isinstance(e.value, terrace.IllegalMove)


def test_replay_on_another_deal_fails() -> None:
    g = _played("terrace", 4, 30)
    with pytest.raises(terrace.ReplayError):
        terrace.replay("terrace", 5, g.moves)


def test_replay_accepts_lenient_notation() -> None:
    g = terrace.replay("terrace", 1, ["2f", "sw"])
    assert g.moves == ["2-F1", "S-W"]


def test_copy_is_independent_of_the_original() -> None:
    g = _played("signora", 9, 20)
    c = g.copy()
    c.play(min(c.legal_moves()))
    assert len(c.moves) == len(g.moves) + 1
    assert terrace.replay("signora", 9, g.moves).view() == g.view()
