"""What the benchmarks share: the report's header, the percentile, the latency meter."""

from __future__ import annotations

import pytest

from benchmarks.common import BenchError, Meter, percentile, run_info, summarize
from bots.stats import percentile as bots_percentile


def test_the_percentile_is_the_bots_one_by_nearest_rank() -> None:
    assert percentile is bots_percentile  # one definition for every figure
    data = [float(x) for x in range(1, 101)]
    assert percentile(data, 50) == 50 and percentile(data, 99) == 99 and percentile(data, 100) == 100
    assert percentile(data, 0) == 1 and percentile([7.0], 99) == 7.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0  # nearest rank: no interpolation
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="from 0 to 100"):
        percentile(data, 0.99 * 1000)


def test_the_meter_keeps_only_answers_within_its_window_and_summarizes_them() -> None:
    meter = Meter(start=10.0, end=12.0)
    meter.answer(9.5, 9.9, 40, 500)  # before the window
    for i in range(100):
        received = 10.0 + i * 0.02  # 50 a second over the two seconds
        meter.answer(received - (i + 1) / 1000, received, 45, 550)
    meter.answer(12.0, 12.5, 40, 500)  # after it
    figures = summarize(meter, 2.0, "test")
    assert (
        figures["answers"] == 100
        and figures["per_s"] == 50.0
        and figures["per_s_each_second"] == [50.0, 50.0]
    )
    assert figures["p50_ms"] == pytest.approx(50) and figures["p99_ms"] == pytest.approx(99)
    assert figures["max_ms"] == pytest.approx(100) and figures["request_bytes"] == 45


def test_a_window_with_no_answers_is_a_clear_error() -> None:
    with pytest.raises(BenchError, match="players: no answers were received in the 5 s window"):
        summarize(Meter(start=0.0, end=5.0), 5.0, "players")


def test_every_report_says_its_command_date_and_load() -> None:
    info = run_info(["python", "benchmarks/engine.py", "--json"])
    assert info["command"] == "python benchmarks/engine.py --json"
    assert info["date"].endswith(" UTC") and info["load_average"] >= 0 and info["machine"]
