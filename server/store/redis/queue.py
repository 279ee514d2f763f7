"""The Redis store's the matchmaking queue every node shares.

Keys (after the prefix; see :mod:`server.store.redis.base`):

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``{mm}:people:<queue>``, ``{mm}:house:<queue>``
                                           zset    who waits in a matchmaking queue (people,
                                                   house players), score = ms queued (Redis TIME)
``{mm}:players``                           hash    player id -> who waits
``{mm}:queues``                            set     the queues someone may wait in
=========================================  ======  ==============================================
"""

from __future__ import annotations

from typing import Any

from server.store.codec import pack, unpack
from server.store.redis.base import RedisBase, as_bytes, guard, text


class RedisQueue(RedisBase):
    # ----- matchmaking

    def _queue_keys(self, queue: str) -> list[str]:
        return [
            self._p + "{mm}:people:" + queue,
            self._p + "{mm}:house:" + queue,
            self._p + "{mm}:players",
            self._p + "{mm}:queues",
        ]

    async def queue_put(self, queue: str, player: dict[str, Any], house: bool) -> int:
        args: list[Any] = [str(player["id"]), pack(player), "1" if house else "0", queue]
        with guard():
            return int(await self._queue_put(keys=self._queue_keys(queue), args=args))

    async def queue_take(self, queue: str, player_id: str) -> bool:
        with guard():
            return bool(await self._queue_take(keys=self._queue_keys(queue), args=[player_id]))

    async def queue_match(self, queue: str, seats: int, wait: float) -> list[dict[str, Any]] | None:
        with guard():
            group: list[Any] = await self._queue_match(
                keys=self._queue_keys(queue), args=[seats, int(wait * 1000), queue]
            )
        return [dict(unpack(as_bytes(p))) for p in group] or None

    async def queues(self) -> list[str]:
        with guard():
            names: set[bytes | str] = await self._r.smembers(self._p + "{mm}:queues")
        return sorted(text(n) for n in names)
