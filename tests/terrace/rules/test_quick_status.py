"""Game.quick_status() and Game.settle(): the status when it is cheap to know, and a
status decided elsewhere (on a copy, in a worker) recorded without searching again."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest

import terrace.rules.game
from terrace import Game
from tests.terrace.positions import SLOW_MOVE, family_game, run, slow_search_position


def _shuttling() -> Game:
    # The 8h hops between the 9s and the 9c for ever; nothing ever goes home: lost,
    # but only the search can tell (there is a legal move, and it is no progress move).
    return family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"]})


@pytest.fixture(autouse=True)
def _shorter_search_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long searches stay longer than QUICK_SEARCH but take milliseconds, not half a second."""
    monkeypatch.setattr(terrace.rules.game, "SEARCH_LIMIT", 1_000)


def _slow() -> Game:
    """A position whose lost search runs to SEARCH_LIMIT (status: playing)."""
    g = slow_search_position()
    g.play(SLOW_MOVE)
    return g


def _one_from_won() -> Game:
    full = {i + 1: run("K", s, 13) for i, s in enumerate("cdhscdh")}
    return family_game("signora", foundations=full | {8: run("K", "s", 12)}, piles={1: ["Qs"]})


def test_quick_status_is_playing_without_a_search_when_a_progress_move_is_legal() -> None:
    g = family_game("terrace", piles={1: ["9s"]}, stock=["2c"])  # S-W turns a card: progress
    assert g.quick_status(budget=0) == "playing"
    assert g.searched == 0
    assert g.status == "playing"


def test_quick_status_is_won_for_a_won_game() -> None:
    g = _one_from_won()
    g.play("1-F8")
    assert g.score == 104
    assert g.quick_status(budget=0) == "won"
    assert g.searched == 0


def test_quick_status_is_none_when_only_the_lost_search_can_tell() -> None:
    g = _shuttling()
    assert g.legal_moves() == ["1-2"]
    assert g.quick_status(budget=0) is None
    assert g.searched == 0
    assert g.status == "lost"  # an undecided quick_status is not cached as anything


def test_quick_status_is_none_for_a_search_longer_than_its_budget() -> None:
    g = _slow()
    assert g.quick_status() is None
    assert g.searched == terrace.rules.game.QUICK_SEARCH  # it tried, and stopped at the budget
    assert g.status == "playing"
    assert g.searched == terrace.rules.game.SEARCH_LIMIT


def test_a_decided_quick_status_is_the_status() -> None:
    g = _shuttling()
    assert g.quick_status() == "lost"  # the default budget decides this short search
    searched = g.searched
    assert 0 < searched <= terrace.rules.game.QUICK_SEARCH
    g.searched = 0
    assert g.status == "lost"
    assert g.searched == 0  # no second search


def _plain_copy(g: Game) -> Game:
    return g.copy()


def _pickled_copy(g: Game) -> Game:  # what a search worker process receives
    copy: Game = pickle.loads(pickle.dumps(g))
    return copy


@pytest.mark.parametrize("copier", [_plain_copy, _pickled_copy], ids=["copy", "pickled"])
def test_settle_with_a_copys_status_makes_status_answer_without_searching(
    copier: Callable[[Game], Game],
) -> None:
    g = _slow()
    copy = copier(g)
    assert copy.status == "playing"
    assert copy.searched == terrace.rules.game.SEARCH_LIMIT
    assert g.searched == 0  # the copy searched, not the original
    g.settle(copy.status)
    assert g.status == "playing"
    assert g.quick_status(budget=0) == "playing"
    assert g.searched == 0


def test_settle_with_lost_from_a_copy() -> None:
    g = _shuttling()
    g.settle(_pickled_copy(g).status)
    assert g.status == "lost"
    assert g.searched == 0


def test_settle_remembers_the_position_for_games_sharing_searches() -> None:
    g, h = _slow(), _slow()
    h.share_searches(g)
    g.settle(_pickled_copy(g).status)
    assert h.quick_status() == "playing"  # the short try, then the remembered result
    assert h.searched == terrace.rules.game.QUICK_SEARCH


def test_a_move_after_settle_decides_the_new_position_afresh() -> None:
    g = _shuttling()
    g.settle("playing")  # trusted as told: settle is for a status decided on this position
    assert g.status == "playing"
    g.play("1-2")
    assert g.status == "lost"


def test_settle_refuses_a_word_that_is_no_status() -> None:
    g = _shuttling()
    with pytest.raises(ValueError, match=r"^not a status: 'nonsense'$"):
        g.settle("nonsense")
    assert g.quick_status(budget=0) is None  # nothing recorded
    assert g.status == "lost"
