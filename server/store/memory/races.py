"""The memory store's live races (move logs, meta, waiting races) and the leases, summaries and events of nodes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from server.store.base import (
    NotOwner,
)
from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


class MemoryRaces(MemoryBase):
    def _init_races(self) -> None:
        self._logs: dict[str, list[bytes]] = {}
        self._meta: dict[str, bytes] = {}
        self._waiting: dict[str, bytes] = {}
        self._live: set[str] = set()
        self._leases: dict[str, tuple[str, float]] = {}  # race id -> (node, clock() expiry)
        self._shared: dict[str, dict[str, bytes]] = {}  # race id -> part -> data
        self._listeners: set[asyncio.Queue[bytes]] = set()

    # ----- live races

    async def log_append(self, race_id: str, entry: dict[str, Any], owner: str | None = None) -> None:
        holder = self._owner(race_id) if owner else None
        if holder is not None and holder != owner:
            raise NotOwner(race_id, holder)
        self._logs.setdefault(race_id, []).append(pack(entry))
        self._live.add(race_id)

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        return [unpack(e) for e in self._logs.get(race_id, [])]

    async def log_drop(self, race_id: str) -> None:
        self._logs.pop(race_id, None)
        self._meta.pop(race_id, None)
        self._waiting.pop(race_id, None)
        self._live.discard(race_id)

    async def live_races(self) -> list[str]:
        return sorted(self._live)

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None:
        self._meta[race_id] = pack(meta)
        self._live.add(race_id)

    async def race_meta(self, race_id: str) -> dict[str, Any] | None:
        data = self._meta.get(race_id)
        return None if data is None else dict(unpack(data))

    async def save_race_waiting(self, race_id: str, meta: dict[str, Any]) -> None:
        self._waiting[race_id] = pack(meta)
        self._live.add(race_id)

    async def race_waiting(self, race_id: str) -> dict[str, Any] | None:
        data = self._waiting.get(race_id)
        return None if data is None else dict(unpack(data))

    # ----- nodes

    def _owner(self, race_id: str) -> str | None:
        lease = self._leases.get(race_id)
        if lease is not None and self._clock() >= lease[1]:
            del self._leases[race_id]
            return None
        return lease[0] if lease else None

    async def lease_take(self, race_id: str, node: str, ttl: float) -> bool:
        if self._owner(race_id) not in (None, node):
            return False
        self._leases[race_id] = (node, self._clock() + ttl)
        return True

    async def lease_renew(self, race_id: str, node: str, ttl: float) -> bool:
        if self._owner(race_id) != node:
            return False
        self._leases[race_id] = (node, self._clock() + ttl)
        return True

    async def lease_owner(self, race_id: str) -> str | None:
        return self._owner(race_id)

    async def lease_release(self, race_id: str, node: str) -> None:
        if self._owner(race_id) == node:
            del self._leases[race_id]

    async def share_race(self, race_id: str, part: str, data: dict[str, Any] | None) -> None:
        if data is None:
            self._shared.pop(race_id, None)
        else:
            self._shared.setdefault(race_id, {})[part] = pack(data)

    async def shared_race(self, race_id: str) -> dict[str, dict[str, Any]]:
        return {part: dict(unpack(d)) for part, d in self._shared.get(race_id, {}).items()}

    async def shared_races(self) -> list[dict[str, Any]]:
        return [
            dict(unpack(parts["summary"]))
            for rid, parts in sorted(self._shared.items())
            if "summary" in parts and self._owner(rid) is not None
        ]

    async def publish(self, event: dict[str, Any]) -> None:
        data = pack(event)
        for queue in self._listeners:
            queue.put_nowait(data)

    async def events(self) -> AsyncGenerator[dict[str, Any], None]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._listeners.add(queue)
        try:
            yield {}  # listening from here on
            while True:
                yield dict(unpack(await queue.get()))
        finally:
            self._listeners.discard(queue)
