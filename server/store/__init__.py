"""Where the server keeps what outlives a connection: the :class:`Store` interface
(:mod:`.base`), the memory store (:mod:`.memory`), the Redis store (:mod:`.redis`)
and the value codec they share (:mod:`.codec`)."""

from __future__ import annotations

from server.store.memory import MemoryStore

from .base import (
    BOARD_MODES,
    Account,
    BoardMode,
    BoardPut,
    NotOwner,
    Rating,
    RatingChange,
    RatingsMoved,
    Store,
    StoreDown,
    check_board_put,
)

__all__ = [
    "BOARD_MODES",
    "Account",
    "BoardMode",
    "BoardPut",
    "MemoryStore",
    "NotOwner",
    "Rating",
    "RatingChange",
    "RatingsMoved",
    "Store",
    "StoreDown",
    "check_board_put",
    "open_store",
]


def open_store(
    redis_url: str | None,
    keep_records: int = 1_000,
    cluster: bool = False,
    replica_acks: int = 0,
    max_sessions: int = 5_000,
) -> Store:
    """The store a server runs on: Redis at ``redis_url`` (a Redis Cluster node when ``cluster``)
    if given, else in memory (keeping at most ``max_sessions`` sessions)."""
    if redis_url:
        from server.store.redis import RedisStore  # imported only when asked: the memory store needs no redis

        return RedisStore(redis_url, keep_records=keep_records, cluster=cluster, replica_acks=replica_acks)
    return MemoryStore(keep_records, max_sessions=max_sessions)
