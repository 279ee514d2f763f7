"""More requests at once than the Redis store has connections: they wait for one, none fails
as if the store were down. A real redis-server on a free port."""

from __future__ import annotations

import asyncio

from server.store.redis import RedisStore
from server.store.redis.base import MAX_CONNECTIONS
from tests.server.redis_server import redis_server, redis_url

__all__ = ["redis_server", "redis_url"]  # fixtures


async def test_a_burst_past_the_connection_pool_waits_instead_of_failing(redis_url: str) -> None:
    store = RedisStore(redis_url)
    try:
        burst = 3 * MAX_CONNECTIONS
        found = await asyncio.gather(*(store.log_read(f"r-{i}") for i in range(burst)))
        assert found == [[]] * burst
        await asyncio.gather(*(store.lease_take(f"r-{i}", "ws://a", 5.0) for i in range(burst)))
        assert await store.lease_owner("r-7") == "ws://a"
    finally:
        await store.close()
