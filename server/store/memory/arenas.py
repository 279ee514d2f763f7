"""The memory store's arenas: their specs, joined players and race results."""

from __future__ import annotations

from typing import Any

from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


class MemoryArenas(MemoryBase):
    def _init_arenas(self) -> None:
        self._arenas: dict[
            str, tuple[bytes, dict[str, bytes], dict[str, bytes]]
        ] = {}  # id -> spec, players, results

    # ----- arenas

    async def arena_create(self, spec: dict[str, Any]) -> bool:
        if spec["id"] in self._arenas:
            return False
        self._arenas[str(spec["id"])] = (pack(spec), {}, {})
        return True

    async def arena_get(self, arena_id: str) -> dict[str, Any] | None:
        arena = self._arenas.get(arena_id)
        return None if arena is None else dict(unpack(arena[0]))

    async def arena_list(self) -> list[dict[str, Any]]:
        specs = [dict(unpack(a[0])) for a in self._arenas.values()]
        return sorted(specs, key=lambda s: (s["starts_ms"], s["id"]))

    async def arena_join(self, arena_id: str, player: dict[str, Any]) -> None:
        self._arenas[arena_id][1][str(player["id"])] = pack(player)

    async def arena_leave(self, arena_id: str, player_id: str) -> bool:
        arena = self._arenas.get(arena_id)
        return arena is not None and arena[1].pop(player_id, None) is not None

    async def arena_players(self, arena_id: str) -> list[dict[str, Any]]:
        arena = self._arenas.get(arena_id)
        return [] if arena is None else [dict(unpack(p)) for p in arena[1].values()]

    async def arena_result(self, arena_id: str, result: dict[str, Any]) -> bool:
        results = self._arenas[arena_id][2]
        if result["race"] in results:
            return False
        results[str(result["race"])] = pack(result)
        return True

    async def arena_results(self, arena_id: str) -> list[dict[str, Any]]:
        arena = self._arenas.get(arena_id)
        return [] if arena is None else [dict(unpack(r)) for r in arena[2].values()]
