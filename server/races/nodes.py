"""Many nodes, one Redis: who owns which race, and race events for every node.

A node with a public URL on a shared store is one node of many. Each race is owned by
one node through a lease (``lease:{race id}`` = the owner's public URL, a few seconds'
ttl, renewed every second while the race lives, released once it is over and its record
kept). A node asked about a race it does not own answers ``redirect`` with the owner's
URL. The owner publishes the race's events (``race``, ``standings``, ``finished``) and keeps
its summary and latest standings in the store, so every node lists the same races and its
spectators see the same standings. When a lease runs out (its owner died), another node
takes it and adopts the race from its log, as a restarted server does.

A node that finds its lease taken (it stalled past the lease's ttl, or lost Redis for that
long, and another node adopted the race) stops the race at once and sends its players a
``redirect`` push naming the new owner; its log appends are refused from the moment the other
node took the lease (:class:`~server.store.NotOwner`), so the two never both write one race.
Race summaries and standings that could not be shared while the store was down are shared
again once it is back, and spectators of another node's race are caught up from the store
every second, so pub/sub events lost in a gap leave nobody with stale numbers.

A node without a public URL (or on the memory store) is alone: it owns every race and keeps
its own matchmaking queues; nodes of one deployment share one queue (:mod:`.shared_queue`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from server.store import Store, StoreDown

log = logging.getLogger("terrace.server")

LEASE_TTL = 3.0  # seconds a lease lives without renewal
RENEW_EVERY = 1.0  # seconds between renewals (and adoption checks)

Message = Mapping[str, Any]


class Redirect(Exception):
    """The race belongs to another node: answer ``redirect`` to ``url``."""

    def __init__(self, race_id: str, url: str) -> None:
        super().__init__(f"race {race_id} is on {url}")
        self.race_id = race_id
        self.url = url

    def to_message(self, rid: int | None) -> Message:
        msg: dict[str, Any] = {"type": "redirect", "race": self.race_id, "url": self.url}
        if rid is not None:
            msg["re"] = rid
        return msg


class Cluster:
    """This node's leases and its link to the other nodes (events in order, one writer)."""

    def __init__(self, store: Store, node: str) -> None:
        self.store = store
        self.node = node
        self.owned: set[str] = set()
        self._out: asyncio.Queue[tuple[str, str, Any]] = asyncio.Queue()
        # the latest summary or standings of a race that could not be shared (the store was
        # down): shared again once it is back, so no node is left with stale numbers
        self._unshared: dict[tuple[str, str], Message] = {}
        self._writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write())

    async def stop(self, release: bool = True) -> None:
        """Stop writing; give up every lease (another node adopts those races at once)."""
        if self._writer is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._out.join(), 2.0)
            self._writer.cancel()
        if release:
            for race_id in list(self.owned):
                try:
                    await self.store.lease_release(race_id, self.node)
                except StoreDown:
                    break
            self.owned.clear()

    # ----- leases -------------------------------------------------------------------

    async def take(self, race_id: str) -> bool:
        if await self.store.lease_take(race_id, self.node, LEASE_TTL):
            self.owned.add(race_id)
            return True
        return False

    def claim(self, race_id: str) -> None:
        """Take the lease of a race just created here (in order with its events)."""
        self.owned.add(race_id)
        self._out.put_nowait(("take", race_id, None))

    async def shared(self, timeout: float = 2.0) -> None:
        """Wait (a little) until what was emitted so far is in the store, for every node to see."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._out.join(), timeout)

    def done(self, race_id: str) -> None:
        """The race is over and its record kept: forget it everywhere, release its lease."""
        self._out.put_nowait(("done", race_id, None))

    async def owner(self, race_id: str) -> str | None:
        """Another node's URL if it owns the race, else None."""
        if race_id in self.owned:
            return None
        owner = await self.store.lease_owner(race_id)
        return owner if owner != self.node else None

    async def renew(self) -> list[str]:
        """Renew every lease; returns the races whose lease was lost (another node took them)."""
        if self._unshared:
            self._out.put_nowait(("flush", "", None))  # in order with the events after it
        lost = []
        for race_id in list(self.owned):
            renewed = await self.store.lease_renew(race_id, self.node, LEASE_TTL)
            if not renewed and not await self.store.lease_take(race_id, self.node, LEASE_TTL):
                lost.append(race_id)
                self.owned.discard(race_id)
        return lost

    # ----- events -------------------------------------------------------------------

    def emit(self, race_id: str, msg: Message, share: str | None = None) -> None:
        """Publish ``msg`` about a race owned here; ``share`` ("summary", "standings"): keep it too."""
        self._out.put_nowait(("event", race_id, (msg, share)))

    def tell(self, race_id: str, players: list[str], msg: Message) -> None:
        """Push ``msg`` about a race owned here to ``players`` on whichever node they are."""
        self._out.put_nowait(("tell", race_id, (players, msg)))

    async def _write(self) -> None:
        while True:
            kind, race_id, arg = await self._out.get()
            try:
                await self._apply(kind, race_id, arg)
            except StoreDown as exc:
                log.warning("node event %s of %s not shared yet (%s)", kind, race_id, exc)
                if kind == "event" and arg[1] is not None:
                    self._unshared[(race_id, arg[1])] = arg[0]
            except Exception:
                log.exception("node event %s of %s failed", kind, race_id)
            finally:
                self._out.task_done()

    async def _apply(self, kind: str, race_id: str, arg: Any) -> None:
        if kind == "take":
            if not await self.take(race_id):
                log.error("race %s: its lease is another node's", race_id)
        elif kind == "flush":
            for (rid, part), msg in list(self._unshared.items()):
                if rid in self.owned:
                    await self._apply("event", rid, (msg, part))
                else:
                    self._unshared.pop((rid, part), None)
        elif kind == "event":
            msg, part = arg
            share = part
            if share == "summary" and msg["race"]["state"] in ("finished", "cancelled"):
                share = None
            if share is not None:
                await self.store.share_race(race_id, share, msg["race"] if share == "summary" else msg)
            self._unshared.pop((race_id, part), None)  # this is the newest: nothing older to share
            await self.store.publish({"node": self.node, "race": race_id, "msg": msg})
        elif kind == "tell":
            players, msg = arg
            await self.store.publish({"node": self.node, "race": race_id, "msg": msg, "to": players})
        elif kind == "done":
            self.owned.discard(race_id)
            self._unshared.pop((race_id, "summary"), None)
            self._unshared.pop((race_id, "standings"), None)
            await self.store.share_race(race_id, "summary", None)
            await self.store.lease_release(race_id, self.node)
