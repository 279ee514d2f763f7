"""The memory store's finished race records and their hindsight analyses."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


class MemoryRecords(MemoryBase):
    def _init_records(self, keep_records: int) -> None:
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._keep = keep_records
        self._analyses: dict[str, bytes] = {}  # race id -> its hindsight analysis (packed)

    # ----- records

    async def save_record(self, record: Mapping[str, Any]) -> None:
        self._records[record["id"]] = dict(record)
        while len(self._records) > self._keep:
            self._records.popitem(last=False)

    async def record(self, race_id: str) -> dict[str, Any] | None:
        return self._records.get(race_id)

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        if n <= 0:
            return []
        return list(self._records.values())[-n:][::-1]

    # ----- hindsight analyses

    async def save_analysis(self, race_id: str, analysis: Mapping[str, Any]) -> None:
        for gone in [r for r in self._analyses if r not in self._records]:
            del self._analyses[gone]  # their records were evicted
        if race_id in self._records:
            self._analyses[race_id] = pack(analysis)

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        kept = self._analyses.get(race_id)
        return None if kept is None or race_id not in self._records else dict(unpack(kept))
