"""Challenges: a private deal its creator races first and others race later, against ghosts.

The daily deal's head-to-head without being online together, for any deal of one's own:
``challenge_create`` draws a deal the solver proves winnable (as a winnable-only race does),
keeps its seed secret, and starts the creator's attempt on it; ``challenge_play`` lets anyone
with the challenge's id (the creator too, for a rematch) race the same still-secret deal
against the ghosts of the attempts before theirs (each player's first attempt), with standings
only; ``challenge_reveal`` (the creator's) tells the seed, and the attempts' records become
everyone's. Attempts are one-seat :class:`terrace.race.daily.DailyRace` races run through
:class:`server.features.daily.Daily`'s machinery: private, never in a listing, never watched.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from server.features.daily import MAX_GHOSTS, Daily, Message
from server.handlers.dispatch import Handler, player_of
from server.players.accounts import Player
from server.races.archive import until_stored
from server.races.driver import RaceDriver, now_ms
from server.races.registry import timing
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.race import RaceRules
from terrace.race.daily import DailyRace, Recorded, board_row, board_value
from terrace.rules.deal import commitment
from terrace.rules.variants import VARIANTS
from terrace.rules.versions import RULES_VERSION

KEEP = 30 * 86_400  # a challenge, its attempts and records are kept this long


class Challenges:
    ANONYMOUS = ("challenge",)

    def __init__(self, daily: Daily) -> None:
        self.daily = daily

    def handlers(self) -> dict[str, Handler]:
        return {
            "challenge": self.on_challenge,
            "challenge_create": self.on_challenge_create,
            "challenge_play": self.on_challenge_play,
            "challenge_reveal": self.on_challenge_reveal,
        }

    async def on_challenge(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.answer(req, conn.player)

    async def on_challenge_create(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.create(player_of(conn), req, conn.address)

    async def on_challenge_play(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.play(player_of(conn), req)

    async def on_challenge_reveal(self, conn: Connection, req: dict[str, Any]) -> Message:
        return await self.reveal(player_of(conn), req)

    async def create(self, player: Player, req: Mapping[str, Any], address: str = "?") -> Message:
        """Draw a winnable secret deal and start its creator's attempt on it."""
        variant = str(req["variant"])
        registry = self.daily.registry
        registry.check_free(player)
        seconds = registry.config.winnable_seconds
        drawn = await registry.draws.draw(address, variant, RULES_VERSION, seconds)
        if drawn is None:
            raise ProtocolError("no_winnable_deal", seconds=f"{seconds:g}")
        cid = "c" + secrets.token_hex(5)
        kept = {
            "variant": variant,
            "seed": drawn.seed.hex(),
            "solution": drawn.solution,
            "rules_version": RULES_VERSION,
            "creator": player.public(),
            "revealed": False,
        }
        await self.daily.store.daily_claim(f"challenge:{cid}", kept, KEEP)
        return await self._start(player, cid, kept, 0)

    async def play(self, player: Player, req: Mapping[str, Any]) -> Message:
        """Race a challenge's deal against the ghosts of the attempts before (its creator's rematch too)."""
        cid = str(req["challenge"])
        kept = await self._challenge(cid)
        if not player.registered and not kept["revealed"]:  # as with today's daily deal
            raise ProtocolError("challenge_account_needed", challenge=cid)
        self.daily.registry.check_free(player)
        return await self._start(player, cid, kept, int(req.get("ghosts", MAX_GHOSTS)))

    async def reveal(self, player: Player, req: Mapping[str, Any]) -> Message:
        cid = str(req["challenge"])
        kept = await self._challenge(cid)
        if kept["creator"]["id"] != player.id:
            raise ProtocolError("not_challenge_creator", challenge=cid)
        if not kept["revealed"]:
            kept = {**kept, "revealed": True}
            await self.daily.store.daily_put(f"challenge:{cid}", kept, KEEP)
        return await self.answer(req, player)

    async def answer(self, req: Mapping[str, Any], player: Player | None) -> Message:
        """What anyone may know of a challenge: its commitment and attempts (time and score only);
        its seed and solution once its creator revealed them."""
        cid = str(req["challenge"])
        kept = await self._challenge(cid)
        store = self.daily.store
        rows: list[Message] = []
        for i, (pid, value) in enumerate(await store.board_range(f"challenge:{cid}", 0, 100, False)):
            attempt = await self.daily._get(f"challenge:{cid}:{pid}") or {}
            rows.append(board_row(i + 1, attempt.get("player") or {"id": pid, "name": pid}, value))
        out: Message = {
            "type": "challenge",
            "challenge": cid,
            "variant": kept["variant"],
            "creator": kept["creator"],
            "commitment": commitment(bytes.fromhex(kept["seed"])),
            "revealed": kept["revealed"],
            "board": rows,
        }
        if kept["revealed"]:
            out["seed"], out["solution"] = kept["seed"], kept["solution"]
        return out

    async def _challenge(self, cid: str) -> dict[str, Any]:
        kept = await self.daily.store.daily_get(f"challenge:{cid}")
        if kept is None:
            raise ProtocolError("no_challenge", challenge=cid)
        return kept

    async def _ghosts(self, cid: str, player: Player, wanted: int) -> list[Recorded]:
        out: list[Recorded] = []
        for pid, _ in await self.daily.store.board_range(
            f"challenge:{cid}", 0, max(0, min(wanted, MAX_GHOSTS)), False
        ):
            attempt = await self.daily._get(f"challenge:{cid}:{pid}")
            if attempt is not None and "ghost" in attempt:
                out.append(Recorded.of(attempt["ghost"]))
        return out

    async def _start(self, player: Player, cid: str, kept: Mapping[str, Any], wanted: int) -> Message:
        daily, registry = self.daily, self.daily.registry
        ghosts = await self._ghosts(cid, player, wanted) if wanted else []
        registry.check_free(player)  # nothing is awaited from here on
        variant = str(kept["variant"])
        seed = bytes.fromhex(str(kept["seed"]))
        rules = RaceRules(
            variant,
            VARIANTS[variant].default_goal,
            1,
            registry.config.default_time_limit,
            "all",
            "full",
            int(kept["rules_version"]),
        )
        race = DailyRace(
            daily._race_id(),
            rules,
            seed=seed,
            now=now_ms(),
            timing=timing(registry.config),
            creator=player.public(),
            solution=kept["solution"],
            ghosts=ghosts,
        )
        driver = registry.add(race)
        registry.keepers[race.id] = lambda d, record: self._over(cid, d, record)
        registry.seat(driver, player, check=False)
        return {
            "type": "challenge_playing",
            "challenge": cid,
            "variant": variant,
            "race": race.id,
            "ghosts": len(ghosts),
            "commitment": race.commitment,
        }

    def _over(self, cid: str, driver: RaceDriver, record: Mapping[str, Any] | None) -> None:
        race = driver.race
        assert isinstance(race, DailyRace)
        if record is None:
            return
        pid = str(race.creator["id"]) if race.creator else ""
        row = record["results"][0]
        value = board_value(
            row["time"] if row["finish"] == "goal" else None, int(row["score"]), row.get("last_home")
        )
        kept: Message = {
            "race": race.id,
            "player": race.creator,
            "state": "finished",
            "record": {**record, "challenge": cid, "move_times": race.move_times},
            "value": value,
        }
        if (recorded := race.recorded()) is not None:
            kept["ghost"] = recorded.stored()
        key = f"challenge:{cid}:{pid}"
        self.daily._unsaved[f"race:{race.id}"] = {"key": f"{key}:{race.id}", "challenge": cid, "player": pid}
        self.daily._unsaved[f"{key}:{race.id}"] = kept
        self.daily._spawn(self._keep(cid, key, kept, pid, value))

    async def _keep(self, cid: str, key: str, kept: Message, pid: str, value: float) -> None:
        store, race_id = self.daily.store, str(kept["race"])
        where = f"race:{race_id}"
        try:
            await until_stored(f"challenge {key}", lambda: store.daily_put(f"{key}:{race_id}", kept, KEEP))
            index = self.daily._unsaved[where]
            await until_stored(f"challenge {where}", lambda: store.daily_put(where, index, KEEP))
        finally:
            self.daily._unsaved.pop(where, None)
            self.daily._unsaved.pop(f"{key}:{race_id}", None)
        if await store.daily_get(key) is None:  # each player's first attempt is their ghost and row
            first = await store.daily_claim(key, kept, KEEP)
            if first["race"] == race_id:
                await until_stored(
                    f"challenge board {cid}",
                    lambda: store.board_put(f"challenge:{cid}", pid, value, "set", KEEP),
                )
