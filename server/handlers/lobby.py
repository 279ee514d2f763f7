"""The lobby's requests: list, create, join, leave and start races, queue for one, subscribe."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from server.handlers.dispatch import Handler, Message, player_of
from server.races.adoption import Adoption
from server.races.archive import Archive
from server.races.audience import Audience
from server.races.matchmaking import Matchmaking
from server.races.registry import Registry
from server.store import Store
from server.transport.connection import Connection


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
        player = player_of(conn)
        if req.get("deals") == "winnable":
            driver = await self.registry.create_winnable(player, req, conn.address)
        else:
            driver = self.registry.create(player, req, conn.address)
        if self.registry.cluster is not None:  # owned, and listed on every node, before anyone hears of it
            await self.registry.cluster.take(driver.id)
            await self.registry.cluster.shared()
        return {"type": "created", "race": driver.race.summary()}

    async def on_join(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.adoption.local(req["race"], player_of(conn).id)
        driver = self.registry.join(player_of(conn), req["race"])  # someone's private race: no_race
        return {"type": "joined", "race": driver.race.summary()}

    async def on_leave(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.adoption.local(req["race"], player_of(conn).id)
        await self.registry.leave(player_of(conn), req["race"])
        return {"type": "left", "race": req["race"]}

    async def on_start(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.adoption.local(req["race"], player_of(conn).id)
        driver = self.registry.start(player_of(conn), req["race"])
        return {"type": "starting", "race": driver.race.summary()}

    async def on_queue(self, conn: Connection, req: dict[str, Any]) -> Message:
        player = player_of(conn)
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
        await self.matchmaking.unqueue(player_of(conn))
        return {"type": "unqueued"}

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


def _brief(record: Message) -> Message:
    """A finished race for lists: the record without move lists or first view."""
    results = [{k: v for k, v in row.items() if k != "move_list"} for row in record["results"]]
    return {**{k: v for k, v in record.items() if k not in ("results", "first_view")}, "results": results}
