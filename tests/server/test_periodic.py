"""The one helper for the server's background work: it keeps going after an error, logs a store
outage once (and the store coming back), runs early when woken, and stops when cancelled."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from server.periodic import repeat
from server.store import StoreDown
from tests.poll import eventually

EVERY = 0.001  # seconds: the tests wait for steps, never for time


def steps(*outcomes: BaseException | None) -> tuple[list[int], Callable[[], Awaitable[None]]]:
    """A step that meets ``outcomes`` in turn (an exception raised, or None: done), then succeeds;
    and the list of the steps run so far."""
    ran: list[int] = []

    async def step() -> None:
        ran.append(len(ran))
        if len(ran) <= len(outcomes) and (outcome := outcomes[len(ran) - 1]) is not None:
            raise outcome

    return ran, step


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_it_keeps_going_after_an_error_and_logs_the_error_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="terrace.server")
    ran, step = steps(ValueError("a bug"), None)
    task = asyncio.create_task(repeat(step, EVERY, what="the job"))
    await eventually(lambda: len(ran) >= 3, what="steps after the error")
    await stop(task)
    failed = [r for r in caplog.records if "the job failed" in r.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is not None and "a bug" in caplog.text


async def test_a_store_outage_is_logged_once_and_the_store_coming_back_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="terrace.server")
    ran, step = steps(
        StoreDown("refused"), StoreDown("refused"), StoreDown("refused"), None, StoreDown("again")
    )
    task = asyncio.create_task(repeat(step, EVERY, what="leases"))
    await eventually(lambda: len(ran) >= 7, what="steps through two outages")
    await stop(task)
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "terrace.server"]
    assert said == [
        ("WARNING", "leases: store down (refused); trying again every 0.001 s"),
        ("INFO", "leases: store back"),
        ("WARNING", "leases: store down (again); trying again every 0.001 s"),
        ("INFO", "leases: store back"),
    ]


async def test_the_outage_line_takes_the_level_asked_for(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="terrace.server")
    ran, step = steps(StoreDown("gone"))
    task = asyncio.create_task(repeat(step, EVERY, what="store health", outage=logging.ERROR))
    await eventually(lambda: len(ran) >= 2, what="a step after the outage")
    await stop(task)
    assert [r.levelname for r in caplog.records if "store down" in r.getMessage()] == ["ERROR"]


async def test_it_stops_when_cancelled_even_mid_step_and_runs_no_step_after() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    ran: list[int] = []

    async def step() -> None:
        ran.append(1)
        started.set()
        await release.wait()  # cancelled here

    task = asyncio.create_task(repeat(step, EVERY, what="the job", first=True))
    await eventually(started.is_set, what="the first step")
    await stop(task)
    release.set()
    assert task.cancelled() and ran == [1]


async def test_the_first_step_waits_a_period_unless_asked_to_run_at_once() -> None:
    ran, step = steps()
    later = asyncio.create_task(repeat(step, 3600, what="hourly"))
    at_once = asyncio.create_task(repeat(step, 3600, what="hourly", first=True))
    await eventually(lambda: ran, what="the step run at once")
    for _ in range(10):  # let the other task run as far as it would go without waiting an hour
        await asyncio.sleep(0)
    assert len(ran) == 1
    await stop(later)
    await stop(at_once)


async def test_a_wake_ends_the_wait_at_once_and_is_cleared_for_the_next() -> None:
    ran, step = steps()
    wake = asyncio.Event()
    task = asyncio.create_task(repeat(step, 3600, what="queue", wake=wake))
    wake.set()
    await eventually(lambda: len(ran) == 1, what="the woken step")
    assert not wake.is_set()
    wake.set()
    await eventually(lambda: len(ran) == 2, what="the step woken again")
    await stop(task)
