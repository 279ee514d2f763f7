"""The lobby's requests: list, create, join, leave and start races, queue for one, subscribe."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NotRequired, TypedDict, cast

from server.handlers.dispatch import Handler, player_of
from server.races.adoption import Adoption
from server.races.archive import Archive
from server.races.audience import Audience
from server.races.matchmaking import Matchmaking
from server.races.registry import Registry
from server.store import Store
from server.transport.connection import Connection
from terrace.vocab import Entry, Goal
from terrace.wire.messages import (
    Brief,
    Create,
    Done,
    Join,
    Leave,
    Queue,
    Queued,
    RaceAnswer,
    RaceIdAnswer,
    RacesAnswer,
    RacesQuery,
    Record,
    Standings,
    StartRace,
    Subscribe,
    Subscribed,
    Summary,
    Unqueue,
    Unsubscribe,
)


class Page(TypedDict):
    """One page of the races not over: what ``races`` and a lobby ``subscribed`` share."""

    races: list[Summary]
    total: int
    next: NotRequired[int]


class LobbyRequests:
    ANONYMOUS = ("races", "subscribe", "unsubscribe")

    def __init__(
        self,
        registry: Registry,
        matchmaking: Matchmaking,
        audience: Audience,
        archive: Archive,
        adoption: Adoption,
        store: Store,
    ) -> None:
        self.registry = registry
        self.matchmaking = matchmaking
        self.audience = audience
        self.archive = archive
        self.adoption = adoption
        self.store = store

    def handlers(self) -> dict[str, Handler]:
        return {
            "races": self.on_races,
            "create": self.on_create,
            "join": self.on_join,
            "leave": self.on_leave,
            "start": self.on_start,
            "queue": self.on_queue,
            "unqueue": self.on_unqueue,
            "subscribe": self.on_subscribe,
            "unsubscribe": self.on_unsubscribe,
        }

    async def on_races(self, conn: Connection, req: RacesQuery) -> RacesAnswer:
        finished = [_brief(r) for r in await self.archive.recent(20)]
        page = await self._page(req.start or 0)
        answer: RacesAnswer = {
            "type": "races",
            "races": page["races"],
            "total": page["total"],
            "finished": finished,
        }
        if "next" in page:
            answer["next"] = page["next"]
        return answer

    async def _page(self, start: int) -> Page:
        """One page of the races not over (``races_page`` of them from ``start``), the total,
        and where the next page starts when there is one: an answer never grows with the lobby."""
        listing = await self._listing()
        size = self.registry.config.races_page
        page: Page = {"races": listing[start : start + size], "total": len(listing)}
        if start + size < len(listing):
            page["next"] = start + size
        return page

    async def _listing(self) -> list[Summary]:
        """Races not over on every node (ours first)."""
        here = self.registry.listing()
        if self.registry.cluster is None:
            return here
        ids = {r["id"] for r in here}
        shared = cast(list[Summary], await self.store.shared_races())
        return here + [r for r in shared if r["id"] not in ids]

    async def on_create(self, conn: Connection, req: Create) -> RaceAnswer:
        player = player_of(conn)
        if req.deals == "winnable":
            driver = await self.registry.create_winnable(player, req, conn.address)
        else:
            driver = self.registry.create(player, req, conn.address)
        if self.registry.cluster is not None:  # owned, and listed on every node, before anyone hears of it
            await self.registry.cluster.take(driver.id)
            await self.registry.cluster.shared()
        return {"type": "created", "race": driver.race.summary()}

    async def on_join(self, conn: Connection, req: Join) -> RaceAnswer:
        await self.adoption.local(req.race, player_of(conn).id)
        driver = self.registry.join(player_of(conn), req.race)  # someone's private race: no_race
        return {"type": "joined", "race": driver.race.summary()}

    async def on_leave(self, conn: Connection, req: Leave) -> RaceIdAnswer:
        await self.adoption.local(req.race, player_of(conn).id)
        await self.registry.leave(player_of(conn), req.race)
        return {"type": "left", "race": req.race}

    async def on_start(self, conn: Connection, req: StartRace) -> RaceAnswer:
        await self.adoption.local(req.race, player_of(conn).id)
        driver = self.registry.start(player_of(conn), req.race)
        return {"type": "starting", "race": driver.race.summary()}

    async def on_queue(self, conn: Connection, req: Queue) -> Queued:
        player = player_of(conn)
        house = bool(req.house)
        (variant, goal, pool, deals), position = await self.matchmaking.queue(
            player, req.variant, req.goal, req.pool or "all", house, req.deals or "any"
        )
        queued: Queued = {
            "type": "queued",
            "variant": variant,
            "goal": cast(Goal, goal),  # (the queue's key says them as plain strings)
            "pool": cast(Entry, pool),
            "house": house,
            "position": position,
        }
        if deals == "winnable":  # only those who asked see the new field
            queued["deals"] = "winnable"
        return queued

    async def on_unqueue(self, conn: Connection, req: Unqueue) -> Done:
        await self.matchmaking.unqueue(player_of(conn))
        return {"type": "unqueued"}

    async def on_subscribe(self, conn: Connection, req: Subscribe) -> Subscribed:
        self.audience.subscribe(conn, req.topic)
        if req.topic in ("leaderboards", "daily"):
            return {"type": "subscribed", "topic": req.topic}
        page = await self._page(0)
        running = (r for r in page["races"] if r["state"] == "running")
        answer: Subscribed = {
            "type": "subscribed",
            "topic": req.topic,
            "races": page["races"],
            "total": page["total"],
            "standings": await self._standings_of(running),
        }
        if "next" in page:
            answer["next"] = page["next"]
        return answer

    async def _standings_of(self, races: Iterable[Summary]) -> list[Standings]:
        """The latest standings of running races, so a new subscriber is right before any push."""
        out: list[Standings] = []
        for summary in races:
            driver = self.registry.drivers.get(summary["id"])
            if driver is not None:
                out.append(driver.race.standings())
            elif (shared := (await self.store.shared_race(summary["id"])).get("standings")) is not None:
                out.append(cast(Standings, shared))
        return out

    async def on_unsubscribe(self, conn: Connection, req: Unsubscribe) -> Subscribed:
        self.audience.unsubscribe(conn, req.topic)
        return {"type": "unsubscribed", "topic": req.topic}


def _brief(record: Record) -> Brief:
    """A finished race for lists: the record without move lists or first view."""
    results = [{k: v for k, v in row.items() if k != "move_list"} for row in record["results"]]
    brief: dict[str, Any] = {k: v for k, v in record.items() if k not in ("results", "first_view")}
    return cast(Brief, {**brief, "results": results})
