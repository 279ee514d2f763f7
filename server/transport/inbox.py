"""A connection's requests waiting for its worker: in order, bounded, light when empty.

The reader puts without waiting (a full inbox is answered ``busy``); the worker takes
them one at a time. It does what ``asyncio.Queue`` did here for a fraction of its
memory: the queue keeps four deques of about 760 bytes each for its whole life,
3 KB on every idle connection (30 MB for 10,000). This one holds a deque only while
requests wait, and one future while its worker waits.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Inbox(Generic[T]):
    """At most ``limit`` items waiting; :meth:`put` never waits, :meth:`get` waits for one."""

    __slots__ = ("_items", "_waiter", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: deque[T] | None = None  # None while empty
        self._waiter: asyncio.Future[None] | None = None  # the worker, waiting for an item

    def __len__(self) -> int:
        return 0 if self._items is None else len(self._items)

    def put(self, item: T) -> bool:
        """Add ``item`` at the end; False (nothing added) when ``limit`` items wait already."""
        items = self._items
        if items is None:
            items = self._items = deque()
        elif len(items) >= self.limit:
            return False
        items.append(item)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        return True

    async def get(self) -> T:
        """The first item, once there is one (one caller at a time: the connection's worker)."""
        while self._items is None:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        item = self._items.popleft()
        if not self._items:
            self._items = None  # an idle connection keeps no deque
        return item
