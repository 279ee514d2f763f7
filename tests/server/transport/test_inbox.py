"""A connection's inbox: requests in order, bounded, a waiting worker woken, nothing kept when empty."""

from __future__ import annotations

import asyncio

from server.transport.inbox import Inbox


async def test_items_come_out_in_the_order_they_went_in() -> None:
    inbox: Inbox[int] = Inbox(5)
    for i in range(3):
        assert inbox.put(i)
    assert [await inbox.get() for _ in range(3)] == [0, 1, 2]


def test_a_full_inbox_refuses_and_keeps_what_it_holds() -> None:
    inbox: Inbox[str] = Inbox(2)
    assert inbox.put("a") and inbox.put("b")
    assert not inbox.put("c")
    assert len(inbox) == 2


async def test_a_waiting_worker_is_woken_by_the_next_item() -> None:
    inbox: Inbox[str] = Inbox(2)
    worker = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not worker.done()
    assert inbox.put("move")
    assert await asyncio.wait_for(worker, 5) == "move"


async def test_an_empty_inbox_keeps_no_deque_and_a_drained_one_lets_its_go() -> None:
    inbox: Inbox[int] = Inbox(3)
    assert inbox._items is None
    inbox.put(1)
    assert inbox._items is not None
    await inbox.get()
    assert inbox._items is None and len(inbox) == 0


async def test_a_cancelled_wait_leaves_the_inbox_usable() -> None:
    inbox: Inbox[int] = Inbox(3)
    worker = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    worker.cancel()
    await asyncio.gather(worker, return_exceptions=True)
    assert inbox.put(7)  # the cancelled waiter is not woken twice
    assert await asyncio.wait_for(inbox.get(), 5) == 7
