"""A connection's requests (server.endpoint.Lane): answered in order, started on the reader when
nothing is under way, handed to the worker at their first wait, and always run as the worker's
task, so a timeout or a cancellation reaches the request wherever it started."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import Coroutine
from typing import Any

import pytest

from server.endpoint import STRAIGHT, Lane
from tests.poll import eventually


class Requests:
    """What the lane runs: each request notes where it ran, and the ones named in ``gates``
    wait for their gate before they finish."""

    def __init__(self) -> None:
        self.log: list[tuple[str, int, asyncio.Task[Any] | None]] = []
        self.gates: dict[int, asyncio.Event] = {}

    def serve(self, req: dict[str, Any]) -> Coroutine[Any, Any, bool]:
        return self._serve(req)

    async def _serve(self, req: dict[str, Any]) -> bool:
        n = req["n"]
        self.log.append(("start", n, asyncio.current_task()))
        gate = self.gates.get(n)
        if gate is not None:
            await gate.wait()
        self.log.append(("end", n, asyncio.current_task()))
        return not req.get("closed", False)


async def _closed(lane: Lane) -> None:
    await lane.close()


async def test_a_request_that_never_waits_is_answered_before_take_returns() -> None:
    requests = Requests()
    lane = Lane(requests.serve, 4)
    try:
        assert lane.take({"n": 1})
        assert [(what, n) for what, n, _ in requests.log] == [("start", 1), ("end", 1)]
        # it ran as the worker's task, not the reader's
        assert all(task is lane.worker for _, _, task in requests.log)
        assert lane.under_way == 0
    finally:
        await _closed(lane)


async def test_a_request_that_waits_is_finished_by_the_worker_and_later_ones_wait_their_turn() -> None:
    requests = Requests()
    requests.gates[1] = asyncio.Event()
    lane = Lane(requests.serve, 4)
    try:
        assert lane.take({"n": 1})  # starts here, then waits on its gate
        assert lane.take({"n": 2})  # queued behind it
        assert lane.take({"n": 3})
        assert [(what, n) for what, n, _ in requests.log] == [("start", 1)]
        assert lane.under_way == 3
        requests.gates[1].set()
        await eventually(lambda: lane.under_way == 0)
        assert [(what, n) for what, n, _ in requests.log] == [
            ("start", 1),
            ("end", 1),
            ("start", 2),
            ("end", 2),
            ("start", 3),
            ("end", 3),
        ]
        assert all(task is lane.worker for _, _, task in requests.log)
    finally:
        await _closed(lane)


async def test_after_a_request_waited_the_next_ones_go_straight_to_the_worker_for_a_while() -> None:
    requests = Requests()
    requests.gates[1] = asyncio.Event()
    lane = Lane(requests.serve, 4)
    try:
        assert lane.take({"n": 1})  # waits: the rest of it goes to the worker
        requests.gates[1].set()
        await eventually(lambda: lane.under_way == 0)
        for n in range(2, 2 + STRAIGHT):  # these never wait, but go to the worker all the same
            assert lane.take({"n": n})
            assert requests.log[-1][:2] == ("end", n - 1)  # not answered before take returned
            await eventually(lambda: lane.under_way == 0)
            assert requests.log[-1][:2] == ("end", n)
        assert lane.take({"n": 99})  # then the reader tries again: answered at once
        assert requests.log[-1][:2] == ("end", 99)
    finally:
        await _closed(lane)


async def test_a_full_queue_refuses_and_changes_nothing() -> None:
    requests = Requests()
    requests.gates[1] = asyncio.Event()
    lane = Lane(requests.serve, 2)
    try:
        assert lane.take({"n": 1})  # under way (waiting): the rest of it holds one place
        await asyncio.sleep(0)  # the worker takes it up
        assert lane.take({"n": 2})
        assert lane.take({"n": 3})
        assert not lane.take({"n": 4})
        assert lane.under_way == 3
        requests.gates[1].set()
        await eventually(lambda: lane.under_way == 0)
        assert [n for what, n, _ in requests.log if what == "end"] == [1, 2, 3]
    finally:
        await _closed(lane)


async def test_a_timeout_started_on_the_reader_cancels_the_worker_not_the_reader() -> None:
    outcome: list[str] = []

    async def slow(req: dict[str, Any]) -> bool:
        try:
            async with asyncio.timeout(0.01):
                await asyncio.Event().wait()  # never set
        except TimeoutError:
            outcome.append("timed out")
        return True

    lane = Lane(slow, 4)
    try:
        assert lane.take({})
        await eventually(lambda: outcome == ["timed out"])
        # the reader (this test's task) was never cancelled, and the worker lives on
        task = asyncio.current_task()
        assert task is not None and not task.cancelling()
        await asyncio.sleep(0)
        assert not lane.worker.done() and lane.under_way == 0
    finally:
        await _closed(lane)


async def test_cancelling_the_worker_reaches_a_request_started_on_the_reader() -> None:
    seen: list[str] = []

    async def waits(req: dict[str, Any]) -> bool:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return True

    lane = Lane(waits, 4)
    assert lane.take({})
    await asyncio.sleep(0)
    await lane.close()
    assert seen == ["cancelled"]


async def test_a_closed_connection_stops_the_worker() -> None:
    requests = Requests()
    requests.gates[1] = asyncio.Event()
    lane = Lane(requests.serve, 4)
    try:
        assert lane.take({"n": 1, "closed": True})
        requests.gates[1].set()
        await eventually(lambda: lane.worker.done())
        assert requests.log[-1][:2] == ("end", 1)
    finally:
        await _closed(lane)


async def test_closing_drops_what_waits_without_leaving_requests_never_awaited() -> None:
    requests = Requests()
    requests.gates[1] = asyncio.Event()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        lane = Lane(requests.serve, 4)
        assert lane.take({"n": 1})  # the rest of it goes to the worker...
        assert lane.take({"n": 2})  # ...which is closed before it takes either up
        await lane.close()
        gc.collect()
    assert lane.pending.empty()
    assert [(what, n) for what, n, _ in requests.log] == [("start", 1)]


@pytest.mark.parametrize("error", [ValueError("bad"), KeyError("k")])
async def test_a_request_that_fails_after_waiting_fails_in_the_worker(error: Exception) -> None:
    gate = asyncio.Event()

    async def fails(req: dict[str, Any]) -> bool:
        await gate.wait()
        raise error

    lane = Lane(fails, 4)
    assert lane.take({})
    gate.set()
    await eventually(lambda: lane.worker.done())
    assert lane.worker.exception() is error
    assert lane.under_way == 0
    await lane.close()
