"""One handler per request type: checked request in, answer message out.

Handlers raise :class:`~terrace.errors.ProtocolError` to refuse; the connection
loop turns that into an ``error`` answer. Requests other than those in
:data:`ANONYMOUS` need a hello first.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from terrace.errors import ProtocolError
from terrace.race.standings import unstarted_rows
from terrace.variants import VARIANTS
from terrace.views import moved_for

from .accounts import Accounts, Player
from .adoption import Adoption
from .archive import Archive
from .audience import Audience
from .challenges import Challenges
from .connection import Connection
from .daily import Daily
from .driver import RaceDriver
from .hindsight import Analyses
from .leaderboards import Leaderboards
from .limits import AddressBuckets
from .matchmaking import Matchmaking
from .nodes import Redirect
from .registry import Registry
from .store import NotOwner, Store

Message = Mapping[str, Any]

log = logging.getLogger("terrace.server")
PROTOCOL_VERSION = 1

# What may be asked before hello: watching is open to anyone.
ANONYMOUS = frozenset(
    {
        "hello",
        "register",
        "races",
        "spectate",
        "unspectate",
        "subscribe",
        "unsubscribe",
        "record",
        "ping",
        "leaderboard",
        "analysis",
        "daily",
        "challenge",
        "arenas",
        "arena",
        "arena_unwatch",
        "player",
    }
)

Handler = Callable[[Connection, dict[str, Any]], Awaitable[Message | None]]


class Handlers:
    def __init__(
        self,
        accounts: Accounts,
        registry: Registry,
        matchmaking: Matchmaking,
        audience: Audience,
        archive: Archive,
        adoption: Adoption,
        leaderboards: Leaderboards,
        store: Store,
    ) -> None:
        self.accounts = accounts
        self.registry = registry
        self.matchmaking = matchmaking
        self.audience = audience
        self.archive = archive
        self.adoption = adoption
        self.leaderboards = leaderboards
        self.store = store
        self.analyses = Analyses(store, registry.searches.executor, registry.config)
        self.daily: Daily | None = None  # set by the server: the daily deal's requests
        self.challenges: Challenges | None = None  # and the challenges built on it
        per_hour = registry.config.registrations_per_hour
        self.registrations = AddressBuckets(per_hour / 3600, per_hour)  # accounts an address may make
        self.table: dict[str, Handler] = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("on_")
        }

    async def handle(self, conn: Connection, req: dict[str, Any]) -> Message | None:
        kind = req["type"]
        if conn.player is None and kind not in ANONYMOUS:
            raise ProtocolError("hello_first", request=kind)
        try:
            answer = await self.table[kind](conn, req)
        except Redirect as r:  # another node owns the race: the client asks there
            return r.to_message(req.get("id"))
        except NotOwner as taken:  # another node took the race over since: nothing was done here
            self.adoption.lost(taken.race_id, taken.holder)
            return Redirect(taken.race_id, taken.holder).to_message(req.get("id"))
        if answer is not None and "id" in req and "re" not in answer:
            return {**answer, "re": req["id"]}
        return answer

    def _player(self, conn: Connection) -> Player:
        assert conn.player is not None
        return conn.player

    # ----- accounts -----------------------------------------------------------------

    async def on_hello(self, conn: Connection, req: dict[str, Any]) -> Message | None:
        if conn.player is not None:
            raise ProtocolError("already_welcomed", name=conn.player.name)
        player = await self.accounts.hello(
            req.get("name"), req.get("token"), req.get("session"), req.get("kind", "human")
        )
        conn.views = req.get("views", "full")
        await self._attach(conn, player, req)
        return None

    async def on_register(self, conn: Connection, req: dict[str, Any]) -> Message | None:
        if conn.player is not None:
            raise ProtocolError("already_welcomed", name=conn.player.name)
        bucket = self.registrations[conn.address]
        wait = bucket.take()
        if wait:
            raise ProtocolError("too_many_registrations", retry_after=math.ceil(wait))
        try:
            token, player = await self.accounts.register(req["name"], req.get("kind", "human"))
        except Exception:
            bucket.tokens += 1  # a refused name (taken, bad) or a store down costs nothing: try again
            raise
        log.info("registered %s (%s)", player.name, player.kind)
        msg = {"type": "registered", "token": token, "player": player.public(), "session": player.session}
        if "id" in req:
            msg["re"] = req["id"]
        conn.player = player
        conn.views = req.get("views", "full")
        player.connection = conn
        player.address, player.client = conn.address, req.get("client", "")
        await conn.send(msg)
        return None

    async def _attach(self, conn: Connection, player: Player, req: dict[str, Any]) -> None:
        """Bind the player to this connection, answer welcome, then resume any race."""
        if player.race is not None:  # a race restored at start but not replayed yet: replay it first
            await self.adoption.replay(player.race)
        old = player.connection
        player.connection = conn
        player.address, player.client = conn.address, req.get("client", "")
        conn.player = player
        welcome: dict[str, Any] = {
            "type": "welcome",
            "player": player.public(),
            "session": player.session,
            "server": {"protocol": PROTOCOL_VERSION, "variants": list(VARIANTS)},
        }
        if player.race is not None and player.race in self.registry.drivers:
            welcome["race"] = player.race  # a race that goes on for them: its `started` follows
        if "id" in req:
            welcome["re"] = req["id"]
        await conn.send(welcome)
        if old is not None and old is not conn:
            old.player = None
            await old.ws.close(4001, "another connection took over this session")
        self.registry.resume(player)

    # ----- lobby --------------------------------------------------------------------

    async def on_races(self, conn: Connection, req: dict[str, Any]) -> Message:
        finished = [_brief(r) for r in await self.archive.recent(20)]
        return {"type": "races", **(await self._page(req.get("start", 0))), "finished": finished}

    async def _page(self, start: int) -> dict[str, Any]:
        """One page of the races not over (``races_page`` of them from ``start``), the total,
        and where the next page starts when there is one: an answer never grows with the lobby."""
        listing = await self._listing()
        size = self.registry.config.races_page
        page: dict[str, Any] = {"races": listing[start : start + size], "total": len(listing)}
        if start + size < len(listing):
            page["next"] = start + size
        return page

    async def _listing(self) -> list[Message]:
        """Races not over on every node (ours first)."""
        here = self.registry.listing()
        if self.registry.cluster is None:
            return here
        ids = {r["id"] for r in here}
        return here + [r for r in await self.store.shared_races() if r["id"] not in ids]

    async def on_create(self, conn: Connection, req: dict[str, Any]) -> Message:
        player = self._player(conn)
        if req.get("deals") == "winnable":
            driver = await self.registry.create_winnable(player, req, conn.address)
        else:
            driver = self.registry.create(player, req, conn.address)
        if self.registry.cluster is not None:  # owned, and listed on every node, before anyone hears of it
            await self.registry.cluster.take(driver.id)
            await self.registry.cluster.shared()
        return {"type": "created", "race": driver.race.summary()}

    async def on_join(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.adoption.local(req["race"])
        driver = self.registry.join(self._player(conn), req["race"])
        return {"type": "joined", "race": driver.race.summary()}

    async def on_leave(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.adoption.local(req["race"])
        await self.registry.leave(self._player(conn), req["race"])
        return {"type": "left", "race": req["race"]}

    async def on_start(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.adoption.local(req["race"])
        driver = self.registry.start(self._player(conn), req["race"])
        return {"type": "starting", "race": driver.race.summary()}

    async def on_queue(self, conn: Connection, req: dict[str, Any]) -> Message:
        player = self._player(conn)
        (variant, goal, pool, deals), position = await self.matchmaking.queue(
            player,
            req["variant"],
            req.get("goal"),
            req.get("pool", "all"),
            req.get("house", False),
            req.get("deals", "any"),
        )
        queued = {
            "type": "queued",
            "variant": variant,
            "goal": goal,
            "pool": pool,
            "house": req.get("house", False),
            "position": position,
        }
        if deals == "winnable":  # only those who asked see the new field
            queued["deals"] = deals
        return queued

    async def on_unqueue(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.matchmaking.unqueue(self._player(conn))
        return {"type": "unqueued"}

    # ----- racing -------------------------------------------------------------------

    async def on_move(self, conn: Connection, req: dict[str, Any]) -> None:
        driver = await self._race_of(req["race"])
        player_id = self._player(conn).id
        effects = await driver.move(player_id, req["seq"], req["move"])

        def reply(answer: Message) -> None:
            if conn.views == "changes":
                changes = driver.race.view_changes(player_id, answer["seq"])
                answer = moved_for(answer, "changes", changes)
            conn.push(_answering(answer, req))

        # the answer is written first, then the standings or `finished` it caused
        driver.apply(effects, reply=reply)

    async def on_resign(self, conn: Connection, req: dict[str, Any]) -> Message:
        driver = await self._race_of(req["race"])
        driver.apply(await driver.resign(self._player(conn).id))
        return {"type": "resigned", "race": req["race"]}

    async def _race_of(self, race_id: str) -> RaceDriver:
        """A race that is not over; a finished one is ``race_not_running``."""
        await self.adoption.local(race_id)
        if race_id in self.registry.drivers:
            return self.registry.drivers[race_id]
        await self.archive.record(race_id)  # no_race if there is none
        raise ProtocolError("race_not_running", race=race_id)

    # ----- watching -----------------------------------------------------------------

    async def on_spectate(self, conn: Connection, req: dict[str, Any]) -> Message:
        race_id = req["race"]
        await self.adoption.replay(race_id)  # restored at start but not replayed yet: replay it first
        if self.registry.cluster is not None and race_id not in self.registry.drivers:
            try:
                await self.adoption.local(race_id)  # adopts it if its owner died
            except Redirect:  # another node's race: its events reach us through the store
                return await self._spectate_remote(conn, race_id)
        if race_id in self.registry.keepers:  # a daily attempt: nobody watches it, nor learns it exists
            raise ProtocolError("no_race", race=race_id)
        race = self.registry.get(race_id).race
        self.audience.spectate(conn, race_id)
        return {"type": "spectating", "race": race.summary(), "standings": race.standings()}

    async def _spectate_remote(self, conn: Connection, race_id: str) -> Message:
        """Watch a race another node owns: its summary and latest standings; its events follow."""
        shared = await self.store.shared_race(race_id)
        if "summary" not in shared:
            raise ProtocolError("no_race", race=race_id)
        summary = shared["summary"]
        # none shared before the deal (the owner shares standings as they change): its players,
        # as the owner would list them, so a watcher does not take an empty table for "nobody races"
        standings = shared.get("standings") or {
            "type": "standings",
            "race": race_id,
            "state": summary["state"],
            "rows": unstarted_rows(summary.get("players", [])),
        }
        self.audience.spectate(conn, race_id)
        self.audience.heard.setdefault(race_id, {}).update(
            {"race": {"type": "race", "race": summary}, "standings": standings}
        )
        return {"type": "spectating", "race": summary, "standings": standings}

    async def on_unspectate(self, conn: Connection, req: dict[str, Any]) -> Message:
        self.audience.unspectate(conn, req["race"])
        return {"type": "unspectated", "race": req["race"]}

    async def on_subscribe(self, conn: Connection, req: dict[str, Any]) -> Message:
        self.audience.subscribe(conn, req["topic"])
        if req["topic"] in ("leaderboards", "daily"):
            return {"type": "subscribed", "topic": req["topic"]}
        page = await self._page(0)
        running = (r for r in page["races"] if r["state"] == "running")
        return {
            "type": "subscribed",
            "topic": req["topic"],
            **page,
            "standings": await self._standings_of(running),
        }

    async def _standings_of(self, races: Iterable[Message]) -> list[Message]:
        """The latest standings of running races, so a new subscriber is right before any push."""
        out: list[Message] = []
        for summary in races:
            driver = self.registry.drivers.get(summary["id"])
            if driver is not None:
                out.append(driver.race.standings())
            elif (shared := (await self.store.shared_race(summary["id"])).get("standings")) is not None:
                out.append(shared)
        return out

    async def on_unsubscribe(self, conn: Connection, req: dict[str, Any]) -> Message:
        self.audience.unsubscribe(conn, req["topic"])
        return {"type": "unsubscribed", "topic": req["topic"]}

    async def on_leaderboard(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.leaderboards.answer(req)

    async def on_player(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.leaderboards.player(req["name"])

    async def on_record(self, conn: Connection, req: dict[str, Any]) -> Message:
        race_id = req["race"]
        try:
            return {"type": "record", "race": await self.archive.record(race_id)}
        except ProtocolError:
            if race_id in self.registry.keepers:  # a daily attempt under way: as if there were none
                raise ProtocolError("no_race", race=race_id) from None
            if (
                race_id in self.registry.drivers
                or race_id in self.adoption.unreplayed
                or await self.adoption.owner_elsewhere(race_id)
            ):
                raise ProtocolError("not_finished", race=race_id) from None
            if self.daily is not None and (kept := await self.daily.record(race_id, conn.player)) is not None:
                return {"type": "record", "race": kept}
            raise

    async def on_analysis(self, conn: Connection, req: dict[str, Any]) -> Message:
        """Hindsight on a finished race (server.hindsight); a live race is ``not_finished``."""
        answer = await self.on_record(conn, req)
        return await self.analyses.answer(answer["race"])

    # ----- the daily deal (server.daily) ----------------------------------------------

    async def on_daily(self, conn: Connection, req: dict[str, Any]) -> Message:
        assert self.daily is not None
        return await self.daily.answer(req, conn.player)

    async def on_daily_play(self, conn: Connection, req: dict[str, Any]) -> Message:
        assert self.daily is not None
        return await self.daily.play(self._player(conn), req)

    async def on_challenge_create(self, conn: Connection, req: dict[str, Any]) -> Message:
        assert self.challenges is not None
        return await self.challenges.create(self._player(conn), req, conn.address)

    async def on_challenge_play(self, conn: Connection, req: dict[str, Any]) -> Message:
        assert self.challenges is not None
        return await self.challenges.play(self._player(conn), req)

    async def on_challenge_reveal(self, conn: Connection, req: dict[str, Any]) -> Message:
        assert self.challenges is not None
        return await self.challenges.reveal(self._player(conn), req)

    async def on_challenge(self, conn: Connection, req: dict[str, Any]) -> Message:
        assert self.challenges is not None
        return await self.challenges.answer(req, conn.player)

    async def on_ping(self, conn: Connection, req: dict[str, Any]) -> Message:
        return {"type": "pong", "time": int(time.time() * 1000)}


def _answering(answer: Message, req: dict[str, Any]) -> dict[str, Any]:
    """``answer`` as the answer to ``req`` (with ``re`` when the request had an ``id``)."""
    return {**answer, "re": req["id"]} if "id" in req else dict(answer)


def _brief(record: Message) -> Message:
    """A finished race for lists: the record without move lists or first view."""
    results = [{k: v for k, v in row.items() if k != "move_list"} for row in record["results"]]
    return {**{k: v for k, v in record.items() if k not in ("results", "first_view")}, "results": results}
