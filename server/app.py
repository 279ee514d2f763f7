"""The server process: its parts wired together, started and stopped.

:class:`RaceServer` builds every part in its constructor (the rooms' parts: accounts,
the races not over yet, matchmaking, who hears what, finished records, the move log,
taking races on from logs, the features, and, when it is one node of many, its
leases, node events and the shared queue); :meth:`RaceServer.start` only reaches the
store, binds the port and starts the background work, each job a
:func:`server.periodic.repeat`. It listens for websockets (:mod:`server.transport.endpoint`)
and plain HTTP (:mod:`server.transport.http`) on one port, watches the store's health,
and stops gracefully.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Coroutine, Mapping
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import NegotiationError
from websockets.http11 import Request, Response

from server.config import Config
from server.features.arenas import Arenas
from server.features.attempts import Attempts
from server.features.challenges import Challenges
from server.features.daily import Daily
from server.features.hindsight import Analyses
from server.handlers.dispatch import Dispatcher
from server.handlers.lobby import LobbyRequests
from server.handlers.players import PlayerRequests
from server.handlers.racing import RaceRequests
from server.metrics import Metrics
from server.periodic import repeat
from server.players.accounts import Accounts
from server.players.fairplay import FairPlay
from server.players.leaderboards import Leaderboards
from server.races.adoption import Adoption
from server.races.archive import Archive
from server.races.audience import Audience
from server.races.driver import Searches
from server.races.journal import Journal
from server.races.matchmaking import Matchmaking
from server.races.nodes import RENEW_EVERY, Cluster
from server.races.registry import Registry
from server.races.shared_queue import SharedQueue, told
from server.store import MemoryStore, Store, StoreDown, open_store
from server.transport import http
from server.transport.connection import Connection
from server.transport.endpoint import WRITE_LIMIT, serve_connection
from server.transport.guard import Guard, guarded
from server.workers import pool, stop_pool
from terrace.wire import house
from terrace.wire.messages import Request as WireRequest
from terrace.wire.protocol import REQUESTS, SUBPROTOCOLS

log = logging.getLogger("terrace.server")

STORE_CHECK = 1.0  # seconds between store health checks


class RaceServer:
    def __init__(self, config: Config, store: Store | None = None) -> None:
        self.config = config
        self.store = store or open_store(
            config.redis_url or None,
            config.keep_finished,
            cluster=config.redis_mode == "cluster",
            replica_acks=config.redis_replica_acks,
            max_sessions=config.memory_sessions,
        )
        self.store_down: str | None = None  # why the store failed its last health check
        self.metrics = Metrics()
        # The lost search (up to ~0.5 s of pure Python) runs in worker processes, so it
        # holds neither the event loop nor its GIL; workers start on the first search.
        self.executor = pool(config.search_workers)  # they die with the server, even at kill -9
        self.accounts = Accounts(self.store, config.session_ttl, house_key=self._house_key(config))
        self.fairplay = FairPlay(self.store, config)
        self.leaderboards = Leaderboards(self.store, self.fairplay)
        self.audience = Audience(self.accounts)
        # one node of many (a public URL on a shared store): leases, events and one queue for all
        shared_store = bool(config.public_url) and not isinstance(self.store, MemoryStore)
        self.cluster = Cluster(self.store, config.public_url) if shared_store else None
        self.journal = Journal(
            self.store, self.accounts, node=None if self.cluster is None else self.cluster.node
        )
        self.archive = Archive(self.store, self.journal, self.leaderboards, self.audience, self.cluster)
        self.registry = Registry(
            config,
            self.accounts,
            self.audience,
            self.archive,
            self.journal,
            Searches(self.executor),
            self.metrics,
            self.cluster,
        )
        self.shared = (
            None
            if self.cluster is None
            else SharedQueue(
                config=config, registry=self.registry, accounts=self.accounts, cluster=self.cluster
            )
        )
        self.matchmaking = Matchmaking(config, self.registry, self.shared)
        self.adoption = Adoption(self.registry, self.journal, self.accounts, self.cluster)
        self.attempts = Attempts(config, self.store, self.registry, self.archive)
        publish = None if self.cluster is None else self._publish
        self.daily = Daily(
            config, self.store, self.registry, self.audience, self.attempts, self.fairplay, publish=publish
        )
        self.challenges = Challenges(self.store, self.registry, self.attempts, self.fairplay)
        self.arenas = Arenas(
            config, self.store, self.accounts, self.registry, self.matchmaking, self.fairplay
        )
        races = RaceRequests(self.registry, self.audience, self.archive, self.adoption, self.store)
        races.kept.append(self.attempts.record)  # a private attempt's record is its feature's to give
        self.analyses = Analyses(self.store, self.executor, config, races.record)
        self.dispatcher = Dispatcher(self.adoption)
        for room in (
            PlayerRequests(self.accounts, self.registry, self.adoption, self.leaderboards),
            LobbyRequests(
                self.registry, self.matchmaking, self.audience, self.archive, self.adoption, self.store
            ),
            races,
            self.daily,
            self.challenges,
            self.arenas,
            self.analyses,
        ):
            self.dispatcher.add(room.handlers(), room.ANONYMOUS)
        # every request the protocol checks has its handler, and no handler waits for an unchecked one
        assert set(self.dispatcher.table) == set(REQUESTS), set(self.dispatcher.table) ^ set(REQUESTS)
        self.guard = Guard(config, self.metrics)  # sockets per address from accept; buckets per address
        self.connections: set[Connection] = set()
        self._server: Server | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[None]] = set()  # one-off work nobody waits for
        self.port = config.port

    @staticmethod
    def _house_key(config: Config) -> str:
        """The house key: the setting's, else the key file's (made the first time, where the house
        on this machine reads it); a file that cannot be written leaves a key of this run only."""
        if config.house_key:
            return config.house_key
        path = house.key_path(config.house_key_file)
        try:
            return house.load_or_make(path)
        except OSError as e:
            log.warning("house key: cannot keep one in %s (%s); house bots need TERRACE_HOUSE_KEY", path, e)
            return secrets.token_hex(24)

    # ----- lifecycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Reach the store, bind the port, take the races on, start the background work, then
        accept connections. A server that cannot reach its store (StoreDown) or bind its port
        (OSError) stops before it changes anything."""
        await self.store.ping()
        indexed = await self.store.index_names()
        if indexed:
            log.info("indexed %d accounts under today's name keys (server.names)", indexed)
        self._server = await serve(
            self._connection,
            self.config.host,
            self.config.port,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]
            select_subprotocol=_select_subprotocol,
            process_request=self._http,
            compression=None,
            max_size=self.config.max_frame,
            max_queue=16,
            write_limit=WRITE_LIMIT,
            open_timeout=self.config.handshake_timeout,
            create_connection=guarded(self.guard),
            start_serving=False,
        )
        self.port = next(iter(self._server.sockets)).getsockname()[1]
        if self.cluster is not None:
            assert self.shared is not None
            self._run(self.shared.run())
            self.cluster.start()
            listening = asyncio.get_running_loop().create_future()
            self._run(
                repeat(lambda: self._hear_nodes(listening), RENEW_EVERY, what="node events", first=True)
            )
            await asyncio.wait([listening], timeout=2.0)
        # races that were running when the last server stopped: their replay holds the door for
        # at most restore_budget seconds, the rest replays while connections are served
        self._tasks.append(await self.adoption.restore_all(self.config.restore_budget))
        if self.cluster is not None:
            self._run(repeat(self._tend_races, RENEW_EVERY, what="leases"))
        self._run(repeat(self._check_store, STORE_CHECK, what="store health", outage=logging.ERROR))
        if self.config.daily_prepare > 0:
            self._run(self.daily.prepare())
        self._run(self.arenas.run())
        self._run(self.metrics.watch_loop())
        self.metrics.watch_gc()
        await self._server.start_serving()

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        """Run background work until the server stops."""
        self._tasks.append(asyncio.get_running_loop().create_task(work))

    @property
    def url(self) -> str:
        return self.config.public_url or f"ws://{self.config.host}:{self.port}/ws"

    async def stop(self) -> None:
        """Stop accepting, close every connection with 1001 (going away), wait for them."""
        self.analyses.stopping = True  # from now on an analysis cut short is not a failure
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in self._tasks:
            task.cancel()
        self.metrics.unwatch_gc()
        await self.archive.drain()
        await self.daily.drain()
        await self.analyses.stop()
        if self.cluster is not None:  # its races go to other nodes at once
            await self.cluster.stop(release=True)
        await asyncio.to_thread(stop_pool, self.executor)
        await self.store.close()

    async def __aenter__(self) -> RaceServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _check_store(self) -> None:
        """Ping the store (every STORE_CHECK seconds): /healthz says when it is down, and when it
        is back. A frozen store is a store down."""
        try:
            async with asyncio.timeout(STORE_CHECK):
                await self.store.ping()
        except (StoreDown, TimeoutError) as exc:
            self.store_down = str(exc) or "unreachable"
            raise StoreDown(self.store_down) from exc
        self.store_down = None

    async def _hear_nodes(self, listening: asyncio.Future[None]) -> None:
        """Forward the other nodes' race events to our spectators and subscribers, for as long as
        the subscription lasts (``repeat`` subscribes again after a failure)."""
        assert self.cluster is not None
        me = self.cluster.node
        events = self.store.events()
        async with contextlib.aclosing(events):
            await anext(events)  # the subscription is live
            if not listening.done():
                listening.set_result(None)
            async for event in events:
                race_id = event.get("race")
                if "daily" in event:  # a daily board another node changed
                    d = event["daily"]
                    self._spawn(self.daily.boards.changed(d["variant"], d["day"], d["pool"]))
                    continue
                if "to" in event:  # players of ours another node matched into its race
                    told(self.accounts, event)
                    continue
                # a race adopted here: the old owner's late news is stale
                if event.get("node") != me and race_id not in self.registry.drivers:
                    self.audience.remote(str(race_id), event["msg"])

    async def _tend_races(self) -> None:
        """Renew our leases and adopt the races of dead nodes (every RENEW_EVERY seconds)."""
        await self.adoption.tend()
        await self._catch_up()

    async def _catch_up(self) -> None:
        """Spectators here of races other nodes run: push the store's summary and standings when
        they are not what was last heard (events lost while the store was down, or a race that
        just moved to another node)."""
        for race_id in list(self.audience.spectators):
            if race_id not in self.registry.drivers:
                self.audience.catch_up(race_id, await self.store.shared_race(race_id))

    # ----- connections --------------------------------------------------------------

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        return http.route(self, connection, request)

    async def _connection(self, ws: ServerConnection) -> None:
        await serve_connection(self, ws)

    async def handle(self, conn: Connection, req: WireRequest) -> Mapping[str, object] | None:
        return await self.dispatcher.handle(conn, req)

    def health(self) -> dict[str, Any]:
        return {
            "store": type(self.store).__name__,
            "connections": len(self.connections),
            "races": len(self.registry.listing()),
        }

    def gone(self, conn: Connection) -> None:
        """A connection closed: it stops watching; its player is away from races and the queue;
        a guest with nothing to come back to is forgotten."""
        self.audience.gone(conn)
        self.arenas.gone(conn)
        player = conn.player
        if player is None or player.connection is not conn:
            return
        player.connection = None
        if player.queued is not None:
            self._spawn(self.matchmaking.unqueue(player))
        self.registry.disconnected(player)
        if player.race is None:
            self.accounts.forget(player)

    def _publish(self, event: Mapping[str, Any]) -> None:
        """Tell every node (a daily board changed), in the background."""
        self._spawn(self.store.publish(dict(event)))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def refresh_gauges(self) -> None:
        counts: dict[str, int] = {"open": 0, "countdown": 0, "running": 0}
        for driver in self.registry.drivers.values():
            if not driver.race.options.private:  # an attempt under way is nobody else's to see
                counts[driver.race.state] = counts.get(driver.race.state, 0) + 1
        for state, n in counts.items():
            self.metrics.races.labels(state).set(n)


def _select_subprotocol(connection: ServerConnection, subprotocols: Any) -> Any:
    """The client's first offer we speak. A client offering none gets msgpack without the
    header (naming a protocol it did not offer would fail its handshake); one offering
    only others gets 400."""
    for offered in subprotocols:
        if offered in SUBPROTOCOLS:
            return offered
    if subprotocols:
        raise NegotiationError("unsupported subprotocol; offer one of " + ", ".join(SUBPROTOCOLS))
    return None
