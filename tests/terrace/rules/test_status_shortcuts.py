"""The lost search's shortcuts (``Game._reaching``): positions met on a path to a progress move,
positions met by a search that proved its root lost, and the last path played again. Each must
give exactly the status a fresh search gives (docs/rulebook.md, "When a game is lost")."""

from __future__ import annotations

import pickle
import random

import pytest

import terrace
import terrace.rules.game
import terrace.rules.lost
from terrace import Game
from terrace.rules import family
from terrace.rules.game import SEARCH_LIMIT
from terrace.rules.lost import Reaching
from tests.terrace.positions import SLOW_MOVE, family_game, slow_search_position


def _fresh_status(g: Game) -> str:
    """The status by the search alone: a copy with no remembered results, no shortcut."""
    c = pickle.loads(pickle.dumps(g))
    if c._won():
        return "won"
    legal = c._legal_pairs()
    if c._any_progress(legal):
        return "playing"
    return "lost" if c._progress_reachable(legal, SEARCH_LIMIT) is False else "playing"


def _player(g: Game, rng: random.Random, last: str | None) -> str:
    """The benchmarks' player: a card home first, else the stock, else any move that does not
    undo the last (so the games come to long stretches of shuffle moves once the stock is out)."""
    legal = sorted(g.legal_moves())
    pairs = g._legal_names()
    home = [m for m in legal if g._is_progress(pairs[m]) and pairs[m][1] in g.foundation_places]
    stock = [m for m in legal if g._is_progress(pairs[m])]
    if home or stock:
        return rng.choice(home or stock)
    undo = None if last is None else "-".join(reversed(last.split("-")))
    return rng.choice([m for m in legal if m != undo] or legal)


@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora", "louis"])
def test_shortcut_statuses_equal_a_fresh_search_on_random_games(variant: str) -> None:
    """Four seats of a race (one deal, results shared) play at random: after every move where
    only a search can tell, the status (quick, else worked out on a copy and settled with its
    path, as the server does) is the fresh search's. The shortcuts must have answered often."""
    answered_at_once = compared = 0
    for deal in range(12 if variant != "louis" else 30):
        rng = random.Random(f"{variant}-{deal}")
        seats = [terrace.new_game(variant, deal) for _ in range(4)]
        for s in seats[1:]:
            s.share_searches(seats[0])
        last: list[str | None] = [None] * 4
        for _ in range(400):
            for i, g in enumerate(seats):
                if g.status != "playing" or not g.legal_moves():
                    continue
                last[i] = _player(g, rng, last[i])
                g.play(last[i])
                if g._won() or g._any_progress(g._legal_pairs()):
                    continue
                quick = g.quick_status()
                if quick is None:
                    g.settle(*pickle.loads(pickle.dumps(g)).found())
                elif g.searched == 1:
                    answered_at_once += 1
                assert g.status == _fresh_status(g), (variant, deal, i, g.moves)
                compared += 1
    assert compared >= 200
    assert answered_at_once >= compared // 4  # the shortcuts are what is tested here


def test_a_position_met_on_a_found_path_is_known_playing() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    assert g.status == "playing" and g.searched > 1
    reaching = g._reaching()
    assert len(reaching.keys) >= 2 and reaching.path  # the root and the position with progress
    g.touched()
    assert g.status == "playing" and g.searched == 1  # the root is known now


def test_a_lost_root_and_what_it_reaches_are_known_lost() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"], 3: ["9s"]})
    assert g.status == "lost" and g.searched > 1
    h = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"], 3: ["9s"]})
    h.share_searches(g)
    h.play("1-2")  # a position the first search met
    assert h.status == "lost" and h.searched == 1


