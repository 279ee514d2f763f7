"""The memory store's the matchmaking queue every node shares."""

from __future__ import annotations

from typing import Any

from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


class MemoryQueue(MemoryBase):
    def _init_queue(self) -> None:
        self._queues: dict[
            str, dict[str, tuple[float, bool, bytes]]
        ] = {}  # queue -> id -> (since, house, player)

    # ----- matchmaking

    async def queue_put(self, queue: str, player: dict[str, Any], house: bool) -> int:
        waiting = self._queues.setdefault(queue, {})
        waiting[str(player["id"])] = (self._clock(), house, pack(player))
        return len(waiting)

    async def queue_take(self, queue: str, player_id: str) -> bool:
        return self._queues.get(queue, {}).pop(player_id, None) is not None

    async def queue_match(self, queue: str, seats: int, wait: float) -> list[dict[str, Any]] | None:
        waiting = self._queues.get(queue, {})
        by_time = sorted(waiting.items(), key=lambda item: item[1][0])  # stable: ties in queue order
        people = [(pid, w) for pid, w in by_time if not w[1]][:seats]
        house = [(pid, w) for pid, w in by_time if w[1]][: seats - len(people)]
        if not people or len(people) + len(house) < 2:
            return None
        if len(people) + len(house) < seats and self._clock() < people[0][1][0] + wait:
            return None
        group = people + house
        for pid, _ in group:
            del waiting[pid]
        return [dict(unpack(w[2])) for _, w in group]

    async def queues(self) -> list[str]:
        for name in [q for q, waiting in self._queues.items() if not waiting]:
            del self._queues[name]
        return sorted(self._queues)
