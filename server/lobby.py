"""The lobby: every race that is not over, matchmaking, spectators and lobby subscribers.

It is the races' :class:`~server.race.Outbox`: races tell it what changed and it
decides who hears about it. Finished races become records in the store, and their
live logs are dropped once the record is kept. On start, :meth:`Lobby.restore` rebuilds
the races that were running when the server stopped (or died) from their logs.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from terrace.conversation import backoff
from terrace.errors import ProtocolError

from .accounts import Accounts, Player
from .config import Config
from .connection import Connection, fan_out
from .leaderboards import Leaderboards
from .metrics import Metrics
from .nodes import Cluster, Redirect
from .race import Message, Race, RaceRules, admits
from .store import Store, StoreDown

log = logging.getLogger("terrace.server")

T = TypeVar("T")

QueueKey = tuple[str, str, str]  # variant, goal, pool


@dataclass
class _Waiting:
    players: list[Player] = field(default_factory=list)
    since: dict[str, float] = field(default_factory=dict)  # player id -> loop time queued
    house: set[str] = field(default_factory=set)  # ids of players who wait only to race others
    timer: asyncio.TimerHandle | None = None


class Lobby:
    def __init__(
        self, config: Config, store: Store, metrics: Metrics, executor: Executor, leaderboards: Leaderboards
    ) -> None:
        self.config = config
        self.store = store
        self.leaderboards = leaderboards
        self.board_watchers: set[Connection] = set()  # topic "leaderboards"
        self.metrics = metrics
        self.executor = executor
        self.races: dict[str, Race] = {}  # races not over yet
        self._unsaved: dict[str, Message] = {}  # records on their way to the store
        self._saving: set[asyncio.Task[None]] = set()
        self.spectators: dict[str, set[Connection]] = {}  # race id -> connections
        self.subscribers: set[Connection] = set()  # topic "lobby"
        self.queues: dict[QueueKey, _Waiting] = {}
        self.cluster: Cluster | None = None  # one node of many: see server.nodes
        self.accounts: Accounts | None = None  # set by restore: adoption rebuilds players
        self._adopting = asyncio.Lock()

    # ----- Outbox -------------------------------------------------------------------

    def to_player(self, player: Player, msg: Message) -> None:
        if player.connection is not None:
            player.connection.push(msg)

    def to_watchers(self, race: Race, msg: Message) -> None:
        fan_out(self._audience(race), msg)
        if self.cluster is not None:
            self.cluster.emit(race.id, msg, "standings" if msg.get("type") == "standings" else None)

    def race_changed(self, race: Race) -> None:
        msg = {"type": "race", "race": race.summary()}
        fan_out(self._audience(race), msg)
        if self.cluster is not None:
            self.cluster.emit(race.id, msg, "summary")

    def race_over(self, race: Race) -> None:
        self.races.pop(race.id, None)
        for conn in self.spectators.pop(race.id, set()):
            conn.spectating.discard(race.id)
        if race.state != "finished":
            if self.cluster is not None:
                self.cluster.done(race.id)
            return
        self.metrics.races_finished.inc()
        record = race.record()
        self._unsaved[race.id] = record
        task = asyncio.get_running_loop().create_task(self._save(record, race))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)
        log.info(
            "race %s finished: %s",
            race.id,
            ", ".join(f"{r['place']}. {r['player']['name']}" for r in race.results),
        )

    async def _save(self, record: Message, race: Race) -> None:
        """Keep the record, drop the race's log, then put the race on the leaderboards; retried
        while the store is down. The log goes only once the record is kept: a server that dies
        before that ends the race again from its log when it restarts."""
        await _until_stored(f"record {race.id}", lambda: self.store.save_record(record))
        self._unsaved.pop(record["id"], None)
        if race.logged:
            await race.flushed()
            await _until_stored(f"log drop of {race.id}", lambda: self.store.log_drop(race.id))
        if self.cluster is not None:
            self.cluster.done(race.id)  # the record is kept: no node may adopt the race now
        changed = await _until_stored(
            f"leaderboards for {race.id}", lambda: self.leaderboards.race_finished(record)
        )
        for board in changed if self.board_watchers else []:
            top = await self.leaderboards.rows(board)
            fan_out(self.board_watchers, {"type": "leaderboard", **board.describe(), "rows": top})

    async def drain(self) -> None:
        """Wait for records still on their way to the store (at shutdown)."""
        if self._saving:
            await asyncio.wait(set(self._saving), timeout=5)

    def _audience(self, race: Race) -> Iterable[Connection]:
        conns = {s.player.connection for s in race.seats.values() if s.player.connection is not None}
        return conns | self.spectators.get(race.id, set()) | self.subscribers

    # ----- races --------------------------------------------------------------------

    def race(self, race_id: str) -> Race:
        race = self.races.get(race_id)
        if race is None:
            raise ProtocolError("no_race", race=race_id)
        return race

    def _race_object(self, race_id: str, rules: RaceRules, creator: Player | None) -> Race:
        """A Race wired to this lobby: new (``_new_race``) or rebuilt from its log (``adopt``)."""
        return Race(
            race_id,
            rules,
            self,
            self.executor,
            creator=creator,
            countdown=self.config.countdown,
            grace=self.config.grace,
            standings_interval=self.config.standings_interval,
            on_move=self._moved,
            store=self.store,
        )

    def _new_race(self, rules: RaceRules, creator: Player | None) -> Race:
        race_id = secrets.token_hex(4)
        while race_id in self.races:
            race_id = secrets.token_hex(4)
        race = self._race_object(race_id, rules, creator)
        self.races[race_id] = race
        if self.cluster is not None:
            self.cluster.claim(race_id)
        return race

    async def restore(self, accounts: Accounts) -> None:
        """Rebuild every race the store says was running (after a restart); StoreDown if it is down.

        One node of many rebuilds only the races whose lease it can take (see :meth:`adopt`)."""
        self.accounts = accounts
        for race_id in await self.store.live_races():
            await self.adopt(race_id)

    async def adopt(self, race_id: str) -> Race | None:
        """Rebuild one live race from its log if it is not here yet (and, one node of many, its
        lease was free and is now ours); StoreDown if the store is down."""
        assert self.accounts is not None
        async with self._adopting:
            if race_id in self.races:
                return self.races[race_id]
            if self.cluster is not None and not await self.cluster.take(race_id):
                return None
            meta = await self.store.race_meta(race_id)
            if meta is None:  # a log without meta: a late append after the race was over
                if race_id not in await self.store.live_races():
                    await self._release(race_id)
                    return None
                await self.store.log_drop(race_id)
                await self._release(race_id)
                return None
            entries = await self.store.log_read(race_id)
            try:
                race = await self._restore(race_id, meta, entries, self.accounts)
            except StoreDown:
                await self._release(race_id)
                raise
            except Exception:  # one unreadable race must not keep the server down; its log stays
                log.exception("race %s could not be restored", race_id)
                await self._release(race_id)
                return None
            self.races[race_id] = race
            log.info(
                "race %s restored: %s",
                race_id,
                ", ".join(
                    f"{s.player.name} seq {s.seq}" + (f" {s.finish}" if s.finish else "")
                    for s in race.seats.values()
                ),
            )
            race.go_on()
            if race.id in self.races:  # players already here carry on at once
                for seat in list(race.seats.values()):
                    conn = seat.player.connection
                    if conn is not None and seat.finish is None:
                        for msg in race.resume(seat.player):
                            conn.push(msg)
            return race

    async def _release(self, race_id: str) -> None:
        if self.cluster is not None:
            self.cluster.owned.discard(race_id)
            await self.store.lease_release(race_id, self.cluster.node)

    async def local(self, race_id: str) -> None:
        """Make sure a request about ``race_id`` is answered here: :class:`Redirect` if another
        node owns it; adopt it if it is live and nobody does."""
        if self.cluster is None or race_id in self.races:
            return
        owner = await self.cluster.owner(race_id)
        if owner is not None:
            raise Redirect(race_id, owner)
        await self.adopt(race_id)

    async def adopt_orphans(self) -> None:
        """Adopt the live races whose owner died (their lease ran out); renew our leases."""
        assert self.cluster is not None
        for race_id in await self.cluster.renew():
            race = self.races.pop(race_id, None)
            if race is not None:
                log.error("race %s: lease lost to another node; dropping it here", race_id)
                race.state = "cancelled"
                race._cancel_timers()
        for race_id in await self.store.live_races():
            if race_id not in self.races and await self.store.lease_owner(race_id) is None:
                await self.adopt(race_id)

    def remote(self, event: Message) -> None:
        """An event from another node's race: its spectators and subscribers here hear it."""
        race_id, msg = event["race"], event["msg"]
        if race_id in self.races:  # ours now (adopted): the old owner's late news is stale
            return
        fan_out(self.spectators.get(race_id, set()) | self.subscribers, msg)
        if msg.get("type") == "race" and msg["race"]["state"] in ("finished", "cancelled"):
            for conn in self.spectators.pop(race_id, set()):
                conn.spectating.discard(race_id)

    async def listing_all(self) -> list[Message]:
        """Races not over on every node (ours first)."""
        here = self.listing()
        if self.cluster is None:
            return here
        ids = {r["id"] for r in here}
        return here + [r for r in await self.store.shared_races() if r["id"] not in ids]

    async def _restore(self, race_id: str, meta: Message, entries: list[Message], accounts: Accounts) -> Race:
        players = [accounts.restore(p) for p in meta["players"]]
        creator_info = meta.get("creator")
        creator = next((p for p in players if creator_info and p.id == creator_info["id"]), None)
        if creator is None and creator_info is not None:  # created it without racing: a name only
            info = creator_info
            creator = Player(info["id"], info["name"], info["kind"], not info["guest"], "")
        race = self._race_object(race_id, RaceRules(**meta["rules"]), creator)
        await race.restore(meta, entries, players)
        return race

    def _moved(self, seconds: float) -> None:
        self.metrics.moves.inc()
        self.metrics.move_seconds.observe(seconds)

    def _free(self, player: Player) -> None:
        if player.race is not None and player.race in self.races:
            raise ProtocolError("already_in_race", race=player.race)
        if player.queued is not None:
            raise ProtocolError("already_queued")

    def create(self, player: Player, req: dict[str, Any]) -> Race:
        c = self.config
        variant = req["variant"]
        goal = req.get("goal", "clear" if variant == "louis" else "terrace")
        if variant == "louis" and goal != "clear":
            raise ProtocolError("bad_goal", variant=variant)
        seats = req.get("seats", 2)
        if seats > c.max_seats:
            raise ProtocolError("bad_field", field="seats", detail=f"must be at most {c.max_seats}")
        time_limit = req.get("time_limit", c.default_time_limit)
        if time_limit > c.max_time_limit:
            raise ProtocolError("bad_field", field="time_limit", detail=f"must be at most {c.max_time_limit}")
        joining = req.get("join", True)
        if joining:
            self._free(player)
        rules = RaceRules(
            variant, goal, seats, time_limit, req.get("entry", "all"), req.get("start", "manual")
        )
        if joining and not rules.admits(player):
            raise ProtocolError("entry_refused", entry=rules.entry)
        race = self._new_race(rules, player)
        log.info("race %s created by %s: %s %s, %d seats", race.id, player.name, variant, goal, seats)
        if joining:
            race.seat(player)
        else:
            self.race_changed(race)
        return race

    def join(self, player: Player, race_id: str) -> Race:
        race = self.race(race_id)
        if race.id == player.race:
            raise ProtocolError("already_in_race", race=race.id)
        self._free(player)
        race.seat(player)
        return race

    async def leave(self, player: Player, race_id: str) -> None:
        race = self.race(race_id)
        if player.id not in race.seats:
            raise ProtocolError("not_in_race", race=race_id)
        if race.state == "running":  # once the first view is dealt, leaving is resigning
            await race.resign(player)
        else:
            race.unseat(player)

    def start(self, player: Player, race_id: str) -> Race:
        race = self.race(race_id)
        if race.creator is not player:
            raise ProtocolError("not_creator", race=race_id)
        race.begin()
        return race

    def listing(self) -> list[Message]:
        return [r.summary() for r in self.races.values()]

    async def recent(self, n: int) -> list[Message]:
        """The last ``n`` finished races' records, newest first (saved or on their way)."""
        saved = await self.store.recent_records(n)
        unsaved = [r for r in reversed(self._unsaved.values()) if r["id"] not in {s["id"] for s in saved}]
        return (unsaved + saved)[:n]

    async def record(self, race_id: str) -> Message:
        record = self._unsaved.get(race_id) or await self.store.record(race_id)
        if record is not None:
            return record
        if race_id in self.races:
            raise ProtocolError("not_finished", race=race_id)
        if self.cluster is not None and await self.cluster.owner(race_id) is not None:
            raise ProtocolError("not_finished", race=race_id)
        raise ProtocolError("no_race", race=race_id)

    # ----- matchmaking --------------------------------------------------------------

    def queue(
        self, player: Player, variant: str, goal: str | None, pool: str, house: bool = False
    ) -> tuple[QueueKey, int]:
        goal = goal or ("clear" if variant == "louis" else "terrace")
        if variant == "louis" and goal != "clear":
            raise ProtocolError("bad_goal", variant=variant)
        if not admits(pool, player):
            raise ProtocolError("pool_refused", pool=pool)
        self._free(player)
        key = (variant, goal, pool)
        waiting = self.queues.setdefault(key, _Waiting())
        loop = asyncio.get_running_loop()
        waiting.players.append(player)
        waiting.since[player.id] = loop.time()
        if house:
            waiting.house.add(player.id)
        player.queued = key
        position = len(waiting.players)
        self._queue_check(key)
        return key, position

    def unqueue(self, player: Player) -> None:
        key = player.queued
        if key is None:
            raise ProtocolError("not_queued")
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
        if len(waiting.players) < 2 or not self._has_guest(waiting):
            return
        # Players who came to race take their seats first; house players fill the rest.
        ordered = sorted(waiting.players, key=lambda p: p.id in waiting.house)
        group = ordered[: self.config.queue_seats]
        for p in group:
            self.unqueue(p)
        variant, goal, pool = key
        rules = RaceRules(variant, goal, len(group), self.config.default_time_limit, pool, "full")
        race = self._new_race(rules, None)
        log.info("queue matched %s into race %s", ", ".join(p.name for p in group), race.id)
        for p in group:
            race.seat(p)  # the last seat fills the race, which starts the countdown
        if key in self.queues:  # more waited than one race holds
            self._queue_check(key)

    def _queue_check(self, key: QueueKey) -> None:
        """Match a full group now, or set the timer for the wait once two are waiting."""
        waiting = self.queues[key]
        if not self._has_guest(waiting):
            return  # house players alone never make a race: they wait for someone to race
        if len(waiting.players) >= self.config.queue_seats:
            self._match(key)
        elif len(waiting.players) >= 2 and waiting.timer is None:
            loop = asyncio.get_running_loop()
            guests = [t for pid, t in waiting.since.items() if pid not in waiting.house]
            delay = max(0.0, min(guests) + self.config.queue_wait - loop.time())
            waiting.timer = loop.call_later(delay, self._match, key)

    @staticmethod
    def _has_guest(waiting: _Waiting) -> bool:
        return len(waiting.players) > len(waiting.house)

    # ----- watching -----------------------------------------------------------------

    def spectate(self, conn: Connection, race_id: str) -> Race:
        race = self.race(race_id)
        self.spectators.setdefault(race_id, set()).add(conn)
        conn.spectating.add(race_id)
        return race

    async def spectate_remote(self, conn: Connection, race_id: str) -> tuple[Message, Message]:
        """Watch a race another node owns: its summary and latest standings; its events follow."""
        if self.cluster is None or await self.cluster.owner(race_id) is None:
            raise ProtocolError("no_race", race=race_id)
        shared = await self.store.shared_race(race_id)
        if "summary" not in shared:
            raise ProtocolError("no_race", race=race_id)
        summary = shared["summary"]
        standings = shared.get("standings") or {
            "type": "standings",
            "race": race_id,
            "state": summary["state"],
            "rows": [],
        }
        self.spectators.setdefault(race_id, set()).add(conn)
        conn.spectating.add(race_id)
        return summary, standings

    def unspectate(self, conn: Connection, race_id: str) -> None:
        self.spectators.get(race_id, set()).discard(conn)
        conn.spectating.discard(race_id)

    def gone(self, conn: Connection) -> None:
        """A connection closed: it stops watching; its player is away from races and queue."""
        for race_id in list(conn.spectating):
            self.unspectate(conn, race_id)
        self.subscribers.discard(conn)
        self.board_watchers.discard(conn)
        player = conn.player
        if player is None or player.connection is not conn:
            return
        player.connection = None
        if player.queued is not None:
            self.unqueue(player)
        if player.race is not None and player.race in self.races:
            self.races[player.race].disconnected(player)

    def resume(self, player: Player) -> list[Message]:
        if player.race is None or player.race not in self.races:
            return []
        return self.races[player.race].resume(player)


async def _until_stored(what: str, write: Callable[[], Awaitable[T]]) -> T:
    """``write()``, tried again with backoff for as long as the store is down."""
    for delay in backoff():
        try:
            return await write()
        except StoreDown as exc:
            log.warning("%s not stored yet (%s); retrying in %.1f s", what, exc, delay)
            await asyncio.sleep(delay)
    raise AssertionError("backoff() never ends")
