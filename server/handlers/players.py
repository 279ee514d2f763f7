"""The players' requests: ``hello``, ``register``, and the boards (``leaderboard``, ``player``)."""

from __future__ import annotations

import logging
import math

from server.handlers.dispatch import Handler
from server.players.accounts import Accounts, Player
from server.players.leaderboards import Leaderboards
from server.races.adoption import Adoption
from server.races.registry import Registry
from server.transport.connection import Connection
from server.transport.limits import AddressBuckets
from terrace.errors import ProtocolError
from terrace.rules.variants import VARIANTS
from terrace.wire.messages import (
    Hello,
    Leaderboard,
    LeaderboardQuery,
    PlayerAnswer,
    PlayerQuery,
    Register,
    Registered,
    Welcome,
)

log = logging.getLogger("terrace.server")
PROTOCOL_VERSION = 1


class PlayerRequests:
    ANONYMOUS = ("hello", "register", "leaderboard", "player")

    def __init__(
        self, accounts: Accounts, registry: Registry, adoption: Adoption, leaderboards: Leaderboards
    ) -> None:
        self.accounts = accounts
        self.registry = registry
        self.adoption = adoption
        self.leaderboards = leaderboards
        per_hour = registry.config.registrations_per_hour
        self.registrations = AddressBuckets(per_hour / 3600, per_hour)  # accounts an address may make

    def handlers(self) -> dict[str, Handler]:
        return {
            "hello": self.on_hello,
            "register": self.on_register,
            "leaderboard": self.on_leaderboard,
            "player": self.on_player,
        }

    async def on_hello(self, conn: Connection, req: Hello) -> None:
        if conn.player is not None:
            raise ProtocolError("already_welcomed", name=conn.player.name)
        player = await self.accounts.hello(
            req.name, req.token, req.session, req.kind or "human", req.house_key
        )
        conn.views = req.views or "full"
        await self._attach(conn, player, req)
        return None

    async def on_register(self, conn: Connection, req: Register) -> None:
        if conn.player is not None:
            raise ProtocolError("already_welcomed", name=conn.player.name)
        bucket = self.registrations[conn.address]
        wait = bucket.take()
        if wait:
            raise ProtocolError("too_many_registrations", retry_after=math.ceil(wait))
        try:
            token, player = await self.accounts.register(req.name, req.kind or "human", req.house_key)
        except Exception:
            bucket.tokens += 1  # a refused name (taken, bad) or a store down costs nothing: try again
            raise
        log.info("registered %s (%s)", player.name, player.kind)
        msg: Registered = {
            "type": "registered",
            "token": token,
            "player": player.public(),
            "session": player.session,
        }
        if req.id is not None:
            msg["re"] = req.id
        conn.player = player
        conn.views = req.views or "full"
        player.connection = conn
        player.address, player.client = conn.address, req.client or ""
        await conn.send(msg)
        return None

    async def _attach(self, conn: Connection, player: Player, req: Hello) -> None:
        """Bind the player to this connection, answer welcome, then resume any race."""
        if player.race is not None:  # a race restored at start but not replayed yet: replay it first
            await self.adoption.replay(player.race)
        old = player.connection
        player.connection = conn
        player.address, player.client = conn.address, req.client or ""
        conn.player = player
        welcome: Welcome = {
            "type": "welcome",
            "player": player.public(),
            "session": player.session,
            "server": {"protocol": PROTOCOL_VERSION, "variants": list(VARIANTS)},
        }
        if player.race is not None and player.race in self.registry.drivers:
            welcome["race"] = player.race  # a race that goes on for them: its `started` follows
        if req.id is not None:
            welcome["re"] = req.id
        await conn.send(welcome)
        if old is not None and old is not conn:
            old.player = None
            await old.ws.close(4001, "another connection took over this session")
        self.registry.resume(player)

    async def on_leaderboard(self, conn: Connection, req: LeaderboardQuery) -> Leaderboard:
        return await self.leaderboards.answer(req)

    async def on_player(self, conn: Connection, req: PlayerQuery) -> PlayerAnswer:
        return await self.leaderboards.player(req.name)
