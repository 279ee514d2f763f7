"""Fair turns at a scarce resource: ``at_once`` holders at a time, turns shared fairly by key.

The hindsight analyses share one solver worker. Waiting in one line, an address that asked about
ten races would hold the worker for ten races' worth of solves while another address's one game
waited behind them all. Here turns are shared by key (an address) as start-time fair queuing
shares a link: each waiter is tagged with the turn its key would take if every waiting key took
one in rotation (a key's next tag is one past its last, and never behind the turn now served),
and the smallest tag goes first (the first come among equals). A key with many waiters gets one
turn a round, as a key with one does; a key that comes back after a rest gets no saved-up turns.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class FairTurns:
    """``async with turns.turn(key):`` holds one of ``at_once`` turns, shared fairly by key."""

    def __init__(self, at_once: int = 1) -> None:
        self.free = at_once
        self.now = 0  # the tag of the turn last given
        self._next: dict[str, int] = {}  # key -> the tag of its next turn
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []  # (tag, arrival, its turn)
        self._arrivals = itertools.count()

    @property
    def waiting(self) -> int:
        return sum(not got.done() for _, _, got in self._waiting)

    def _tag(self, key: str) -> int:
        tag = max(self.now, self._next.get(key, 0))
        self._next[key] = tag + 1
        if len(self._next) > 1024:  # keys that are behind now have nothing to remember
            self._next = {k: t for k, t in self._next.items() if t > self.now}
        return tag

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        tag = self._tag(key)
        if self.free and not self.waiting:
            self.free -= 1
            self.now = max(self.now, tag)
        else:
            got: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (tag, next(self._arrivals), got))
            try:
                await got
            except asyncio.CancelledError:
                if got.done() and not got.cancelled():  # handed the turn as it was cancelled: pass it on
                    self._release()
                raise  # else its entry is skipped when it comes up
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            tag, _, got = heapq.heappop(self._waiting)
            if not got.done():
                self.now = tag
                got.set_result(None)
                return
        self.free += 1
