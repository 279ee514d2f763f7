"""What every game shares: the ceiling on moves one game may hold."""

from __future__ import annotations

import pytest

import terrace.rules.game
from terrace import new_game
from terrace.errors import IllegalMove


def test_a_game_refuses_moves_past_its_ceiling_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terrace.rules.game, "MAX_MOVES", 3)
    game = new_game("terrace", deal=1)
    for _ in range(3):
        game.play(game.legal_moves()[0])
    move = game.legal_moves()[0]  # still legal by the rules...
    with pytest.raises(IllegalMove) as refused:
        game.play(move)  # ...but the game is full
    assert refused.value.code == "move_limit" and refused.value.fields == {"limit": 3}
    assert refused.value.message == (
        "This game has reached 3 moves, the most one game may hold; resign or wait for the time limit."
    )
    assert not game.is_legal(move) and len(game.moves) == 3
