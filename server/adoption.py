"""Taking races on from their logs: at start (races this server ran before it stopped or died)
and from other nodes (races whose owner died, or that another node owns: ``redirect``).

A node alone rebuilds every live race at start. One node of many rebuilds only the races
whose lease it can take, answers :class:`~server.nodes.Redirect` for a race another node
owns, and every second renews its leases and adopts the races whose owner's lease ran out.
"""

from __future__ import annotations

import asyncio
import logging

from terrace.race import restore, restore_waiting

from .accounts import Accounts
from .driver import RaceDriver, now_ms
from .journal import Journal
from .nodes import Cluster, Redirect
from .registry import Registry, timing
from .store import StoreDown

log = logging.getLogger("terrace.server")


class Adoption:
    def __init__(self, registry: Registry, journal: Journal, accounts: Accounts) -> None:
        self.registry = registry
        self.journal = journal
        self.accounts = accounts
        self.cluster: Cluster | None = None
        self._lock = asyncio.Lock()

    async def restore_all(self) -> None:
        """Rebuild every race the store says was running; StoreDown if it is down."""
        for race_id in await self.journal.live():
            await self.adopt(race_id)

    async def adopt(self, race_id: str) -> RaceDriver | None:
        """Rebuild one live race from its log if it is not here yet (and, one node of many, its
        lease was free and is now ours); StoreDown if the store is down."""
        async with self._lock:
            if race_id in self.registry.drivers:
                return self.registry.drivers[race_id]
            if self.cluster is not None and not await self.cluster.take(race_id):
                return None
            try:
                driver = await self._rebuild(race_id)
            except StoreDown:
                await self._release(race_id)
                raise
            except Exception:  # one unreadable race must not keep the server down; its log stays
                log.exception("race %s could not be restored", race_id)
                await self._release(race_id)
                return None
            if driver is None:
                await self._release(race_id)
            return driver

    async def _rebuild(self, race_id: str) -> RaceDriver | None:
        saved = await self.journal.load(race_id)
        if saved is None:  # a log without meta: a late append after the race was over
            if race_id in await self.journal.live():
                await self.journal.store.log_drop(race_id)
            return None
        for info in saved.players:
            self.accounts.restore(info)
        timed = timing(self.registry.config)
        if saved.waiting:
            race, effects = restore_waiting(race_id, saved.meta, now=now_ms(), timing=timed)
            driver = self.registry.add(race)
            driver.logged = True
            driver.apply(effects)
            log.info(
                "race %s taken on while waiting: %s", race_id, ", ".join(p["name"] for p in saved.players)
            )
        else:
            race, searches = restore(race_id, saved.meta, saved.entries, timing=timed)
            driver = self.registry.add(race)
            driver.logged = True
            driver.apply(await driver._settle(searches))
            log.info(
                "race %s restored: %s",
                race_id,
                ", ".join(
                    f"{s.player['name']} seq {s.seq}" + (f" {s.finish}" if s.finish else "")
                    for s in race.seats.values()
                ),
            )
            driver.apply(race.go_on(now_ms()))
        if race.id in self.registry.drivers:  # players already here carry on at once
            for pid, seat in race.seats.items():
                player = self.accounts.get(pid)
                if player is not None and player.connection is not None and seat.finish is None:
                    self.registry.resume(player)
        return driver

    async def _release(self, race_id: str) -> None:
        if self.cluster is not None:
            self.cluster.owned.discard(race_id)
            await self.journal.store.lease_release(race_id, self.cluster.node)

    async def local(self, race_id: str) -> None:
        """Make sure a request about ``race_id`` is answered here: :class:`Redirect` if another
        node owns it; adopt it if it is live and nobody does."""
        if self.cluster is None or race_id in self.registry.drivers:
            return
        owner = await self.cluster.owner(race_id)
        if owner is not None:
            raise Redirect(race_id, owner)
        await self.adopt(race_id)

    async def tend(self) -> None:
        """Renew our leases; give up the races whose lease another node took; adopt orphans."""
        assert self.cluster is not None
        for race_id in await self.cluster.renew():
            self.lost(race_id, await self.journal.store.lease_owner(race_id))
        for race_id in await self.journal.live():
            if race_id not in self.registry.drivers and await self.journal.store.lease_owner(race_id) is None:
                await self.adopt(race_id)

    def lost(self, race_id: str, holder: str | None) -> None:
        """Another node (``holder``) took the race over: stop it here and send its players there
        with a ``redirect`` push (they say hello there with their session and carry on)."""
        if self.cluster is not None:
            self.cluster.owned.discard(race_id)
        driver = self.registry.drivers.pop(race_id, None)
        if driver is None:
            return
        log.error("race %s: lease lost to %s; its players go there", race_id, holder or "another node")
        driver.stop()
        for pid, seat in driver.race.seats.items():
            if seat.finish is None and holder is not None:  # None: taken and given up already
                self.registry.to_player(pid, {"type": "redirect", "race": race_id, "url": holder})
            self.registry.freed(driver.race, pid)  # not in a race here any more

    async def owner_elsewhere(self, race_id: str) -> bool:
        return self.cluster is not None and await self.cluster.owner(race_id) is not None
