"""A person's pace against a program's: the measure that holds a result back from the people's boards."""

from __future__ import annotations

from terrace.race.pace import inhuman


def test_a_line_played_as_fast_as_it_can_be_sent_is_inhuman() -> None:
    assert inhuman([i * 3 for i in range(120)])  # the scout: 97 ms for a whole deal


def test_a_quick_person_with_slower_moves_among_the_quick_ones_is_a_person() -> None:
    times, t = [], 0
    for i in range(200):
        t += 180 if i % 3 else 900  # bursts of quick moves, a pause to think every third
        times.append(t)
    assert not inhuman(times)


def test_a_median_under_the_floor_is_enough() -> None:
    times, t = [], 0
    for i in range(40):
        t += 100 if i % 4 else 2_000  # three quick moves in four: the median is 100 ms
        times.append(t)
    assert inhuman(times)


def test_a_run_of_very_quick_moves_is_enough_and_one_short_of_it_is_not() -> None:
    slow = [i * 1_000 for i in range(30)]
    burst = [30_000 + i * 50 for i in range(11)]  # then ten moves, each 50 ms after the one before
    assert inhuman(slow + burst)
    assert not inhuman(slow + burst[:10])


def test_a_few_moves_decide_nothing() -> None:
    assert not inhuman([0, 10, 20, 30]) and not inhuman([]) and not inhuman([5])


def test_uneven_gaps_that_keep_the_median_up_still_show_a_pace_nobody_holds() -> None:
    """An accomplice spaced its moves 0, 150, 150 ms (median 150, no run under 60 ms): 230 moves
    in 23 s, on the board until this sign."""
    times, t = [], 0
    for i in range(230):
        t += (0, 150, 150)[i % 3]
        times.append(t)
    assert inhuman(times)


def test_thirty_moves_at_a_quarter_second_each_is_the_edge() -> None:
    slow = [i * 1_000 for i in range(20)]
    edge = [slow[-1] + 1_000 + i * 250 for i in range(31)]  # thirty gaps of 250 ms: a person, just
    assert not inhuman(slow + edge)
    quicker = [slow[-1] + 1_000 + i * 240 for i in range(31)]
    assert inhuman(slow + quicker)
