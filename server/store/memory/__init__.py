"""The embedded memory store (the default): everything in dicts, in one process, gone on restart.

:class:`MemoryStore` is its parts put together, one module each, beside the Redis store's
(same names, same order): accounts and sessions (:mod:`.accounts`), records and analyses
(:mod:`.records`), boards, ratings and history (:mod:`.boards`), the matchmaking queue
(:mod:`.queue`), arenas (:mod:`.arenas`), live races and nodes (:mod:`.races`) and the daily
deal's values (:mod:`.daily`). Log entries and meta are copied through msgpack, so they come
back as they would from Redis.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from server.store.memory.accounts import MemoryAccounts
from server.store.memory.arenas import MemoryArenas
from server.store.memory.boards import MemoryBoards
from server.store.memory.daily import MemoryDaily
from server.store.memory.queue import MemoryQueue
from server.store.memory.races import MemoryRaces
from server.store.memory.records import MemoryRecords


class MemoryStore(
    MemoryAccounts, MemoryRecords, MemoryBoards, MemoryQueue, MemoryArenas, MemoryRaces, MemoryDaily
):
    """Everything in dicts; keeps at most ``keep_records`` records (oldest go first) and
    ``max_sessions`` sessions (the oldest put go first)."""

    def __init__(
        self,
        keep_records: int = 1_000,
        clock: Callable[[], float] = time.monotonic,
        max_sessions: int = 5_000,
    ) -> None:
        self._clock = clock
        self._init_accounts(max_sessions)
        self._init_records(keep_records)
        self._init_boards()
        self._init_queue()
        self._init_arenas()
        self._init_races()
        self._init_daily()


__all__ = ["MemoryStore"]
