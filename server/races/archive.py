"""Finished races: their records, kept in the store, listed, fetched, and counted on the leaderboards.

When a race ends, its record is saved (retried while the store is down), then the
leaderboards, the ratings and each rated player's history take it in (in one step of the
store, once however often it is asked), then the race's live log is dropped: a server that
dies before that ends the race again from its log when it restarts, and the same writes are
made again (each of them idempotent), so a kill leaves all of them or none. Then every
leaderboard subscriber hears of the boards that changed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

from server.players.leaderboards import Leaderboards
from server.races.audience import Audience
from server.races.driver import RaceDriver
from server.races.journal import Journal
from server.races.nodes import Cluster
from server.store import Store, StoreDown
from terrace.errors import ProtocolError
from terrace.wire.conversation import backoff
from terrace.wire.messages import Record

log = logging.getLogger("terrace.server")

Message = Mapping[str, Any]
T = TypeVar("T")


class Archive:
    def __init__(
        self,
        store: Store,
        journal: Journal,
        leaderboards: Leaderboards,
        audience: Audience,
        cluster: Cluster | None = None,
    ) -> None:
        self.store = store
        self.journal = journal
        self.leaderboards = leaderboards
        self.audience = audience
        self.cluster = cluster  # one node of many: tell the others once a record is kept
        self._unsaved: dict[str, Record] = {}  # records on their way to the store
        self._saving: set[asyncio.Task[None]] = set()

    def keep(self, record: Record, driver: RaceDriver) -> None:
        """Keep a finished race's record (in the background; see the module docstring)."""
        self._unsaved[record["id"]] = record
        task = asyncio.get_running_loop().create_task(self._save(record, driver))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def _save(self, record: Record, driver: RaceDriver) -> None:
        race_id = record["id"]
        await until_stored(f"record {race_id}", lambda: self.store.save_record(record))
        self._unsaved.pop(race_id, None)
        changed = await until_stored(
            f"leaderboards for {race_id}", lambda: self.leaderboards.race_finished(record)
        )
        await self.release(driver)
        for board in changed if self.audience.board_watchers else []:
            top = await self.leaderboards.rows(board)
            self.audience.to_boards(board.message(top))

    async def release(self, driver: RaceDriver) -> None:
        """A race over whose outcome is kept: its live log goes (only now), and no node may adopt it."""
        if driver.logged:
            await driver.flushed()
            await self.journal.drop(driver.id)
        if self.cluster is not None:
            self.cluster.done(driver.id)

    async def drain(self) -> None:
        """Wait a little for records still on their way to the store (at shutdown)."""
        if self._saving:
            await asyncio.wait(set(self._saving), timeout=5)

    def unsaved(self, race_id: str) -> Record | None:
        return self._unsaved.get(race_id)

    async def recent(self, n: int) -> list[Record]:
        """The last ``n`` finished races' records, newest first (saved or on their way)."""
        saved = cast(list[Record], await self.store.recent_records(n))
        ids = {s["id"] for s in saved}
        unsaved = [r for r in reversed(self._unsaved.values()) if r["id"] not in ids]
        return (unsaved + saved)[:n]

    async def record(self, race_id: str) -> Record:
        """The record of a finished race; ``no_race`` when there is none (the caller tells a race
        that has not finished yet)."""
        record = self._unsaved.get(race_id) or cast(Record | None, await self.store.record(race_id))
        if record is None:
            raise ProtocolError("no_race", race=race_id)
        return record


async def until_stored(what: str, write: Callable[[], Awaitable[T]]) -> T:
    """``write()``, tried again with backoff for as long as the store is down."""
    for delay in backoff():
        try:
            return await write()
        except StoreDown as exc:
            log.warning("%s not stored yet (%s); retrying in %.1f s", what, exc, delay)
            await asyncio.sleep(delay)
    raise AssertionError("backoff() never ends")
