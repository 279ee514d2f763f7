"""The journal of running races: their meta and move logs in the store, and reading them back.

A durable race saves its meta (rules, secret seed, start time, players) before the
first view and appends every accepted move or resignation before it is applied, so
a restarted server (or another node) rebuilds it with every acknowledged move
(:func:`terrace.race.restore`). Players are saved with the hash of their session, so
a guest can come back to a rebuilt race by session; the hash never reaches a race.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from server.players.accounts import Accounts
from server.store import Store, StoreDown
from terrace.wire.conversation import backoff

log = logging.getLogger("terrace.server")

Message = dict[str, Any]


@dataclass
class Saved:
    """A live race as the store has it: its meta (players without session hashes), its log, and
    the players as saved (with ``session_hash``), for :meth:`Accounts.restore`."""

    meta: Message
    entries: list[Message]
    players: list[Message]
    waiting: bool = False  # a race that had not started: its meta as it last changed, no log


class Journal:
    def __init__(self, store: Store, accounts: Accounts, node: str | None = None) -> None:
        self.store = store
        self.accounts = accounts
        self.node = node  # one node of many: appends only while no other node owns the race

    async def save_meta(self, race_id: str, meta: Message) -> None:
        """Raises StoreDown."""
        await self.store.save_race_meta(race_id, self._with_sessions(meta))

    async def save_waiting(self, race_id: str, meta: Message) -> None:
        """Keep a race that has not started, as it is now, so another node can take it on; raises
        StoreDown."""
        await self.store.save_race_waiting(race_id, self._with_sessions(meta))

    def _with_sessions(self, meta: Message) -> Message:
        players = [{**p, "session_hash": self.accounts.session_hash(str(p["id"]))} for p in meta["players"]]
        return {**meta, "players": players}

    async def append(self, race_id: str, entry: Message) -> None:
        """Append one entry before what it says happens; raises StoreDown, or NotOwner when another
        node has taken the race over (nothing appended)."""
        await self.store.log_append(race_id, entry, self.node)

    async def drop(self, race_id: str) -> None:
        """Forget a race that is over (its record is kept, or it was cancelled); retried while the
        store is down."""
        for delay in backoff():
            try:
                await self.store.log_drop(race_id)
                return
            except StoreDown as exc:
                log.warning("race %s: log not dropped yet (%s); retrying in %.1f s", race_id, exc, delay)
                await asyncio.sleep(delay)

    async def live(self) -> list[str]:
        """Ids of the races with a log or meta; raises StoreDown."""
        return await self.store.live_races()

    async def load(self, race_id: str, entries: bool = True) -> Saved | None:
        """The saved race (running, else waiting), or None when only a log is left (an append that
        came after the race was over); its log is read only with ``entries``; raises StoreDown."""
        meta = await self.store.race_meta(race_id)
        waiting = meta is None
        if meta is None:
            meta = await self.store.race_waiting(race_id)
        if meta is None:
            return None
        moves = await self.entries(race_id) if entries and not waiting else []
        saved = list(meta["players"])
        public = [{k: v for k, v in p.items() if k != "session_hash"} for p in saved]
        return Saved({**meta, "players": public}, moves, saved, waiting)

    async def entries(self, race_id: str) -> list[Message]:
        """A running race's move log, in append order; raises StoreDown."""
        return await self.store.log_read(race_id)
