"""Log appends on one Redis share round trips (server/store/batched.py): appends made while one is
on its way go together in the next, each caller answered once Redis has its own append. A real
redis-server on a free port."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
import redis.exceptions

from server.store import NotOwner
from server.store.batched import BatchedAppends
from server.store.redis import RedisStore
from tests.server.redis_server import redis_server, redis_url

__all__ = ["redis_server", "redis_url"]  # fixtures


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    s = RedisStore(redis_url)
    yield s
    await s.close()


def batcher(store: RedisStore) -> BatchedAppends:
    b = store._log_append_batched
    assert b is not None  # one Redis, no replica acks: appends are batched
    return b


async def test_concurrent_appends_of_many_players_all_land_in_order_in_fewer_round_trips(
    store: RedisStore,
) -> None:
    async def player(race: int, who: int) -> None:
        for seq in range(1, 6):
            await store.log_append(f"r-{race}", {"p": f"g-{who}", "seq": seq})

    await asyncio.gather(*(player(who % 10, who) for who in range(40)))
    appends = 40 * 5
    for race in range(10):
        entries = await store.log_read(f"r-{race}")
        assert len(entries) == 20
        for who in range(race, 40, 10):  # each player's own appends in the order it made them
            assert [e["seq"] for e in entries if e["p"] == f"g-{who}"] == [1, 2, 3, 4, 5]
    assert set(await store.live_races()) == {f"r-{race}" for race in range(10)}
    assert batcher(store).round_trips < appends / 4


async def test_one_append_refused_by_another_nodes_lease_leaves_the_rest_of_its_batch_appended(
    store: RedisStore,
) -> None:
    assert await store.lease_take("r-held", "ws://b", 10.0)
    results = await asyncio.gather(
        store.log_append("r-held", {"seq": 1}, owner="ws://a"),
        *(store.log_append(f"r-{i}", {"seq": 1}, owner="ws://a") for i in range(5)),
        return_exceptions=True,
    )
    assert isinstance(results[0], NotOwner) and results[0].holder == "ws://b"
    assert results[1:] == [None] * 5
    assert await store.log_read("r-held") == []
    for i in range(5):
        assert await store.log_read(f"r-{i}") == [{"seq": 1}]


async def test_appends_go_on_after_redis_forgets_its_scripts(store: RedisStore, redis_url: str) -> None:
    await store.log_append("r-1", {"seq": 1})
    client = aioredis.Redis.from_url(redis_url)
    try:
        await client.script_flush()  # as after a Redis restart
    finally:
        await client.aclose()
    await asyncio.gather(*(store.log_append("r-1", {"seq": seq}) for seq in (2, 3)))
    assert [e["seq"] for e in await store.log_read("r-1")] == [1, 2, 3]


async def test_one_append_that_redis_fails_fails_only_its_own_caller(
    store: RedisStore, redis_url: str
) -> None:
    client = aioredis.Redis.from_url(redis_url)
    try:
        await client.set(store._race("r-broken", "log"), "not a stream")  # XADD there: WRONGTYPE
    finally:
        await client.aclose()
    results = await asyncio.gather(
        store.log_append("r-0", {"seq": 1}),
        store.log_append("r-broken", {"seq": 1}),
        *(store.log_append(f"r-{i}", {"seq": 1}) for i in range(1, 4)),
        return_exceptions=True,
    )
    assert isinstance(results[1], redis.exceptions.ResponseError) and "WRONGTYPE" in str(results[1])
    assert [results[0], *results[2:]] == [None] * 4
    for i in range(4):  # the appends batched with it, before and after it, all landed
        assert await store.log_read(f"r-{i}") == [{"seq": 1}]


async def test_a_batch_of_appends_is_one_script_call(store: RedisStore) -> None:
    await store.log_append("r-first", {"seq": 0})  # goes at once, alone
    before = batcher(store).round_trips
    await asyncio.gather(*(store.log_append(f"r-{i}", {"seq": 1}) for i in range(30)))
    assert batcher(store).round_trips - before <= 2  # the first at once, the other 29 together
    assert all([await store.log_read(f"r-{i}") == [{"seq": 1}] for i in range(30)])
