"""Taking races on from their logs: at start (races this server ran before it stopped or died)
and from other nodes (races whose owner died, or that another node owns: ``redirect``).

A node alone rebuilds every live race at start. One node of many rebuilds only the races
whose lease it can take, answers :class:`~server.races.nodes.Redirect` for a race another node
owns, and every second renews its leases and adopts the races whose owner's lease ran out.

Replaying logs is the costly part of a start (up to 8 seats x 5,000 moves a race), so it
has a budget: at start every race is claimed and its players known (one read of its meta
each), then the logs are replayed one race at a time in a worker thread, and the server
waits for that at most ``restore_budget`` seconds before it accepts connections. The rest
replay in the background while it serves; a race somebody asks for first (a hello of one
of its players, a request naming it) is replayed at once, ahead of the others.
"""

from __future__ import annotations

import asyncio
import logging

from server.players.accounts import Accounts
from server.races.driver import RaceDriver, now_ms
from server.races.journal import Journal, Saved
from server.races.nodes import Cluster, Redirect
from server.races.registry import Registry, timing
from server.store import StoreDown
from terrace.errors import ProtocolError
from terrace.race import restore, restore_waiting
from terrace.wire.conversation import backoff

log = logging.getLogger("terrace.server")


class Adoption:
    def __init__(
        self, registry: Registry, journal: Journal, accounts: Accounts, cluster: Cluster | None = None
    ) -> None:
        self.registry = registry
        self.journal = journal
        self.accounts = accounts
        self.cluster = cluster
        self._lock = asyncio.Lock()
        # running races claimed at start whose log is not replayed yet, in the order they replay
        self.unreplayed: dict[str, Saved] = {}

    async def restore_all(self, budget: float | None = None) -> asyncio.Task[None]:
        """Take on every race the store says was running: claim each (and know its players), then
        replay their logs for at most ``budget`` seconds (None: all of them); returns the task
        replaying the rest.
        StoreDown if the store is down before anything is claimed."""
        for race_id in await self.journal.live():
            await self.claim(race_id)
        replaying = asyncio.get_running_loop().create_task(self._replay_all())
        await asyncio.wait([replaying], timeout=budget)
        return replaying

    async def claim(self, race_id: str) -> None:
        """Take a race on without replaying its log yet: its lease (one node of many), its players
        (so their sessions work, and their hello finds their race); a waiting race, having no
        log, runs at once."""
        async with self._lock:
            if race_id in self.registry.drivers or race_id in self.unreplayed:
                return
            if self.cluster is not None and not await self.cluster.take(race_id):
                return
            try:
                saved = await self.journal.load(race_id, entries=False)
                if saved is None or saved.waiting:
                    await self._rebuild(race_id, saved)
                    if saved is None:
                        await self._release(race_id)
                    return
            except StoreDown:
                await self._release(race_id)
                raise
            except Exception:  # one unreadable race must not keep the server down; its log stays
                log.exception("race %s could not be restored", race_id)
                await self._release(race_id)
                return
            for info in saved.players:
                self.accounts.restore(info).race = race_id
            self.unreplayed[race_id] = saved

    async def _replay_all(self) -> None:
        """Replay every claimed race, oldest claim first, letting the server serve in between."""
        delays = backoff()
        while self.unreplayed:
            try:
                await self.replay(next(iter(self.unreplayed)))
                delays = backoff()
            except StoreDown as exc:
                delay = next(delays)
                log.warning("races not replayed yet (%s); retrying in %.1f s", exc, delay)
                await asyncio.sleep(delay)
            await asyncio.sleep(0)

    async def replay(self, race_id: str) -> None:
        """Replay a claimed race now, if it is not yet (first touch, or its turn); StoreDown if
        the store is down (it stays claimed, to be replayed later)."""
        if race_id not in self.unreplayed:
            return
        async with self._lock:
            saved = self.unreplayed.get(race_id)
            if saved is None:  # replayed while we waited
                return
            try:
                saved.entries = await self.journal.entries(race_id)
                await self._rebuild(race_id, saved)
            except StoreDown:
                raise
            except Exception:
                log.exception("race %s could not be restored", race_id)
                await self._release(race_id)
            del self.unreplayed[race_id]
            for info in saved.players:  # players whose race ended in its log, or failed, are free
                player = self.accounts.get(info["id"])
                driver = self.registry.drivers.get(race_id)
                seat = driver.race.seats.get(info["id"]) if driver is not None else None
                if player is not None and player.race == race_id and (seat is None or seat.finish):
                    player.race = None

    async def adopt(self, race_id: str) -> RaceDriver | None:
        """Rebuild one live race from its log if it is not here yet (and, one node of many, its
        lease was free and is now ours); StoreDown if the store is down."""
        await self.replay(race_id)  # claimed at start: it is ours already
        async with self._lock:
            if race_id in self.registry.drivers:
                return self.registry.drivers[race_id]
            if self.cluster is not None and not await self.cluster.take(race_id):
                return None
            try:
                driver = await self._rebuild(race_id, await self.journal.load(race_id))
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

    async def _rebuild(self, race_id: str, saved: Saved | None) -> RaceDriver | None:
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
            # in a worker thread: the event loop goes on serving while a long log replays (the
            # race is nobody else's until it is added below)
            race, searches = await asyncio.to_thread(
                restore, race_id, saved.meta, saved.entries, timing=timed
            )
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

    async def local(self, race_id: str, player: str | None = None) -> None:
        """Make sure a request about ``race_id`` (by ``player``, an id, if one said hello) is
        answered here: :class:`Redirect` if another node owns it; adopt it if it is live and nobody
        does; replay it first if it is claimed here and not replayed yet. Someone else's private race
        on another node is ``no_race``, never a redirect that would tell it exists."""
        await self.replay(race_id)
        if self.cluster is None or race_id in self.registry.drivers:
            return
        owner = await self.cluster.owner(race_id)
        if owner is not None:
            saved = await self.journal.load(race_id, entries=False)
            private = saved is not None and saved.meta.get("options", {}).get("private")
            if private and (player is None or all(p["id"] != player for p in saved.meta["players"])):  # type: ignore[union-attr]
                raise ProtocolError("no_race", race=race_id)
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
        self.unreplayed.pop(race_id, None)
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
