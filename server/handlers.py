"""One handler per request type: checked request in, answer message out.

Handlers raise :class:`~terrace.errors.ProtocolError` to refuse; the connection
loop turns that into an ``error`` answer. Requests other than those in
:data:`ANONYMOUS` need a hello first.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from terrace.errors import ProtocolError
from terrace.variants import VARIANTS

from .accounts import Accounts, Player
from .connection import Connection
from .leaderboards import Leaderboards
from .lobby import Lobby
from .nodes import Redirect
from .race import Message, Race

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
    }
)

Handler = Callable[[Connection, dict[str, Any]], Awaitable[Message | None]]


class Handlers:
    def __init__(self, accounts: Accounts, lobby: Lobby, leaderboards: Leaderboards) -> None:
        self.accounts = accounts
        self.lobby = lobby
        self.leaderboards = leaderboards
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
        if answer is not None and "id" in req:
            answer.setdefault("re", req["id"])
        return answer

    def _player(self, conn: Connection) -> Player:
        assert conn.player is not None
        return conn.player

    # ----- accounts -----------------------------------------------------------------

    async def on_hello(self, conn: Connection, req: dict[str, Any]) -> Message | None:
        if conn.player is not None:
            raise ProtocolError("already_welcomed", name=conn.player.name)
        player = await self.accounts.hello(req.get("name"), req.get("token"), req.get("session"))
        await self._attach(conn, player, req)
        return None

    async def on_register(self, conn: Connection, req: dict[str, Any]) -> Message | None:
        if conn.player is not None:
            raise ProtocolError("already_welcomed", name=conn.player.name)
        token, player = await self.accounts.register(req["name"], req.get("kind", "human"))
        log.info("registered %s (%s)", player.name, player.kind)
        msg = {"type": "registered", "token": token, "player": player.public(), "session": player.session}
        if "id" in req:
            msg["re"] = req["id"]
        conn.player = player
        player.connection = conn
        await conn.send(msg)
        return None

    async def _attach(self, conn: Connection, player: Player, req: dict[str, Any]) -> None:
        """Bind the player to this connection, answer welcome, then resume any race."""
        old = player.connection
        player.connection = conn
        conn.player = player
        welcome: Message = {
            "type": "welcome",
            "player": player.public(),
            "session": player.session,
            "server": {"protocol": PROTOCOL_VERSION, "variants": list(VARIANTS)},
        }
        if "id" in req:
            welcome["re"] = req["id"]
        await conn.send(welcome)
        if old is not None and old is not conn:
            old.player = None
            await old.ws.close(4001, "another connection took over this session")
        for msg in self.lobby.resume(player):
            await conn.send(msg)

    # ----- lobby --------------------------------------------------------------------

    async def on_races(self, conn: Connection, req: dict[str, Any]) -> Message:
        finished = [_brief(r) for r in await self.lobby.recent(20)]
        return {"type": "races", "races": await self.lobby.listing_all(), "finished": finished}

    async def on_create(self, conn: Connection, req: dict[str, Any]) -> Message:
        race = self.lobby.create(self._player(conn), req)
        if self.lobby.cluster is not None:  # owned before anyone hears of it
            await self.lobby.cluster.take(race.id)
        return {"type": "created", "race": race.summary()}

    async def on_join(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.lobby.local(req["race"])
        race = self.lobby.join(self._player(conn), req["race"])
        return {"type": "joined", "race": race.summary()}

    async def on_leave(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.lobby.local(req["race"])
        await self.lobby.leave(self._player(conn), req["race"])
        return {"type": "left", "race": req["race"]}

    async def on_start(self, conn: Connection, req: dict[str, Any]) -> Message:
        await self.lobby.local(req["race"])
        race = self.lobby.start(self._player(conn), req["race"])
        return {"type": "starting", "race": race.summary()}

    async def on_queue(self, conn: Connection, req: dict[str, Any]) -> Message:
        player = self._player(conn)
        (variant, goal, pool), position = self.lobby.queue(
            player, req["variant"], req.get("goal"), req.get("pool", "all"), req.get("house", False)
        )
        return {
            "type": "queued",
            "variant": variant,
            "goal": goal,
            "pool": pool,
            "house": req.get("house", False),
            "position": position,
        }

    async def on_unqueue(self, conn: Connection, req: dict[str, Any]) -> Message:
        self.lobby.unqueue(self._player(conn))
        return {"type": "unqueued"}

    # ----- racing -------------------------------------------------------------------

    async def on_move(self, conn: Connection, req: dict[str, Any]) -> None:
        race = await self._race_of(req["race"])
        player = self._player(conn)
        answer = await race.move(player, req["seq"], req["move"], req.get("id"))
        try:
            await conn.send(answer)
        finally:  # the answer goes out before the standings or `finished` it causes
            race.conclude(player)

    async def on_resign(self, conn: Connection, req: dict[str, Any]) -> Message:
        await (await self._race_of(req["race"])).resign(self._player(conn))
        return {"type": "resigned", "race": req["race"]}

    async def _race_of(self, race_id: str) -> Race:
        """A race that is not over; a finished one is ``race_not_running``."""
        await self.lobby.local(race_id)
        if race_id in self.lobby.races:
            return self.lobby.races[race_id]
        try:
            await self.lobby.record(race_id)
        except ProtocolError:
            raise ProtocolError("no_race", race=race_id) from None
        raise ProtocolError("race_not_running", race=race_id)

    # ----- watching -----------------------------------------------------------------

    async def on_spectate(self, conn: Connection, req: dict[str, Any]) -> Message:
        race_id = req["race"]
        if self.lobby.cluster is not None and race_id not in self.lobby.races:
            try:
                await self.lobby.local(race_id)  # adopts it if its owner died
            except Redirect:  # another node's race: its events reach us through the store
                summary, standings = await self.lobby.spectate_remote(conn, race_id)
                return {"type": "spectating", "race": summary, "standings": standings}
        race = self.lobby.spectate(conn, race_id)
        return {"type": "spectating", "race": race.summary(), "standings": race.standings()}

    async def on_unspectate(self, conn: Connection, req: dict[str, Any]) -> Message:
        self.lobby.unspectate(conn, req["race"])
        return {"type": "unspectated", "race": req["race"]}

    async def on_subscribe(self, conn: Connection, req: dict[str, Any]) -> Message:
        if req["topic"] == "leaderboards":
            self.lobby.board_watchers.add(conn)
            return {"type": "subscribed", "topic": "leaderboards"}
        self.lobby.subscribers.add(conn)
        return {"type": "subscribed", "topic": req["topic"], "races": await self.lobby.listing_all()}

    async def on_unsubscribe(self, conn: Connection, req: dict[str, Any]) -> Message:
        (self.lobby.board_watchers if req["topic"] == "leaderboards" else self.lobby.subscribers).discard(
            conn
        )
        return {"type": "unsubscribed", "topic": req["topic"]}

    async def on_leaderboard(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.leaderboards.answer(req)

    async def on_record(self, conn: Connection, req: dict[str, Any]) -> Message:
        return {"type": "record", "race": await self.lobby.record(req["race"])}

    async def on_ping(self, conn: Connection, req: dict[str, Any]) -> Message:
        return {"type": "pong", "time": int(time.time() * 1000)}


def _brief(record: Message) -> Message:
    """A finished race for lists: the record without move lists."""
    results = [{k: v for k, v in row.items() if k != "move_list"} for row in record["results"]]
    return {**{k: v for k, v in record.items() if k != "results"}, "results": results}
