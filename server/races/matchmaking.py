"""Matchmaking: players waiting by variant, goal and pool, grouped into races.

A group becomes a race (``start: full``, no creator, the default time limit) as soon
as ``queue_seats`` players wait, or when the oldest of two or more has waited
``queue_wait`` seconds. House players (``house: true``) wait only to give others
someone to race: they never make a race alone, people take seats first, and only
people's waiting time counts.

Players who ask for winnable deals (``deals: "winnable"``) wait in queues of their own and
are matched only with each other; their race's deal is one the solver proved winnable,
drawn ahead in the worker pool (:class:`server.races.winnable.Reserve`). A group that is due
before its deal is drawn waits for it.

A node alone keeps its queues here, in memory. One node of many hands them to
:class:`~server.races.shared_queue.SharedQueue` (``shared``): one queue in the store for every
node, with the same rules.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Protocol

from server.config import Config
from server.players.accounts import Player
from server.races.driver import RaceDriver
from server.races.registry import Registry, goal_of
from server.races.winnable import Drawn, Reserve
from terrace.errors import ProtocolError
from terrace.race import RaceRules, admits

log = logging.getLogger("terrace.server")

QueueKey = tuple[str, str, str, str]  # variant, goal, pool ("POOL@ARENA" for an arena's), deals
ARENA_WAIT = 0.5  # seconds an arena's queue waits for a fuller group: arenas pair at once


@dataclass
class Waiting:
    players: list[Player] = field(default_factory=list)
    since: dict[str, float] = field(default_factory=dict)  # player id -> loop time queued
    house: set[str] = field(default_factory=set)  # ids of players who wait only to race others
    timer: asyncio.TimerHandle | None = None

    def has_guest(self) -> bool:
        """Whether someone waits who came to race (not only house players)."""
        return len(self.players) > len(self.house)


class Queue(Protocol):
    """Where queued players wait: here (:class:`Matchmaking`) or in the store (``SharedQueue``)."""

    async def put(self, player: Player, key: QueueKey, house: bool) -> int: ...
    async def take(self, player: Player) -> None: ...


class Matchmaking:
    def __init__(self, config: Config, registry: Registry, shared: Queue | None = None) -> None:
        self.config = config
        self.registry = registry
        self.queues: dict[QueueKey, Waiting] = {}
        self.shared = shared  # one node of many: the deployment's one queue
        self.reserve = Reserve(
            registry.searches.executor,
            config.winnable_seconds,
            wanted=lambda key: key in self.queues,
            ready=self._deal_drawn,
        )

    async def queue(
        self,
        player: Player,
        variant: str,
        goal: str | None,
        pool: str,
        house: bool = False,
        deals: str = "any",
    ) -> tuple[QueueKey, int]:
        """Put ``player`` in the queue; returns the queue and the player's position in it."""
        goal = goal_of(variant, goal)
        if not admits(pool, player.kind):  # type: ignore[arg-type]
            raise ProtocolError("pool_refused", pool=pool)
        if house and player.registered:
            # house players skip the one-account-per-address check (they are the operator's
            # guests, never rated): an account that said house would farm ratings with itself
            raise ProtocolError(
                "bad_field", field="house", detail="is for guests (the operator's house players)"
            )
        self.registry.check_free(player)
        key = (variant, goal, pool, deals)
        return key, await self.enqueue(player, key, house)

    async def enqueue(self, player: Player, key: QueueKey, house: bool = False) -> int:
        """Put a player the caller has checked in the queue ``key``; returns their position."""
        if self.shared is not None:
            return await self.shared.put(player, key, house)
        if key[3] == "winnable":
            self.reserve.want(key, key[0])  # drawn while the group gathers
        waiting = self.queues.setdefault(key, Waiting())
        waiting.players.append(player)
        waiting.since[player.id] = asyncio.get_running_loop().time()
        if house:
            waiting.house.add(player.id)
        player.queued = key
        position = len(waiting.players)
        self._check(key)
        return position

    async def unqueue(self, player: Player) -> None:
        if player.queued is None:
            raise ProtocolError("not_queued")
        if self.shared is not None:
            await self.shared.take(player)
        else:
            self._unqueue(player)

    def _unqueue(self, player: Player) -> None:
        key = player.queued
        assert key is not None
        waiting = self.queues[key]
        waiting.players.remove(player)
        waiting.since.pop(player.id, None)
        waiting.house.discard(player.id)
        player.queued = None
        if not waiting.players:
            if waiting.timer is not None:
                waiting.timer.cancel()
            del self.queues[key]

    def _match(self, key: QueueKey) -> None:
        waiting = self.queues.get(key)
        if waiting is None:
            return
        if waiting.timer is not None:
            waiting.timer.cancel()
            waiting.timer = None
        if len(waiting.players) < 2 or not waiting.has_guest() or not pairs_now(self.registry, key):
            return
        if key[3] == "winnable" and not self.reserve.has(key):
            self.reserve.want(key, key[0])
            return  # the group waits for its deal: the reserve calls _check when it is drawn
        # Players who came to race take their seats first; house players fill the rest.
        # A registered player whose address already has its rated seats waits for the next group
        # (house players are the operator's own, and never refused); in an arena's queue a person,
        # guest or not, whose address or install has its seats is left for a group of others
        # (points are at stake) while there is one; people who only have each other (a club on
        # one network) race all the same, for no points (server.features.arenas holds them).
        ordered = sorted(waiting.players, key=lambda p: p.id in waiting.house)
        group = self._group(waiting, ordered, apart="@" in key[2])
        if len(group) < 2 and "@" in key[2]:
            group = self._group(waiting, ordered, apart=False)
        if len(group) < 2:
            return
        for p in group:
            self._unqueue(p)
        matched(self.registry, key, group, self.reserve.take(key, key[0]))
        if key in self.queues:  # more waited than one race holds
            self._check(key)

    def _group(self, waiting: Waiting, ordered: list[Player], apart: bool) -> list[Player]:
        """The next group from ``ordered``: no more registered players of one address than a rated
        race takes, nor, ``apart``, people of one address or install (guests too)."""
        group: list[Player] = []
        for p in ordered:
            if len(group) < self.config.queue_seats and (
                p.id in waiting.house
                or not (self.registry.clashes(group, p) or (apart and self.registry.crowds(group, p)))
            ):
                group.append(p)
        return group

    def _deal_drawn(self, key: Hashable) -> None:
        if key in self.queues:
            self._check(key)

    def _check(self, key: QueueKey) -> None:
        """Match a full group now, or set the timer for the wait once two are waiting."""
        waiting = self.queues[key]
        if not waiting.has_guest():
            return  # house players alone never make a race: they wait for someone to race
        if len(waiting.players) >= self.config.queue_seats:
            self._match(key)
        elif len(waiting.players) >= 2 and waiting.timer is None:
            loop = asyncio.get_running_loop()
            guests = [t for pid, t in waiting.since.items() if pid not in waiting.house]
            delay = max(0.0, min(guests) + wait_of(self.config, key) - loop.time())
            waiting.timer = loop.call_later(delay, self._match, key)


