"""A race's requests: ``move`` and ``resign`` for its players; ``spectate``, ``unspectate`` and
``record`` for anyone; ``ping``."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import cast

from server.handlers.dispatch import Handler, answering, player_of
from server.players.accounts import Player
from server.races.adoption import Adoption
from server.races.archive import Archive
from server.races.audience import Audience
from server.races.driver import RaceDriver
from server.races.nodes import Redirect
from server.races.registry import Registry
from server.store import Store
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.race.effects import Reply
from terrace.race.standings import unstarted_rows
from terrace.wire.messages import Move as MoveRequest
from terrace.wire.messages import (
    Moved,
    Pong,
    RaceIdAnswer,
    RacePush,
    RecordAnswer,
    RecordQuery,
    Resign,
    Spectate,
    Spectating,
    Standings,
    Summary,
    Unspectate,
)
from terrace.wire.messages import Ping as PingRequest
from terrace.wire.messages import Record as RaceRecord
from terrace.wire.protocol import MSGPACK, with_re
from terrace.wire.views import moved_for

# A feature's own finished races that the archive does not hold (a daily attempt): the record
# ``race_id`` as ``player`` may see it, or None when the race is not the feature's (or not theirs yet).
KeptRecords = Callable[[str, Player | None], Awaitable[RaceRecord | None]]


class RaceRequests:
    ANONYMOUS = ("spectate", "unspectate", "record", "ping")

    def __init__(
        self, registry: Registry, audience: Audience, archive: Archive, adoption: Adoption, store: Store
    ) -> None:
        self.registry = registry
        self.audience = audience
        self.archive = archive
        self.adoption = adoption
        self.store = store
        self.kept: list[KeptRecords] = []  # the features' own records, asked when the archive has none

    def handlers(self) -> dict[str, Handler]:
        return {
            "move": self.on_move,
            "resign": self.on_resign,
            "spectate": self.on_spectate,
            "unspectate": self.on_unspectate,
            "record": self.on_record,
            "ping": self.on_ping,
        }

    # ----- racing -------------------------------------------------------------------

    async def on_move(self, conn: Connection, req: MoveRequest) -> None:
        driver = await self._counted(req.race, player_of(conn), "move")
        player_id = player_of(conn).id
        try:
            effects = await driver.move(player_id, req.seq, req.move)
        except ProtocolError as e:
            if driver.race.options.private:  # counted with its moves, once the attempt is over
                e.counted_later = True
                driver.later_errors[e.code] = driver.later_errors.get(e.code, 0) + 1
            raise

        def reply(effect: Reply) -> None:
            if conn.views == "changes":
                moved = cast(Moved, effect.message)
                answer = moved_for(moved, "changes", driver.race.view_changes(player_id, moved["seq"]))
                conn.push(answering(answer, req))
            elif effect.frame is not None and conn.subprotocol == MSGPACK:  # encoded once, when made
                conn.send_frame(with_re(effect.frame, req.id))
            else:
                conn.push(answering(effect.message, req))

        # the answer is written first, then the standings or `finished` it caused
        driver.apply(effects, reply=reply)

    async def on_resign(self, conn: Connection, req: Resign) -> RaceIdAnswer:
        driver = await self._counted(req.race, player_of(conn), "resign")
        driver.apply(await driver.resign(player_of(conn).id))
        return {"type": "resigned", "race": req.race}

    async def _counted(self, race_id: str, player: Player, kind: str) -> RaceDriver:
        """:meth:`_race_of`, the request counted in the metrics now, or (someone's private
        attempt) once it is over: a live count of its requests would time its moves."""
        try:
            driver = await self._race_of(race_id, player)
        except ProtocolError:
            self.registry.metrics.count_message(kind)
            raise
        if driver.race.options.private:
            driver.later_messages[kind] = driver.later_messages.get(kind, 0) + 1
        else:
            self.registry.metrics.count_message(kind)
        return driver

    async def _race_of(self, race_id: str, player: Player) -> RaceDriver:
        """A race that is not over; a finished one is ``race_not_running``; someone else's private
        race is ``no_race``."""
        await self.adoption.local(race_id, player.id)
        if race_id in self.registry.drivers:
            return self.registry.get(race_id, player)
        await self.archive.record(race_id)  # no_race if there is none
        raise ProtocolError("race_not_running", race=race_id)

    # ----- watching -----------------------------------------------------------------

    async def on_spectate(self, conn: Connection, req: Spectate) -> Spectating:
        race_id = req.race
        await self.adoption.replay(race_id)  # restored at start but not replayed yet: replay it first
        if self.registry.cluster is not None and race_id not in self.registry.drivers:
            try:
                await self.adoption.local(
                    race_id, conn.player.id if conn.player else None
                )  # adopts it if its owner died
            except Redirect:  # another node's race: its events reach us through the store
                return await self._spectate_remote(conn, race_id)
        race = self.registry.get(race_id).race  # a private race is no_race: nobody learns it exists
        self.audience.spectate(conn, race_id)
        return {"type": "spectating", "race": race.summary(), "standings": race.standings()}

    async def _spectate_remote(self, conn: Connection, race_id: str) -> Spectating:
        """Watch a race another node owns: its summary and latest standings; its events follow."""
        shared = await self.store.shared_race(race_id)
        if "summary" not in shared:
            raise ProtocolError("no_race", race=race_id)
        summary = cast(Summary, shared["summary"])
        # none shared before the deal (the owner shares standings as they change): its players,
        # as the owner would list them, so a watcher does not take an empty table for "nobody races"
        standings: Standings = cast(Standings, shared.get("standings")) or {
            "type": "standings",
            "race": race_id,
            "state": summary["state"],
            "rows": unstarted_rows(summary.get("players", [])),
        }
        self.audience.spectate(conn, race_id)
        pushed: RacePush = {"type": "race", "race": summary}
        self.audience.heard.setdefault(race_id, {}).update({"race": pushed, "standings": standings})
        return {"type": "spectating", "race": summary, "standings": standings}

    async def on_unspectate(self, conn: Connection, req: Unspectate) -> RaceIdAnswer:
        self.audience.unspectate(conn, req.race)
        return {"type": "unspectated", "race": req.race}

    async def on_record(self, conn: Connection, req: RecordQuery) -> RecordAnswer:
        return {"type": "record", "race": await self.record(req.race, conn.player)}

    async def record(self, race_id: str, player: Player | None) -> RaceRecord:
        """A finished race's record as ``player`` may see it: ``not_finished`` while it runs,
        ``no_race`` when there is none (or it is someone's private attempt)."""
        try:
            return await self.archive.record(race_id)
        except ProtocolError:
            if await self._running_for(race_id, player):
                raise ProtocolError("not_finished", race=race_id) from None
            for kept in self.kept:
                if (record := await kept(race_id, player)) is not None:
                    return record
            raise

    async def _running_for(self, race_id: str, player: Player | None) -> bool:
        """Whether ``race_id`` runs (here, or on another node) and ``player`` may know it: anyone may
        of a public race, only its players of a private one."""
        driver = self.registry.drivers.get(race_id)
        if driver is not None:
            race = driver.race
            return not race.options.private or (player is not None and player.id in race.seats)
        if race_id not in self.adoption.unreplayed and not await self.adoption.owner_elsewhere(race_id):
            return False
        saved = self.adoption.unreplayed.get(race_id) or await self.adoption.journal.load(
            race_id, entries=False
        )
        if saved is None:
            return False
        if not saved.meta.get("options", {}).get("private"):
            return True
        return player is not None and any(p["id"] == player.id for p in saved.meta["players"])

    async def on_ping(self, conn: Connection, req: PingRequest) -> Pong:
        return {"type": "pong", "time": int(time.time() * 1000)}
