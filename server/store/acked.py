"""Writes a replica has acknowledged: a script run on its key's master, then WAIT, on one connection.

Redis replicates asynchronously: a write the master answered may not have reached any replica
when the master dies, and the replica promoted in its place (Redis Cluster's failover) does not
have it. WAIT blocks until the connection's earlier writes reached that many replicas; it counts
only the writes of its own connection, which is why the script and the WAIT go over one
dedicated connection per master (one write at a time on it), not through the pool.

When a failover moved the slot (MOVED) or the old master is unreachable, the slot map is read
again, so the next write goes to the new master.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.cluster import RedisCluster

from .base import StoreDown


class Script(Protocol):
    """A Lua script to call: redis-py's registered script, or :class:`EvalScript`."""

    async def __call__(self, keys: list[str], args: list[Any], client: Any = None) -> Any: ...


WAIT_MS = 1_000  # how long a write waits for its replicas before it is answered store_down


class AckedWrites:
    def __init__(self, client: aioredis.Redis | RedisCluster, url: str, replicas: int) -> None:
        self.client = client
        self.url = url
        self.replicas = replicas
        self._lines: dict[str, tuple[aioredis.Redis, asyncio.Lock]] = {}  # master -> one connection
        self._retiring: set[asyncio.Task[None]] = set()

    async def run(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """``script`` on ``keys[0]``'s master, answered once ``replicas`` replicas have it; raises
        StoreDown (the write may have happened) when they do not answer in time."""
        for attempt in (1, 2):
            line, lock = await self._line(keys[0])
            async with lock:
                try:
                    result = await script(keys=keys, args=args, client=line)
                    acked = int(await line.wait(self.replicas, WAIT_MS))
                except (rexc.MovedError, rexc.ConnectionError, rexc.TimeoutError, OSError) as exc:
                    await self._moved()
                    if attempt == 2 or not isinstance(exc, rexc.MovedError):
                        raise StoreDown(f"redis: {exc}") from exc
                    continue
            if acked < self.replicas:
                raise StoreDown(f"redis: {acked} of {self.replicas} replicas acknowledged the write in time")
            return result
        raise AssertionError("unreachable")

    async def _line(self, key: str) -> tuple[aioredis.Redis, asyncio.Lock]:
        if isinstance(self.client, RedisCluster):
            await self.client.initialize()  # a no-op once the slot map is known
            node = self.client.get_node_from_key(key)
            if node is None:
                raise StoreDown(f"redis: no master serves {key} yet")
            name, make = node.name, dict(host=node.host, port=node.port)
        else:
            name, make = self.url, {}
        if name not in self._lines:
            line = (
                aioredis.Redis(**make, single_connection_client=True)  # type: ignore[arg-type]
                if make
                else aioredis.Redis.from_url(self.url, single_connection_client=True)
            )
            self._lines[name] = (line, asyncio.Lock())
        return self._lines[name]

    async def _moved(self) -> None:
        """Forget the connections and read the slot map again (a failover, or a master gone)."""
        lines, self._lines = self._lines, {}
        for line, lock in lines.values():  # each closed once its write in flight (ours too) is done
            task = asyncio.get_running_loop().create_task(_retire(line, lock))
            self._retiring.add(task)
            task.add_done_callback(self._retiring.discard)
        if isinstance(self.client, RedisCluster):
            with contextlib.suppress(rexc.RedisError, OSError):  # still deciding: the next write tries again
                await self.client.nodes_manager.initialize()

    async def close(self) -> None:
        if self._retiring:
            await asyncio.wait(set(self._retiring))
        for line, lock in self._lines.values():
            await _retire(line, lock)
        self._lines = {}


async def _retire(line: aioredis.Redis, lock: asyncio.Lock) -> None:
    async with lock:
        await line.aclose()


class EvalScript:
    """A Lua script sent whole each time (EVAL), called like redis-py's registered scripts."""

    def __init__(self, client: aioredis.Redis | RedisCluster, text: str) -> None:
        self.client = client
        self.text = text

    async def __call__(
        self, keys: list[str], args: list[Any], client: aioredis.Redis | RedisCluster | None = None
    ) -> Any:
        return await (client or self.client).eval(self.text, len(keys), *keys, *args)
