"""The Redis store's values of the daily deal and challenges under daily keys.

Keys (after the prefix): ``daily:<key>``, a string of msgpack, with the expiry the caller gives.
The daily deal (:mod:`server.features.daily`) names its keys.
"""

from __future__ import annotations

from typing import Any

from server.store.codec import pack, unpack
from server.store.redis.base import RedisBase, as_bytes, guard


class RedisDaily(RedisBase):
    # ----- the daily deal

    async def daily_claim(self, key: str, data: dict[str, Any], ttl: int) -> dict[str, Any]:
        packed = pack(data)
        with guard():
            while True:
                if await self._r.set(self._k("daily", key), packed, ex=ttl, nx=True):
                    return dict(unpack(packed))
                kept: bytes | str | None = await self._r.get(self._k("daily", key))
                if kept is not None:  # else it expired between the two: claim again
                    return dict(unpack(as_bytes(kept)))

    async def daily_release(self, key: str, race_id: str) -> bool:
        with guard():
            return bool(await self._daily_release(keys=[self._k("daily", key)], args=[race_id]))

    async def daily_put(self, key: str, data: dict[str, Any], ttl: int) -> None:
        with guard():
            await self._r.set(self._k("daily", key), pack(data), ex=ttl)

    async def daily_get(self, key: str) -> dict[str, Any] | None:
        with guard():
            kept: bytes | str | None = await self._r.get(self._k("daily", key))
        return None if kept is None else dict(unpack(as_bytes(kept)))
