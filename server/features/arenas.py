"""Arenas at the edge: the store's arenas run by :mod:`terrace.race.arena`, paired through matchmaking.

An arena lives in the store (spec, joined players, counted races), so every node of a
deployment sees the same arena. Its players wait in a matchmaking queue of their own, keyed
``(variant, goal, "POOL@ARENA")``: on one node of many that is the shared queue, so players
of one arena on different nodes are paired together, and the node that pairs a group runs its
race (the others are redirected there, as for any queue).

Each node does, every :data:`TICK` seconds, for the arenas it has a stake in:

- the arena's clock: at the start its joined players here are queued, at the end they leave
  the queue and hear ``arena_over``;
- pairing: a joined player here who is connected, in no race and not queued on two ticks in a
  row, while the arena runs, is queued again (a player back from a drop goes on; the usual way
  back into the queue is the end of a race, below, at once);
- watchers: an arena whose standings changed (here or on another node) is pushed to them.

A race of an arena that ends here is counted at once (the store counts each race once) and its
players still joined are queued again (:meth:`Arena.race_over`'s ``Pair``).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from collections.abc import Coroutine, Mapping
from typing import Any

from server.config import Config
from server.handlers.dispatch import Handler
from server.periodic import repeat
from server.players.accounts import Accounts, Player
from server.players.fairplay import FairPlay
from server.races.driver import RaceDriver
from server.races.matchmaking import Matchmaking, QueueKey
from server.races.registry import Registry
from server.store import Store, StoreDown
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.race.arena import Arena, ArenaSpec, Changed, Effect, Pair, Unpair, parse_schedules, race_result
from terrace.wire.messages import (
    ArenaAnswer,
    ArenaIdAnswer,
    ArenaJoin,
    ArenaJoined,
    ArenaLeave,
    ArenaQuery,
    ArenasAnswer,
    ArenasQuery,
    ArenaSummary,
    ArenaUnwatch,
)

log = logging.getLogger("terrace.server")

TICK = 0.5  # seconds between a node's looks at its arenas
REQUEUE_AFTER = 1.0  # seconds a player may wait in an arena's queue before being put in it afresh
FINISHED_LISTED = 20  # finished arenas in an `arenas` answer

Message = Mapping[str, Any]


def now_ms() -> int:
    return int(time.time() * 1000)


def queue_key(spec: ArenaSpec) -> QueueKey:
    """The arena's own matchmaking queue."""
    return (spec.variant, spec.goal, f"{spec.pool}@{spec.id}", "any")


def _utc(ms: int) -> str:
    """A unix time in ms as people read it in a log."""
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


