"""The Redis store: accounts, records, leaderboards, ratings and live race logs in one Redis
(or one Redis Cluster).

Several server nodes may share it; it survives server restarts (and Redis restarts, as far
as Redis's own persistence goes). Semantics are those of :class:`server.store.base.Store`; the
contract suite ``tests/server/store/test_store.py`` checks them against the memory store.
:class:`RedisStore` is its parts put together, one module each, each with the keys it writes:
the connection, scripts and key layout (:mod:`.base`), accounts and sessions (:mod:`.accounts`),
records and analyses (:mod:`.records`), boards, ratings and history (:mod:`.boards`), the
matchmaking queue (:mod:`.queue`), arenas (:mod:`.arenas`), live races and nodes (:mod:`.races`)
and the daily deal's values (:mod:`.daily`).
"""

from __future__ import annotations

from server.store.redis.accounts import RedisAccounts
from server.store.redis.arenas import RedisArenas
from server.store.redis.boards import RedisBoards
from server.store.redis.daily import RedisDaily
from server.store.redis.queue import RedisQueue
from server.store.redis.races import RedisRaces
from server.store.redis.records import RedisRecords


class RedisStore(RedisAccounts, RedisRecords, RedisBoards, RedisQueue, RedisArenas, RedisRaces, RedisDaily):
    """:class:`server.store.base.Store` on ``redis.asyncio``; connects lazily, reconnects by itself."""


__all__ = ["RedisStore"]
