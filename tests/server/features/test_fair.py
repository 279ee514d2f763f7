"""Fair turns: one holder at a time, shared by key, cancelled waiters skipped, and two keys that
keep coming back (as the hindsight's solves do, one after another) alternate."""

from __future__ import annotations

import asyncio

import pytest

from server.features.fair import FairTurns
from tests.poll import eventually


async def _take(turns: FairTurns, key: str, order: list[str], go: asyncio.Event) -> None:
    async with turns.turn(key):
        order.append(key)
        await go.wait()


async def test_a_key_with_many_waiters_gets_one_turn_a_round() -> None:
    turns = FairTurns(1)
    order: list[str] = []
    hold, through = asyncio.Event(), asyncio.Event()
    through.set()
    first = asyncio.create_task(_take(turns, "a", order, hold))
    await eventually(lambda: order == ["a"], what="a holds the turn")
    tasks = []
    for key in ["a", "a", "a", "b", "c"]:  # a asks three more times before b and c ask once
        tasks.append(asyncio.create_task(_take(turns, key, order, through)))
        await asyncio.sleep(0)  # each enters its line in this order
    assert order == ["a"]
    hold.set()
    await asyncio.gather(first, *tasks)
    # a had just had its turn: b and c come next, not after all of a's
    assert order == ["a", "b", "c", "a", "a", "a"]
    assert turns.free == 1 and not turns.waiting


async def test_one_holder_at_a_time_and_a_cancelled_waiter_is_skipped() -> None:
    turns = FairTurns(1)
    order: list[str] = []
    first, never, last = asyncio.Event(), asyncio.Event(), asyncio.Event()
    holder = asyncio.create_task(_take(turns, "a", order, first))
    await eventually(lambda: order == ["a"], what="a holds")
    cancelled = asyncio.create_task(_take(turns, "b", order, never))
    waiter = asyncio.create_task(_take(turns, "c", order, last))
    await asyncio.sleep(0)
    assert order == ["a"]  # nobody else while a holds it
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    first.set()
    await eventually(lambda: order == ["a", "c"], what="c after a, b skipped")
    last.set()
    await asyncio.gather(holder, waiter)
    assert turns.free == 1 and not turns.waiting


async def test_two_keys_coming_back_after_each_turn_alternate() -> None:
    """Each holder asks again as soon as it lets go, as one race's solves do, one after another:
    a key with two such askers still gets only every other turn."""
    turns = FairTurns(1)
    order: list[str] = []

    async def solves(key: str, count: int) -> None:
        for _ in range(count):
            async with turns.turn(key):
                order.append(key)
                await asyncio.sleep(0)

    await asyncio.gather(solves("a", 6), solves("a", 6), solves("b", 6))
    assert order[:9].count("b") >= 4, order  # b had about half the turns while it asked