def test_known_results_are_kept_by_what_shuffle_moves_leave_alone() -> None:
    """The same piles over other foundations is another position: nothing known carries over."""
    piles = {1: ["9s", "8h"], 2: ["9c"]}
    g = family_game("terrace", foundations={1: ["Kc"]}, piles=piles)
    assert g.status == "lost"
    h = family_game("terrace", foundations={1: ["Kc"], 2: ["8d"]}, piles=piles)  # the 9s or 9c goes home
    h.share_searches(g)
    assert h.status == "playing"
    k = family_game("terrace", foundations={1: ["Kc"], 2: ["Qd"]}, piles=piles)  # nothing goes home
    k.share_searches(g)
    assert k.status == "lost" and k.searched > 1  # searched: its foundations differ from g's


def test_a_path_that_no_longer_leads_to_progress_is_no_answer() -> None:
    """A bogus hint (cards that are nowhere, or moves that are not legal) is skipped, and the
    search decides as it would have."""
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"], 3: ["9s"]})
    reaching = g._reaching()
    reaching.path = [(5, 6), (7, -1), (20, 1003), (0, 1)]
    assert g.status == "lost" == _fresh_status(g)


def test_a_hint_step_that_is_not_legal_is_never_played() -> None:
    """The Ah lies under a 9s that nothing takes (only the waste fills a gap here): lost. A hint
    whose second step puts the 9s into the gap the first step makes would bring the Ah up."""
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "9s"], 2: ["9c"], 3: ["8h"]})
    nine, nine_c, eight = (g.places[family.PILES[i]][-1] for i in range(3))
    g._reaching().path = [(eight, nine_c), (nine, -1)]
    assert g.status == "lost"


def test_found_gives_a_path_that_leads_to_progress_and_settle_takes_it_as_a_hint() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    worker = pickle.loads(pickle.dumps(g))
    status, path = worker.found()
    assert status == "playing" and path
    h = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    h.settle(status, path)
    assert h._reaching().path == list(path) and not h._reaching().keys  # a hint, nothing known
    h.touched()
    assert h.status == "playing" and h.searched == 1  # the hint played again: progress at its end


def test_found_has_no_path_when_no_search_was_needed() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah"]})  # the Ah goes home
    assert g.found() == ("playing", ())


def test_a_path_never_depends_on_the_order_of_the_stock() -> None:
    """Signora after its recycle: cards in the stock, and only a search can tell. The stock's
    order changes neither the status nor the path."""
    results = set()
    for order in range(6):
        g = family_game(
            "signora",
            foundations={1: ["Kc"]},
            piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]},
            waste=["2d"],
            stock=["3c", "4c", "5d", "9h"],
            recycled=True,
        )
        cards = list(g.places[g.stock_place])
        random.Random(order).shuffle(cards)
        g.set_stock(cards)
        assert not g._any_progress(g._legal_pairs())
        results.add(pickle.loads(pickle.dumps(g)).found())
    assert len(results) == 1


def test_the_longest_known_search_is_unchanged_with_the_shortcuts() -> None:
    g = slow_search_position()
    g.play(SLOW_MOVE)
    assert g.status == "playing" and g.searched == SEARCH_LIMIT
    assert isinstance(g._reaching(), Reaching)


def test_what_is_known_is_forgotten_past_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terrace.rules.lost, "REACHING_SIZE", 1)
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    assert g.status == "playing" and len(g._reach) == 1
    h = family_game("terrace", foundations={1: ["Kc"], 2: ["Qd"]}, piles={1: ["9s", "8h"], 2: ["9c"]})
    h.share_searches(g)
    assert h.status == "lost"
    assert len(g._reach) == 1 and next(iter(g._reach.values())).lost  # g's context made room


def test_contexts_are_forgotten_past_their_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terrace.rules.lost, "REACHING_CONTEXTS", 2)
    piles = {1: ["9s", "8h"], 2: ["9c"]}
    games = [
        family_game("terrace", foundations={1: ["Kc"], 2: [top]}, piles=piles) for top in ("Qd", "Qh", "Jc")
    ]
    for g in games[1:]:
        g.share_searches(games[0])
    assert [g.status for g in games] == ["lost"] * 3
    assert len(games[0]._reach) == 1  # the third context found two kept: all forgotten first
