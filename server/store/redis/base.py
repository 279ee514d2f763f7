"""The Redis store's connection, its scripts, its key helpers and its lifecycle.

Key layout. Every key starts with ``prefix`` ("terrace:" by default); ``<...>`` stands for a
value; braces are literal **hash tags**: Redis Cluster puts keys with the same tag in one
hash slot, so every script and transaction touches one slot, and the same layout runs
on one Redis and on a cluster. Values of records, log entries, meta, sessions and ratings are
msgpack. Each part of the store lists the keys it writes in its own docstring.

The tags that are one fixed word (``{acct}``, ``{rec}``, ``{lb}``, ``{mm}``, ``{shared}``) put
all of their keys on one cluster node: they are small and each is written at most a few times
per finished race or queued player. What grows with play, the races' logs, spreads over the
cluster by race id.

On a cluster (``cluster=True``) and with ``replica_acks`` > 0, a log append is followed, on the
same connection to the race's master, by WAIT for that many replicas: a move is answered only
once a replica has its log entry, so a failover (a replica promoted when its master dies) loses
no acknowledged move. If fewer replicas answer within a second, the append is answered
``store_down`` (it may be in the log; the player sends the same ``seq`` again).

Any connection failure (refused, reset, timeout, a loading or read-only server) surfaces as
:class:`server.store.StoreDown`. The client reconnects by itself: once Redis is back, the same
store works again. A command is retried once after a dropped connection, so an append whose
answer was lost may be applied twice; log entries should carry a sequence number for replay.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from server.store.acked import AckedWrites, EvalScript, Script
from server.store.base import (
    StoreDown,
)
from server.store.batched import BatchedAppends
from server.store.codec import pack
from server.store.scripts import (
    ADD_ACCOUNT,
    APPLY_RACE,
    DAILY_RELEASE,
    LEASE_RENEW,
    LEASE_TAKE,
    LOG_APPEND,
    LOG_APPEND_INDEXED,
    QUEUE_MATCH,
    QUEUE_PUT,
    QUEUE_TAKE,
    SAVE_RECORD,
)

_DOWN = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.ReadOnlyError,
    rexc.ClusterError,  # CLUSTERDOWN, or "TTL exhausted": redirects chased while slots move in a failover
    rexc.TryAgainError,
    rexc.MasterDownError,
    rexc.RedisClusterException,  # no node of the cluster answers
    OSError,
)
LOG_PAGE = 1_000
MAX_CONNECTIONS = 100  # connections to one Redis per server; more requests at once wait for one


@contextmanager
def guard() -> Iterator[None]:
    """Turn "cannot reach Redis" into :class:`StoreDown`; other errors are bugs and pass through."""
    try:
        yield
    except _DOWN as e:
        raise StoreDown(f"redis: {e}") from e


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def as_bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


def pack_rating(rating: tuple[float, float]) -> bytes:
    """How a rating is kept (and compared byte for byte by the apply script)."""
    return pack([float(rating[0]), float(rating[1])])


class RedisBase:
    """The connection (or cluster client), its scripts and the key layout every part of the store writes by."""

    def __init__(
        self,
        url: str,
        keep_records: int = 1_000,
        prefix: str = "terrace:",
        connect_timeout: float = 2.0,
        timeout: float = 5.0,
        cluster: bool = False,
        replica_acks: int = 0,
    ) -> None:
        self._p = prefix
        self._keep = keep_records
        options: dict[str, Any] = dict(
            decode_responses=False,
            socket_connect_timeout=connect_timeout,
            socket_timeout=timeout,
            # One quick retry: enough to replace a connection a Redis restart broke, not so many
            # that a caller waits seconds to learn the store is down.
            retry=Retry(ExponentialBackoff(cap=0.05, base=0.01), retries=1),
        )
        self._pool: aioredis.BlockingConnectionPool | None = None
        if cluster:
            self._r: aioredis.Redis | RedisCluster = RedisCluster.from_url(url, **options)
        else:
            # A request past the pool's connections waits for one (up to the timeout) instead of
            # failing with "Too many connections": a burst of hellos is no store outage.
            self._pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=MAX_CONNECTIONS, timeout=timeout, **options
            )
            self._r = aioredis.Redis(connection_pool=self._pool)
        self._acked = AckedWrites(self._r, url, replica_acks) if replica_acks > 0 else None
        self._add_account = self._script(ADD_ACCOUNT, cluster)
        self._save_record = self._script(SAVE_RECORD, cluster)
        self._lease_take = self._script(LEASE_TAKE, cluster)
        self._lease_renew = self._script(LEASE_RENEW, cluster)
        self._apply_race = self._script(APPLY_RACE, cluster)
        self._log_append = self._script(LOG_APPEND, cluster)
        # one Redis: a move's append (index, lease check, log) is one round trip, shared by the
        # appends of every player that come while one is on its way
        self._log_append_indexed = None if cluster else self._script(LOG_APPEND_INDEXED, cluster)
        self._log_append_batched = (
            None if cluster or self._acked is not None else BatchedAppends(self._r, self._k("live"))  # type: ignore[arg-type]
        )
        self._queue_put = self._script(QUEUE_PUT, cluster)
        self._queue_take = self._script(QUEUE_TAKE, cluster)
        self._queue_match = self._script(QUEUE_MATCH, cluster)
        self._daily_release = self._script(DAILY_RELEASE, cluster)

    def _script(self, text: str, cluster: bool) -> Script:
        # On a cluster each call sends the script (EVAL): concurrent first calls of EVALSHA there
        # load the script concurrently, which redis-py's cluster client does not survive.
        return EvalScript(self._r, text) if cluster else self._r.register_script(text)

    def _k(self, *parts: str) -> str:
        return self._p + ":".join(parts)

    def _race(self, race_id: str, part: str) -> str:
        """A key of one race: its log, meta and lease share the race's hash slot."""
        return f"{self._p}race:{{{race_id}}}:{part}"

    def _tag(self, tag: str, *parts: str) -> str:
        """A key in the hash slot of ``tag``: the keys one script or transaction touches share one."""
        return self._p + "{" + tag + "}:" + ":".join(parts)

    def _lb(self, *parts: str) -> str:
        """A key of the boards and ratings: all in one hash slot, so one script updates them."""
        return self._tag("lb", *parts)

    # ----- lifecycle

    async def ping(self) -> None:
        """Raise StoreDown if Redis cannot be reached. On a cluster, call it before anything else
        (the server does, at start): it reads the slot map once, as redis-py's cluster client
        loses answers when many first commands race to read it."""
        with guard():
            if isinstance(self._r, RedisCluster):
                await self._r.initialize()
            await self._r.ping()
            if self._acked is not None and not isinstance(self._r, RedisCluster):
                # every write waits for that many replicas: without them no move can be answered,
                # so the store is down for this server, whatever PING says
                replicas = int((await self._r.info("replication")).get("connected_slaves", 0))
                if replicas < self._acked.replicas:
                    raise StoreDown(
                        f"redis: {replicas} of the {self._acked.replicas} replicas that acknowledge writes connected"
                    )

    async def close(self) -> None:
        if self._acked is not None:
            await self._acked.close()
        await self._r.aclose()
        if self._pool is not None:  # a pool handed to the client is the owner's to close
            await self._pool.disconnect()
