"""The Redis store's finished race records and their hindsight analyses.

Keys (after the prefix; see :mod:`server.store.redis.base`):

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``{rec}:record:<race id>``                 string  the finished race record
``{rec}:records``                          zset    race ids of kept records, score = save
                                                   sequence; trimmed to ``keep_records``
``{rec}:record-seq``                       string  counter behind the ``records`` scores
``{rec}:analysis:<race id>``               string  the race's hindsight analysis (server.features.hindsight);
                                                   expires after ``ANALYSIS_TTL``
=========================================  ======  ==============================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.store.base import (
    ANALYSIS_TTL,
)
from server.store.codec import pack, unpack
from server.store.redis.base import RedisBase, as_bytes, guard, text


class RedisRecords(RedisBase):
    # ----- records

    async def save_record(self, record: Mapping[str, Any]) -> None:
        rid = str(record["id"])
        keys = [self._tag("rec", "record", rid), self._tag("rec", "records"), self._tag("rec", "record-seq")]
        with guard():
            await self._save_record(
                keys=keys, args=[rid, pack(record), self._keep, self._tag("rec", "record", "")]
            )

    async def record(self, race_id: str) -> dict[str, Any] | None:
        with guard():
            data: bytes | str | None = await self._r.get(self._tag("rec", "record", race_id))
        return None if data is None else dict(unpack(as_bytes(data)))

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        if n <= 0:
            return []
        with guard():
            ids: list[Any] = await self._r.zrange(self._tag("rec", "records"), 0, n - 1, desc=True)
            if not ids:
                return []
            datas: list[bytes | str | None] = await self._r.mget(
                [self._tag("rec", "record", text(i)) for i in ids]
            )
        return [dict(unpack(as_bytes(d))) for d in datas if d is not None]

    # ----- hindsight analyses

    async def save_analysis(self, race_id: str, analysis: Mapping[str, Any]) -> None:
        with guard():
            await self._r.set(self._tag("rec", "analysis", race_id), pack(analysis), ex=ANALYSIS_TTL)

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        with guard():
            data: bytes | str | None = await self._r.get(self._tag("rec", "analysis", race_id))
        return None if data is None else dict(unpack(as_bytes(data)))
