"""The one percentile of the bots' figures (and the benchmarks'): nearest rank."""

from __future__ import annotations

import pytest

from bots.stats import percentile


@pytest.mark.parametrize(
    "values,p,expected",
    [
        ([1.0, 2.0, 3.0, 4.0], 50, 2.0),
        ([1.0, 2.0, 3.0, 4.0], 51, 3.0),
        ([1.0, 2.0, 3.0, 4.0], 99, 4.0),
        ([1.0, 2.0, 3.0, 4.0], 0, 1.0),
        ([5.0], 50, 5.0),
    ],
)
def test_the_percentile_is_the_smallest_value_with_p_percent_at_or_below_it(
    values: list[float], p: float, expected: float
) -> None:
    assert percentile(values, p) == expected


def test_no_values_or_a_percent_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)
