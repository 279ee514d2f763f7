"""Ratings: which races are rated, in which pool, and how places move OpenSkill ratings."""

from __future__ import annotations

from typing import Any

import pytest

from server.players.ratings import DEFAULT, ordinal, pool_of, rate


def _row(pid: str, place: int, kind: str = "human", guest: bool = False) -> dict[str, Any]:
    return {"player": {"id": pid, "name": pid, "kind": kind, "guest": guest}, "place": place}


@pytest.mark.parametrize(
    ("rows", "pool"),
    [
        ([_row("a", 1), _row("b", 2)], "humans"),
        ([_row("a", 1, "bot"), _row("b", 2, "bot"), _row("c", 2, "bot")], "bots"),
        ([_row("a", 1), _row("b", 2, "bot")], None),  # humans and bots together: unrated
        ([_row("a", 1), _row("b", 2, guest=True)], None),  # a guest: unrated
        ([_row("a", 1)], None),  # alone: nothing to rate against
    ],
)
def test_a_race_is_rated_only_among_registered_players_of_one_kind(
    rows: list[dict[str, Any]], pool: str | None
) -> None:
    assert pool_of(rows) == pool


def test_the_winner_gains_the_loser_drops_and_both_grow_surer() -> None:
    new = rate([_row("a", 1), _row("b", 2)], {"a": None, "b": None})
    assert new["a"][0] > DEFAULT[0] > new["b"][0]
    assert new["a"][1] < DEFAULT[1] and new["b"][1] < DEFAULT[1]
    assert ordinal(new["a"]) > ordinal(new["b"])


def test_a_shared_place_leaves_equal_players_equal() -> None:
    new = rate([_row("a", 1), _row("b", 1)], {"a": None, "b": None})
    assert new["a"] == pytest.approx(new["b"])
    assert new["a"][0] == pytest.approx(DEFAULT[0])


def test_beating_a_strong_player_gains_more_than_beating_a_weak_one() -> None:
    strong, weak = (35.0, 3.0), (15.0, 3.0)
    over_strong = rate([_row("a", 1), _row("s", 2)], {"a": None, "s": strong})["a"][0]
    over_weak = rate([_row("a", 1), _row("w", 2)], {"a": None, "w": weak})["a"][0]
    assert over_strong > over_weak > DEFAULT[0]


def test_ordinal_is_mu_less_three_sigma() -> None:
    assert ordinal((25.0, 8.0)) == pytest.approx(1.0)
