"""The one placing rule: goal finishers by time, then score, terrace left, last card home; ties share."""

from __future__ import annotations

from terrace.race.places import Standing, better, places


def _s(goal: int | None = None, score: int = 0, left: int = 11, home: int | None = None) -> Standing:
    return Standing.of(goal_time=goal, score=score, terrace_left=left, last_home=home)


def test_goal_finishers_come_first_in_the_order_they_reached_it() -> None:
    assert places([_s(score=90, left=0), _s(goal=500), _s(goal=300)]) == [3, 2, 1]


def test_among_the_rest_score_beats_terrace_left_which_beats_the_last_card_home() -> None:
    rows = [_s(score=30, left=5, home=10), _s(score=31, left=9, home=99), _s(score=30, left=4, home=50)]
    assert places(rows) == [3, 1, 2]
    assert places([_s(score=30, left=4, home=60), _s(score=30, left=4, home=50)]) == [2, 1]


def test_never_putting_a_card_home_places_after_any_time() -> None:
    assert places([_s(score=0, left=11, home=None), _s(score=0, left=11, home=10**9)]) == [2, 1]


def test_exact_ties_share_a_place_and_the_next_place_skips() -> None:
    tied = _s(score=20, left=3, home=7)
    assert places([_s(goal=5), tied, _s(score=20, left=3, home=7), _s(score=1)]) == [1, 2, 2, 4]


def test_goal_finishers_at_the_same_time_tie_whatever_their_scores() -> None:
    assert places([_s(goal=100, score=20), _s(goal=100, score=90)]) == [1, 1]


def test_better_says_who_placed_ahead() -> None:
    assert better(_s(goal=1), _s(score=104)) == "a"
    assert better(_s(score=3), _s(score=4)) == "b"
    assert better(_s(score=3), _s(score=3)) == "draw"
