"""The Redis store's live races (move logs, meta, waiting races) and the leases, summaries and events of nodes.

Keys (after the prefix; see :mod:`server.store.redis.base`):

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``race:{<race id>}:log``                   stream  one entry per move, field ``e``; refused while
                                                   another node holds the race's lease
``race:{<race id>}:meta``                  string  what a restarted node needs to rebuild the race
``race:{<race id>}:waiting``               string  a race still waiting for players, as it last
                                                   changed
``race:{<race id>}:lease``                 string  the public URL of the node that owns the race;
                                                   SET PX ttl, renewed by its owner
``live``                                   set     ids of the races with a log, meta or waiting
                                                   state (added before them, removed after them)
``{shared}:race-summary``                  hash    race id -> the race's latest summary
``{shared}:race-standings``                hash    race id -> the race's latest standings
``events``                                 channel pub/sub: race events of each owner, forwarded
                                                   by the other nodes to their audiences
=========================================  ======  ==============================================
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from redis.asyncio.cluster import RedisCluster

from server.store.base import (
    NotOwner,
)
from server.store.codec import pack, unpack
from server.store.redis.base import LOG_PAGE, RedisBase, as_bytes, guard, ms, text


class RedisRaces(RedisBase):
    # ----- live races

    async def log_append(self, race_id: str, entry: dict[str, Any], owner: str | None = None) -> None:
        keys = [self._race(race_id, "log"), self._race(race_id, "lease")]
        args: list[Any] = [owner or "", pack(entry)]
        if self._log_append_indexed is not None:
            keys.append(self._k("live"))
            args.append(race_id)
            with guard():
                if self._acked is not None:
                    holder = await self._acked.run(self._log_append_indexed, keys, args)
                elif self._log_append_batched is not None:
                    holder = await self._log_append_batched(keys[0], keys[1], args[0], args[1], race_id)
                else:
                    holder = await self._log_append_indexed(keys=keys, args=args)
            if holder:
                raise NotOwner(race_id, text(holder))
            return
        with guard():
            await self._r.sadd(self._k("live"), race_id)  # the index first: never a lost race
            if self._acked is not None:
                holder = await self._acked.run(self._log_append, keys, args)
            else:
                holder = await self._log_append(keys=keys, args=args)
        if holder:
            raise NotOwner(race_id, text(holder))

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        key = self._race(race_id, "log")
        entries: list[dict[str, Any]] = []
        low = "-"
        with guard():
            while True:
                page: list[Any] | None = await self._r.xrange(key, min=low, max="+", count=LOG_PAGE)
                page = page or []
                entries.extend(dict(unpack(fields[b"e"])) for _, fields in page)
                if len(page) < LOG_PAGE:
                    return entries
                low = "(" + text(page[-1][0])

    async def log_drop(self, race_id: str) -> None:
        with guard():
            async with self._r.pipeline(transaction=False) as p:  # the race's keys, then the index
                p.delete(
                    self._race(race_id, "log"), self._race(race_id, "meta"), self._race(race_id, "waiting")
                )
                p.srem(self._k("live"), race_id)
                await p.execute()

    async def live_races(self) -> list[str]:
        with guard():
            ids: set[bytes | str] = await self._r.smembers(self._k("live"))
        return sorted(text(i) for i in ids)

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None:
        await self._save(race_id, "meta", meta)

    async def race_meta(self, race_id: str) -> dict[str, Any] | None:
        return await self._load(race_id, "meta")

    async def save_race_waiting(self, race_id: str, meta: dict[str, Any]) -> None:
        await self._save(race_id, "waiting", meta)

    async def race_waiting(self, race_id: str) -> dict[str, Any] | None:
        return await self._load(race_id, "waiting")

    async def _save(self, race_id: str, part: str, meta: dict[str, Any]) -> None:
        data = pack(meta)
        with guard():
            async with self._r.pipeline(transaction=False) as p:  # the index first: never a lost race
                p.sadd(self._k("live"), race_id)
                p.set(self._race(race_id, part), data)
                await p.execute()

    async def _load(self, race_id: str, part: str) -> dict[str, Any] | None:
        with guard():
            data: bytes | str | None = await self._r.get(self._race(race_id, part))
        return None if data is None else dict(unpack(as_bytes(data)))

    # ----- nodes

    async def lease_take(self, race_id: str, node: str, ttl: float) -> bool:
        with guard():
            return bool(await self._lease_take(keys=[self._race(race_id, "lease")], args=[node, ms(ttl)]))

    async def lease_renew(self, race_id: str, node: str, ttl: float) -> bool:
        with guard():
            return bool(await self._lease_renew(keys=[self._race(race_id, "lease")], args=[node, ms(ttl)]))

    async def lease_owner(self, race_id: str) -> str | None:
        with guard():
            owner: bytes | str | None = await self._r.get(self._race(race_id, "lease"))
        return None if owner is None else text(owner)

    async def lease_release(self, race_id: str, node: str) -> None:
        with guard():
            await self._lease_renew(keys=[self._race(race_id, "lease")], args=[node, 0])

    async def share_race(self, race_id: str, part: str, data: dict[str, Any] | None) -> None:
        with guard():
            if data is None:
                async with self._r.pipeline(transaction=True) as p:
                    p.hdel(self._tag("shared", "race-summary"), race_id)
                    p.hdel(self._tag("shared", "race-standings"), race_id)
                    await p.execute()
            else:
                await self._r.hset(self._tag("shared", "race-" + part), race_id, pack(data))

    async def shared_race(self, race_id: str) -> dict[str, dict[str, Any]]:
        with guard():
            async with self._r.pipeline(transaction=False) as p:
                p.hget(self._tag("shared", "race-summary"), race_id)
                p.hget(self._tag("shared", "race-standings"), race_id)
                summary, standings = await p.execute()
        out: dict[str, dict[str, Any]] = {}
        if summary is not None:
            out["summary"] = dict(unpack(as_bytes(summary)))
        if standings is not None:
            out["standings"] = dict(unpack(as_bytes(standings)))
        return out

    async def shared_races(self) -> list[dict[str, Any]]:
        with guard():
            raw: dict[Any, Any] = await self._r.hgetall(self._tag("shared", "race-summary"))
            ids = sorted(text(i) for i in raw)
            if not ids:
                return []
            async with self._r.pipeline(transaction=False) as p:  # one lease per race: many slots
                for i in ids:
                    p.get(self._race(i, "lease"))
                owners: list[Any] = await p.execute()
        by_id = {text(k): v for k, v in raw.items()}
        return [
            dict(unpack(as_bytes(by_id[i])))
            for i, owner in zip(ids, owners, strict=True)
            if owner is not None
        ]

    async def publish(self, event: dict[str, Any]) -> None:
        with guard():
            await self._r.publish(self._k("events"), pack(event))

    async def events(self) -> AsyncGenerator[dict[str, Any], None]:
        with guard():
            if isinstance(self._r, RedisCluster):
                await self._r.initialize()  # the slot map picks the node to listen on
            async with self._r.pubsub() as p:
                await p.subscribe(self._k("events"))
                yield {}  # subscribed: nothing published from here on is missed
                while True:
                    msg: Any = await p.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if msg is not None and msg.get("type") == "message":
                        yield dict(unpack(as_bytes(msg["data"])))
