"""One matchmaking queue for every node of a deployment (one node of many, on Redis).

A node puts its queued players in the store's queue (:meth:`~server.store.Store.queue_put`)
and, a few times a second and at once after a queue request, asks the store for due groups
(:meth:`~server.store.Store.queue_match`, one atomic script: each waiting player goes to one
group, whichever node asks). The node that takes a group makes its race and owns it; the
group's players on other nodes hear of it through the nodes' events: a ``redirect`` push to
the race's node, where their session is good, and their seat waits for them. The rules are
those of :mod:`server.races.matchmaking`: ``queue_seats`` at once, or two or more once the person
who has waited longest has waited ``queue_wait``; house players fill seats and never make a
race alone, whichever node they wait on.

A winnable queue (``deals: "winnable"``, its store name ends in ``:winnable``) is matched by a
node only once that node holds a winnable deal for it (its own :class:`~server.races.winnable.Reserve`,
drawn as soon as the node sees the queue): the group's race is made on that deal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from server.config import Config
from server.periodic import repeat
from server.players.accounts import Accounts, Player
from server.races.matchmaking import QueueKey, matched, pairs_now, wait_of
from server.races.nodes import Cluster
from server.races.registry import Registry
from server.races.winnable import Drawn, Reserve

log = logging.getLogger("terrace.server")


def queue_name(key: QueueKey) -> str:
    """The store's name of a queue: ``variant:goal:pool``, and ``:winnable`` for winnable deals."""
    return ":".join(key if key[3] == "winnable" else key[:3])


def queue_key(name: str) -> QueueKey:
    variant, goal, pool, *deals = name.split(":", 3)
    return variant, goal, pool, deals[0] if deals else "any"


class SharedQueue:
    def __init__(self, config: Config, registry: Registry, accounts: Accounts, cluster: Cluster) -> None:
        self.config = config
        self.registry = registry
        self.accounts = accounts
        self.cluster = cluster
        self.store = cluster.store
        self._due = asyncio.Event()  # someone queued here: look for a group now
        self._listed: set[object] = set()  # the queues someone waited in when last looked
        # how often every node looks: often enough that a group waits little past queue_wait
        self.every = max(0.05, min(0.25, config.queue_wait / 3))
        self.reserve = Reserve(
            registry.searches.executor,
            config.winnable_seconds,
            wanted=lambda key: key in self._listed,  # someone waits there, on some node
            ready=lambda key: self._due.set(),
        )

    async def put(self, player: Player, key: QueueKey, house: bool) -> int:
        # the session's hash: the node that seats the player knows it by it (and saves it with the
        # race, for a restart), before the player says hello there
        session = self.accounts.session_hash(player.id)
        waiting = {**player.public(), "node": self.cluster.node, "session_hash": session}
        position = await self.store.queue_put(queue_name(key), dict(waiting), house)
        player.queued = key
        if key[3] == "winnable":
            self._listed.add(key)
            self.reserve.want(key, key[0])
        self._due.set()
        return position

    async def take(self, player: Player) -> None:
        key, player.queued = player.queued, None
        if key is not None:  # False: a node matched the player just now; its redirect follows
            await self.store.queue_take(queue_name(key), player.id)

    async def run(self) -> None:
        """Take every due group out of every queue, now and then (at once when someone queues
        here), for as long as the node runs."""
        await repeat(self.match, self.every, what="shared queue", wake=self._due)

    async def match(self) -> None:
        names = await self.store.queues()
        self._listed = {queue_key(name) for name in names}
        for name in names:
            key = queue_key(name)
            winnable = key[3] == "winnable"
            if not pairs_now(self.registry, key):
                continue
            while not winnable or self.reserve.has(key):
                group = await self.store.queue_match(name, self.config.queue_seats, wait_of(self.config, key))
                if not group:
                    break
                self._seat(key, group, self.reserve.take(key, key[0]) if winnable else None)
            if winnable and not self.reserve.has(key):
                self.reserve.want(key, key[0])  # whoever waits there, on any node, races on it

    def _seat(self, key: QueueKey, group: list[dict[str, Any]], drawn: Drawn | None = None) -> None:
        players = [self.accounts.restore(p) for p in group]
        driver = matched(self.registry, key, players, drawn)
        elsewhere = [str(p["id"]) for p in group if p.get("node") != self.cluster.node]
        if elsewhere:
            self.cluster.tell(
                driver.id, elsewhere, {"type": "redirect", "race": driver.id, "url": self.cluster.node}
            )


def told(accounts: Accounts, event: Mapping[str, Any]) -> None:
    """Another node matched players of ours into its race: they leave our queue and go there."""
    for pid in event["to"]:
        player = accounts.get(str(pid))
        if player is not None:
            player.queued = None
            if player.connection is not None:
                player.connection.push(event["msg"])
