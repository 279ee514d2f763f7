"""Views' changes (terrace.wire.views): the changes between two views, applied back, give the later one."""

from __future__ import annotations

import random

import pytest

import terrace
from terrace.wire.views import apply_changes, moved_for, view_changes


@pytest.mark.parametrize("variant", list(terrace.VARIANTS))
def test_changes_applied_to_the_view_before_give_the_view_after_through_a_whole_game(variant: str) -> None:
    g = terrace.new_game(variant, deal=7)
    rng = random.Random(3)
    before = g.view()
    while g.status == "playing" and len(g.moves) < 300:
        g.play(rng.choice(g.legal_moves()))
        after = g.view()
        changes = view_changes(before, after)
        assert apply_changes(before, changes) == after
        assert "variant" not in changes  # what did not change is left out
        before = after


def test_a_map_field_keeps_only_the_entries_that_changed() -> None:
    before = {"piles": {"1": ["Ah"], "2": ["2c"]}, "stock": 40, "base": None}
    after = {"piles": {"1": [], "2": ["2c"]}, "stock": 39, "base": "A"}
    assert view_changes(before, after) == {"piles": {"1": []}, "stock": 39, "base": "A"}


def test_with_no_view_before_the_changes_are_the_whole_view() -> None:
    after = {"piles": {"1": ["Ah"]}, "stock": 40}
    assert view_changes(None, after) == after
    assert apply_changes({}, view_changes(None, after)) == after


def test_applying_leaves_the_view_it_was_given_unchanged() -> None:
    before = {"piles": {"1": ["Ah"]}, "stock": 40}
    apply_changes(before, {"piles": {"1": []}, "stock": 39})
    assert before == {"piles": {"1": ["Ah"]}, "stock": 40}


def test_moved_for_a_changes_client_swaps_the_view_for_its_changes_and_keeps_the_rest() -> None:
    answer = {"type": "moved", "seq": 1, "view": {"stock": 1}, "legal": ["S-W"]}
    assert moved_for(answer, "changes", {"stock": 1}) == {
        "type": "moved",
        "seq": 1,
        "legal": ["S-W"],
        "changes": {"stock": 1},
    }
    assert moved_for(answer, "full", {"stock": 1}) == answer