def wait_of(config: Config, key: QueueKey) -> float:
    """How long the queue ``key`` waits for a full group once two wait."""
    return min(config.queue_wait, ARENA_WAIT) if "@" in key[2] else config.queue_wait


def pairs_now(registry: Registry, key: QueueKey) -> bool:
    """Whether the queue ``key`` may make a race now: an arena's queue stops at the arena's end (its
    players are taken out of it at the arena's next tick)."""
    _, _, arena = key[2].partition("@")
    return not arena or registry.arena_open(arena)


def matched(registry: Registry, key: QueueKey, group: list[Player], drawn: Drawn | None = None) -> RaceDriver:
    """A race for a matched group: ``start: full``, no creator, the default time limit; on ``drawn``
    (a winnable deal) when the queue asked for one."""
    variant, goal, pool, deals = key
    assert (deals == "winnable") == (drawn is not None), key
    pool, _, arena = pool.partition("@")
    rules = RaceRules(variant, goal, len(group), registry.config.default_time_limit, pool, "full")  # type: ignore[arg-type]
    driver = registry.new(rules, None, drawn)
    log.info("queue matched %s into race %s", ", ".join(p.name for p in group), driver.id)
    if arena and registry.on_matched is not None:
        registry.on_matched(arena, driver, group)
    for p in group:
        p.queued = None
        registry.seat(
            driver, p, check=False
        )  # the group is formed: the last seat fills the race and starts its countdown
    return driver
