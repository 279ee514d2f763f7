"""The memory store's values of the daily deal and challenges under daily keys."""

from __future__ import annotations

from typing import Any

from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


class MemoryDaily(MemoryBase):
    def _init_daily(self) -> None:
        self._daily: dict[str, tuple[bytes, float]] = {}  # key -> (data, clock() expiry)

    # ----- the daily deal

    async def daily_claim(self, key: str, data: dict[str, Any], ttl: int) -> dict[str, Any]:
        kept = await self.daily_get(key)
        if kept is not None:
            return kept
        await self.daily_put(key, data, ttl)
        return dict(unpack(pack(data)))

    async def daily_release(self, key: str, race_id: str) -> bool:
        kept = await self.daily_get(key)
        if kept is None or kept.get("race") != race_id:
            return False
        del self._daily[key]
        return True

    async def daily_put(self, key: str, data: dict[str, Any], ttl: int) -> None:
        self._daily[key] = (pack(data), self._clock() + ttl)

    async def daily_get(self, key: str) -> dict[str, Any] | None:
        kept = self._daily.get(key)
        if kept is None or kept[1] <= self._clock():
            return None
        return dict(unpack(kept[0]))
