"""What stalls the event loop, as an operator sees it and as the server keeps it short: the
garbage collector's pauses and the loop's lag in /metrics (over the real command and over a
server in this process), the ``gc_thresholds`` and ``gc_young_every`` settings, and young
collections on a timer following CPython's own counts for the older generations."""

from __future__ import annotations

import asyncio
import gc
import re
import urllib.request
from collections.abc import Iterator

import pytest

from server.app import RaceServer
from server.collector import Collector
from server.config import Config, gc_thresholds, parse
from tests.poll import eventually

from .command import serving
from .wire import Client


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return str(r.read().decode())


async def counts_lag(port: int) -> bool:
    return _value(await asyncio.to_thread(_metrics, port), "terrace_event_loop_lag_seconds_count") > 0


def _value(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


# ----- the settings ------------------------------------------------------------------------


def test_the_gc_settings_default_to_a_rare_full_collection_and_young_ones_on_a_timer() -> None:
    config = parse([], {})
    assert (config.gc_thresholds, config.gc_young_every) == ("700,3,300", 0.05)
    assert gc_thresholds(config.gc_thresholds) == (700, 3, 300)
    assert parse(["--gc-thresholds", " 700, 10, 10 "], {}).gc_thresholds == " 700, 10, 10 "
    assert gc_thresholds(" 700, 10, 10 ") == (700, 10, 10)
    assert parse([], {"TERRACE_GC_YOUNG_EVERY": "0"}).gc_young_every == 0.0


@pytest.mark.parametrize("value", ["700,10", "700,10,10,10", "700,0,10", "a,b,c", "700,-1,10", "7²,1,1", ""])
def test_gc_thresholds_that_are_not_three_positive_integers_are_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert gc_thresholds(value) is None
    with pytest.raises(SystemExit):
        parse(["--gc-thresholds", value], {})
    assert "--gc-thresholds must be three positive integers" in capsys.readouterr().err


def test_a_negative_young_interval_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--gc-young-every", "-1"], {})
    assert "--gc-young-every must not be negative" in capsys.readouterr().err


# ----- which generation a timed collection takes ---------------------------------------------


@pytest.fixture
def quiet_collector() -> Iterator[None]:
    """The collector off (no collection but the test's own) with every count at zero; as it was after."""
    was_enabled, thresholds = gc.isenabled(), gc.get_threshold()
    gc.disable()
    gc.collect()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if was_enabled:
            gc.enable()


def test_a_timed_collection_takes_the_middle_generation_past_its_threshold_and_a_full_one_rarely(
    quiet_collector: None,
) -> None:
    gc.set_threshold(700, 1, 2)
    collector = Collector()
    # young ones until the middle count is past 1; a full one the second time (none before)
    assert [collector.collect() for _ in range(6)] == [0, 0, 1, 0, 0, 2]
    assert gc.get_count()[1:] == (0, 0)
    full = collector.full_size
    kept = [[i] for i in range(100)]  # the oldest generation grows, but by less than a quarter
    assert [collector.collect() for _ in range(6)] == [0, 0, 1, 0, 0, 1]
    kept += [[i] for i in range(full)]  # now it doubles
    assert [collector.collect() for _ in range(6)] == [0, 0, 1, 0, 0, 2]
    assert collector.full_size > full
    del kept


# ----- /metrics ----------------------------------------------------------------------------


async def test_a_server_times_its_process_collections_until_it_stops(config: Config) -> None:
    server = RaceServer(config)
    await server.start()
    try:
        text = await asyncio.to_thread(_metrics, server.port)
        assert "# TYPE terrace_gc_pause_seconds histogram\n" in text
        assert "# TYPE terrace_event_loop_lag_seconds histogram\n" in text
        full = 'terrace_gc_pause_seconds_count{generation="2"}'
        before = _value(text, full)
        gc.collect()
        text = await asyncio.to_thread(_metrics, server.port)
        assert _value(text, full) == before + 1
        assert _value(text, 'terrace_gc_pause_seconds_sum{generation="2"}') > 0
    finally:
        await server.stop()
    assert server.metrics._on_gc not in gc.callbacks  # a stopped server times nothing more
    count = server.metrics._gc_by_generation[2]._sum.get()
    gc.collect()
    assert server.metrics._gc_by_generation[2]._sum.get() == count


async def test_the_command_collects_on_its_timer_and_reports_pauses_and_loop_lag() -> None:
    """The real command with young collections every 10 ms and the middle generation every
    3 of them: /metrics shows both generations' collections come while it serves, with
    nobody allocating, and the loop's lag sampled."""
    flags = ("--countdown", "0", "--gc-young-every", "0.01", "--gc-thresholds", "5000,3,300")
    async with serving(*flags) as (url, port):
        client = await Client.open(url)
        assert (await client.request("hello", name="collector"))["type"] == "welcome"

        young, middle = (f'terrace_gc_pause_seconds_count{{generation="{g}"}}' for g in "01")
        lag = "terrace_event_loop_lag_seconds_count"

        async def counts() -> tuple[float, float, float]:
            text = await asyncio.to_thread(_metrics, port)
            return _value(text, young), _value(text, middle), _value(text, lag)

        y0, m0, _ = await counts()

        async def twenty_more() -> tuple[float, float, float] | None:
            seen = await counts()
            return seen if seen[0] >= y0 + 20 else None

        y1, m1, lags = await eventually(twenty_more, what="young collections on the timer")
        # the middle generation every 4th tick (its count past 3), not every 11th (Python's 10)
        assert m1 - m0 >= (y1 - y0) // 4 - 1 >= 4
        assert lags > 0 or await eventually(lambda: counts_lag(port), what="the loop's lag sampled")
        await client.close()
