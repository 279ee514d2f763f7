"""The Redis store's arenas: their specs, joined players and race results.

Keys (after the prefix; see :mod:`server.store.redis.base`):

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``{arena}:arena:<id>``                     string  an arena's spec (terrace.race.arena); SET NX
``{arena}:arenas``                         zset    arena ids, score = start (unix ms)
``{arena}:players:<id>``                   hash    player id -> who joined the arena
``{arena}:results:<id>``                   hash    race id -> the race's places; HSETNX: once
=========================================  ======  ==============================================
"""

from __future__ import annotations

from typing import Any

from server.store.codec import pack, unpack
from server.store.redis.base import RedisBase, as_bytes, guard, text


class RedisArenas(RedisBase):
    # ----- arenas

    async def arena_create(self, spec: dict[str, Any]) -> bool:
        arena_id = str(spec["id"])
        with guard():
            if not await self._r.set(self._tag("arena", "arena", arena_id), pack(spec), nx=True):
                return False
            await self._r.zadd(self._tag("arena", "arenas"), {arena_id: int(spec["starts_ms"])})
        return True

    async def arena_get(self, arena_id: str) -> dict[str, Any] | None:
        with guard():
            raw = await self._r.get(self._tag("arena", "arena", arena_id))
        return None if raw is None else dict(unpack(as_bytes(raw)))

    async def arena_list(self) -> list[dict[str, Any]]:
        with guard():
            ids: list[Any] = await self._r.zrange(self._tag("arena", "arenas"), 0, -1)
            raws = await self._r.mget([self._tag("arena", "arena", text(i)) for i in ids]) if ids else []
        specs = [dict(unpack(as_bytes(r))) for r in raws if r is not None]
        return sorted(specs, key=lambda s: (s["starts_ms"], s["id"]))

    async def arena_join(self, arena_id: str, player: dict[str, Any]) -> None:
        with guard():
            await self._r.hset(self._tag("arena", "players", arena_id), str(player["id"]), pack(player))

    async def arena_leave(self, arena_id: str, player_id: str) -> bool:
        with guard():
            return bool(await self._r.hdel(self._tag("arena", "players", arena_id), player_id))

    async def arena_players(self, arena_id: str) -> list[dict[str, Any]]:
        with guard():
            raw: list[Any] = await self._r.hvals(self._tag("arena", "players", arena_id))
        return [dict(unpack(as_bytes(p))) for p in raw]

    async def arena_result(self, arena_id: str, result: dict[str, Any]) -> bool:
        key = self._tag("arena", "results", arena_id)
        with guard():
            return bool(await self._r.hsetnx(key, str(result["race"]), pack(result)))

    async def arena_results(self, arena_id: str) -> list[dict[str, Any]]:
        with guard():
            raw: list[Any] = await self._r.hvals(self._tag("arena", "results", arena_id))
        return [dict(unpack(as_bytes(r))) for r in raw]