class Arenas:
    ANONYMOUS = ("arenas", "arena", "arena_unwatch")

    def __init__(
        self,
        config: Config,
        store: Store,
        accounts: Accounts,
        registry: Registry,
        matchmaking: Matchmaking,
        fairplay: FairPlay,
    ) -> None:
        self.config = config
        self.store = store
        self.fairplay = fairplay
        self.accounts = accounts
        self.registry = registry
        self.matchmaking = matchmaking
        self.schedules = parse_schedules(config.arena_schedule)
        self.members: dict[str, str] = {}  # player id -> arena id, for players connected here
        self.races: dict[str, str] = {}  # race id -> arena id, for arena races run here
        # player id -> their arena race run here: a player who finished first waits for its end (for
        # the places, and so a client reading its `finished` is not seated in the next race meanwhile)
        self.playing: dict[str, str] = {}
        self.idle: set[str] = set()  # joined players the last tick found free here
        self.waiting: dict[str, float] = {}  # player id -> loop time first seen waiting in the arena queue
        self.watchers: dict[str, set[Connection]] = {}  # arena id -> connections watching it
        self.shown: dict[str, tuple[Any, ...]] = {}  # arena id -> what its watchers last heard
        self.clocks: dict[str, Arena] = {}  # arena id -> the arena as this node last ticked it
        self.ends: dict[str, int] = {}  # arena id -> its end (ms), for every arena this node has loaded
        self._tasks: set[asyncio.Task[None]] = set()
        registry.on_matched = self.matched
        registry.on_over = self.race_over
        registry.arena_open = self.open

    # ----- the store's arenas ------------------------------------------------------

    async def create(self, spec: ArenaSpec) -> bool:
        """Keep a new arena; False if its id is taken."""
        made = await self.store.arena_create(spec.to_dict())
        if made:
            log.info(
                "arena %s: %s %s from %s to %s UTC",
                spec.id,
                spec.variant,
                spec.pool,
                _utc(spec.starts_ms),
                _utc(spec.ends_ms),
            )
        return made

    async def load(self, arena_id: str, now: int | None = None) -> Arena:
        spec = await self.store.arena_get(arena_id)
        if spec is None:
            raise ProtocolError("no_arena", arena=arena_id)
        self.ends[arena_id] = int(spec["ends_ms"])
        players, results = await self.store.arena_players(arena_id), await self.store.arena_results(arena_id)
        return Arena.restore(ArenaSpec.from_dict(spec), players, results, now_ms() if now is None else now)

    # ----- requests (added to the handlers' table by the app) -----------------------

    def handlers(self) -> dict[str, Handler]:
        return {
            "arenas": self.on_arenas,
            "arena": self.on_arena,
            "arena_unwatch": self.on_arena_unwatch,
            "arena_join": self.on_arena_join,
            "arena_leave": self.on_arena_leave,
        }

    async def on_arenas(self, conn: Connection, req: ArenasQuery) -> ArenasAnswer:
        now = now_ms()
        lists: dict[str, list[Message]] = {"upcoming": [], "running": [], "finished": []}
        for raw in await self.store.arena_list():
            spec = ArenaSpec.from_dict(raw)
            lists[spec.state_at(now)].append(spec)  # type: ignore[arg-type]
        lists["finished"] = lists["finished"][-FINISHED_LISTED:][::-1]  # newest first
        listed: dict[str, list[ArenaSummary]] = {}
        for state, specs in lists.items():
            listed[state] = [(await self.load(s.id, now)).summary(now) for s in specs]  # type: ignore[attr-defined]
        return {
            "type": "arenas",
            "now": now,
            "upcoming": listed["upcoming"],
            "running": listed["running"],
            "finished": listed["finished"],
        }

    async def on_arena(self, conn: Connection, req: ArenaQuery) -> ArenaAnswer:
        now = now_ms()
        arena = await self.load(req.arena, now)
        if req.watch:
            self.watchers.setdefault(arena.spec.id, set()).add(conn)
        return {"type": "arena", "arena": arena.details(now), "now": now}

    async def on_arena_unwatch(self, conn: Connection, req: ArenaUnwatch) -> ArenaIdAnswer:
        self.watchers.get(req.arena, set()).discard(conn)
        return {"type": "arena_unwatched", "arena": req.arena}

    async def on_arena_join(self, conn: Connection, req: ArenaJoin) -> ArenaJoined:
        player = conn.player
        assert player is not None
        now = now_ms()
        arena = await self.load(req.arena, now)
        other = self.members.get(player.id)
        if other is not None and other != arena.spec.id:
            raise ProtocolError("already_in_arena", arena=other)
        effects = arena.join(player.public(), now)  # refuses a finished arena, a wrong pool
        await self.store.arena_join(arena.spec.id, arena.players[player.id])
        self.members[player.id] = arena.spec.id
        await self._apply(arena, effects)
        return {"type": "arena_joined", "arena": arena.summary(now)}

    async def on_arena_leave(self, conn: Connection, req: ArenaLeave) -> ArenaIdAnswer:
        player = conn.player
        assert player is not None
        arena = await self.load(req.arena, now_ms())
        effects = arena.leave(player.id)  # not_in_arena
        await self.store.arena_leave(arena.spec.id, player.id)
        self.members.pop(player.id, None)
        await self._apply(arena, effects)
        return {"type": "arena_left", "arena": arena.spec.id}

    def gone(self, conn: Connection) -> None:
        for watching in self.watchers.values():
            watching.discard(conn)

    # ----- effects -------------------------------------------------------------------

    async def _apply(self, arena: Arena, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Pair):
                for pid in effect.players:
                    await self._pair(arena, pid)
            elif isinstance(effect, Unpair):
                for pid in effect.players:
                    await self._unpair(arena, pid)
            elif isinstance(effect, Changed):
                self._show(arena)

    def _racing(self, player_id: str) -> bool:
        """Whether the player is in a race here, or waits for an arena race of theirs to end."""
        player = self.accounts.get(player_id)
        if player is not None and player.race is not None and player.race in self.registry.drivers:
            return True
        return self.playing.get(player_id) in self.registry.drivers

    def _free(self, player_id: str) -> Player | None:
        """The player, if they are connected here, not queued and in no race here."""
        player = self.accounts.get(player_id)
        if player is None or player.connection is None or player.queued is not None:
            return None
        if player.race is not None and player.race in self.registry.drivers:
            return None
        if self.playing.get(player_id) in self.registry.drivers:
            return None
        return player

    async def _pair(self, arena: Arena, player_id: str) -> None:
        """Queue a joined player here for the arena's next race, if they are free to race."""
        player = self._free(player_id)
        if player is None or arena.spec.state_at(now_ms()) != "running":
            return  # busy, gone, or the arena is over: no race starts after the end
        self.members[player_id] = arena.spec.id
        self.idle.discard(player_id)
        await self.matchmaking.enqueue(player, queue_key(arena.spec))

    async def _unpair(self, arena: Arena, player_id: str) -> None:
        player = self.accounts.get(player_id)
        over = arena.spec.state_at(now_ms()) == "finished"
        if over and player is not None and player.connection is not None and self._racing(player_id):
            # a race paired before the end is still to play, and counts: `arena_over` waits for its
            # end (the next tick after it unpairs again), or a bot told now would leave it unplayed
            return
        if self.members.get(player_id) == arena.spec.id:
            del self.members[player_id]
        if player is not None and player.queued == queue_key(arena.spec):
            await self.matchmaking.unqueue(player)
        if (
            player is not None
            and player.connection is not None
            and arena.spec.state_at(now_ms()) == "finished"
        ):
            player.connection.push({"type": "arena_over", "arena": arena.spec.id})

    def _show(self, arena: Arena) -> None:
        """Push the arena to its watchers here when it is not what they last heard."""
        now = now_ms()
        seen = (arena.spec.state_at(now), len(arena.results), tuple(sorted(arena.players)))
        if self.shown.get(arena.spec.id) == seen:
            return
        self.shown[arena.spec.id] = seen
        watching = self.watchers.get(arena.spec.id)
        if watching:
            msg = {"type": "arena", "arena": arena.details(now), "now": now}
            for conn in list(watching):
                conn.push(msg)

    # ----- the registry's hooks ------------------------------------------------------

    def matched(self, arena_id: str, driver: RaceDriver, group: list[Player]) -> None:
        """Matchmaking made a race of the arena's queue here: it counts for the arena when over."""
        self.races[driver.id] = arena_id
        for p in group:
            self.members[p.id] = arena_id  # they play here now, whichever node they joined on
            self.playing[p.id] = driver.id

    def open(self, arena_id: str) -> bool:
        """Whether the arena still pairs players: not once its end has passed. An arena this node has
        never loaded is taken as open: its players' own nodes load it before they queue them."""
        ends = self.ends.get(arena_id)
        return ends is None or now_ms() < ends

    def race_over(self, driver: RaceDriver, record: Message | None) -> None:
        arena_id = self.races.pop(driver.id, None)
        for pid in [p for p, r in self.playing.items() if r == driver.id]:
            del self.playing[pid]
        if arena_id is not None and record is not None:
            self._spawn(self._count(arena_id, record))

    async def _count(self, arena_id: str, record: Message) -> None:
        result: dict[str, Any] | None = None
        for attempt in range(20):  # the store may be away a moment: the race must still count
            try:
                if result is None:
                    seated = [self.accounts.get(str(row["player"]["id"])) for row in record["results"]]
                    held = await self.fairplay.held_in_arena(record, seated, self.registry.crowds)
                    result = race_result(record, held)
                arena = await self.load(arena_id)
                effects = arena.race_over(result, now_ms())
                if not await self.store.arena_result(arena_id, result):
                    return  # counted already (a retry whose first try got through)
                await self._apply(arena, effects)
                return
            except StoreDown as exc:
                log.warning("arena %s: race %s not counted yet (%s)", arena_id, record["id"], exc)
                await asyncio.sleep(0.25 * (attempt + 1))
        log.error("arena %s: race %s never counted: the store stayed down", arena_id, record["id"])

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----- the node's tick -----------------------------------------------------------

    async def run(self) -> None:
        """Tend every arena this node knows of, every TICK seconds, for as long as the node runs."""
        await repeat(self.tick, TICK, what="arenas", first=True)

    async def tick(self) -> None:
        now = now_ms()
        wanted = set(self.members.values()) | {a for a, w in self.watchers.items() if w} | set(self.clocks)
        for schedule in self.schedules:
            spec = schedule.next_spec(now)
            if spec.id not in self.clocks:
                await self.create(spec)  # every node tries: the first makes it, the others find it
            wanted.add(spec.id)
        for arena_id in wanted:
            try:
                arena = await self.load(arena_id, now)
            except ProtocolError:
                continue
            await self._tend(arena, now)

    async def _tend(self, arena: Arena, now: int) -> None:
        arena_id = arena.spec.id
        clock = self.clocks.get(arena_id)
        if clock is None:  # first look from this node: its state as of now, without effects
            clock = self.clocks[arena_id] = Arena.restore(arena.spec, [], [], now)
        clock.players = arena.players
        effects = clock.tick(now)
        if clock.state == "finished" and not effects:
            mine = [pid for pid, a in self.members.items() if a == arena_id]
            effects = [Unpair(tuple(mine))] if mine else []
        await self._apply(arena, effects)
        for pid, a in list(self.members.items()):
            if a != arena_id:
                continue
            if pid not in arena.players:
                del self.members[pid]  # left (maybe on another node)
            elif arena.state == "running" and await self._stale(arena, pid):
                continue
            elif arena.state == "running":
                # Free on two ticks in a row: a player another node just matched is free here for the
                # moment it takes their connection to move there (its `redirect` is on its way), and
                # must not be queued again meanwhile.
                if self._free(pid) is None:
                    self.idle.discard(pid)
                elif pid in self.idle:
                    await self._pair(arena, pid)
                else:
                    self.idle.add(pid)
        self._show(arena)
        idle = not self.watchers.get(arena_id) and arena_id not in self.members.values()
        if arena.state == "finished" and idle and not self._scheduled(arena_id):
            self.clocks.pop(arena_id, None)
            self.shown.pop(arena_id, None)

    async def _stale(self, arena: Arena, player_id: str) -> bool:
        """Whether the player waits in the arena's queue here; one who has waited REQUEUE_AFTER is
        put in it afresh. On several nodes a player moving between nodes can be left believed
        queued here while the shared queue no longer holds them (or holds them under the node
        they left): put afresh, their entry names this node and they are paired again."""
        player = self.accounts.get(player_id)
        key = queue_key(arena.spec)
        if player is None or player.connection is None or player.queued != key:
            self.waiting.pop(player_id, None)
            return False
        now = asyncio.get_running_loop().time()
        since = self.waiting.setdefault(player_id, now)
        if now - since >= REQUEUE_AFTER:
            self.waiting[player_id] = now
            await self.matchmaking.unqueue(player)
            await self.matchmaking.enqueue(player, key)
        return True

    def _scheduled(self, arena_id: str) -> bool:
        now = now_ms()
        return any(s.next_spec(now).id == arena_id for s in self.schedules)
