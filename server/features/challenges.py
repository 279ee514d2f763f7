"""Challenges: a private deal its creator races first and others race later, against ghosts.

The daily deal's head-to-head without being online together, for any deal of one's own:
``challenge_create`` draws a deal the solver proves winnable (as a winnable-only race does),
keeps its seed secret, and starts the creator's attempt on it; ``challenge_play`` lets anyone
with the challenge's id (the creator too, for a rematch) race the same still-secret deal
against the ghosts of the attempts before theirs (each player's first attempt), with standings
only; ``challenge_reveal`` (the creator's) tells the seed, and the attempts' records become
everyone's. Its reveal waits for the attempts under way (none starts once it is asked for), and
an attempt on a revealed deal never comes on the board. Attempts are the private one-seat races
of :mod:`server.features.attempts`, as the daily deal's are.

A board a scout cannot top (:mod:`server.players.fairplay`), as the daily deal's: a first attempt
comes on the board only from an established account made before the challenge was, played at a
person's pace; otherwise it is kept (its player's ``challenge`` answer says why, ``held``) and, for
a program's pace or a voided account, flagged for the operator.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from server.features import shared_places
from server.features.attempts import Attempts, Message, own_attempt
from server.features.daily_boards import MAX_GHOSTS, pool_of
from server.handlers.dispatch import Handler, player_of
from server.players.accounts import Player
from server.players.fairplay import FLAGGED, FairPlay
from server.races.archive import until_stored
from server.races.driver import RaceDriver, now_ms
from server.races.registry import Registry
from server.races.winnable import Drawn
from server.store import BoardPut, Store
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.race import RaceRules
from terrace.race.daily import board_row, board_value
from terrace.race.ghosts import Recorded, recorded
from terrace.race.held import SAME_ADDRESS
from terrace.rules.deal import commitment
from terrace.rules.variants import VARIANTS
from terrace.rules.versions import RULES_VERSION
from terrace.vocab import Pool
from terrace.wire.messages import (
    ChallengeAnswer,
    ChallengeCreate,
    ChallengePlay,
    ChallengePlaying,
    ChallengeQuery,
    ChallengeReveal,
    DailyRow,
)

KEEP = 30 * 86_400  # a challenge, its attempts and records are kept this long


class Challenges:
    ANONYMOUS = ("challenge",)

    def __init__(self, store: Store, registry: Registry, attempts: Attempts, fairplay: FairPlay) -> None:
        self.store = store
        self.registry = registry
        self.attempts = attempts
        self.fairplay = fairplay
        registry.owners["challenge"] = self.over
        attempts.told["challenge"] = lambda owner: self._told(str(owner["challenge"]))

    def handlers(self) -> dict[str, Handler]:
        return {
            "challenge": self.on_challenge,
            "challenge_create": self.on_challenge_create,
            "challenge_play": self.on_challenge_play,
            "challenge_reveal": self.on_challenge_reveal,
        }

    async def on_challenge(self, conn: Connection, req: ChallengeQuery) -> ChallengeAnswer:
        return await self.answer(req.challenge, conn.player, req.pool)

    async def on_challenge_create(self, conn: Connection, req: ChallengeCreate) -> ChallengePlaying:
        return await self.create(player_of(conn), req, conn.address)

    async def on_challenge_play(self, conn: Connection, req: ChallengePlay) -> ChallengePlaying:
        return await self.play(player_of(conn), req)

    async def on_challenge_reveal(self, conn: Connection, req: ChallengeReveal) -> ChallengeAnswer:
        return await self.reveal(player_of(conn), req)

    async def create(self, player: Player, req: ChallengeCreate, address: str = "?") -> ChallengePlaying:
        """Draw a winnable secret deal and start its creator's attempt on it."""
        variant = req.variant
        if not player.registered:  # a guest's attempt would count on no board, and it could not reveal it
            raise ProtocolError("challenge_create_account_needed")
        self.registry.check_free(player)
        seconds = self.registry.config.winnable_seconds
        drawn = await self.registry.draws.draw(address, variant, RULES_VERSION, seconds)
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
            # an account made after this counts on no board of it (a scout's accomplice made for it)
            "created_at": now_ms(),
        }
        await self.store.daily_claim(f"challenge:{cid}", kept, KEEP)
        return await self._start(player, cid, kept, 0)

    async def play(self, player: Player, req: ChallengePlay) -> ChallengePlaying:
        """Race a challenge's deal against the ghosts of the attempts before (its creator's rematch too)."""
        cid = req.challenge
        kept = await self._challenge(cid)
        revealed = await self._revealed(cid, kept)
        if kept.get("closing") and not revealed:  # its reveal waits for the attempts under way
            raise ProtocolError("challenge_closing", challenge=cid)
        if not player.registered and not revealed:  # as with today's daily deal
            raise ProtocolError("challenge_account_needed", challenge=cid)
        self.registry.check_free(player)
        return await self._start(player, cid, kept, MAX_GHOSTS if req.ghosts is None else req.ghosts)

    async def reveal(self, player: Player, req: ChallengeReveal) -> ChallengeAnswer:
        """The creator's word: no new attempt starts, and the deal is told once every attempt under
        way is over (at once when none is)."""
        cid = req.challenge
        kept = await self._challenge(cid)
        if kept["creator"]["id"] != player.id:
            raise ProtocolError("not_challenge_creator", challenge=cid)
        if not kept.get("closing"):
            kept = {**kept, "closing": True}
            await self.store.daily_put(f"challenge:{cid}", kept, KEEP)
        await self._revealed(cid, kept)
        return await self.answer(cid, player)

    async def _revealed(self, cid: str, kept: Mapping[str, Any]) -> bool:
        """Whether the challenge's deal is told: its creator said so and no attempt of it still runs
        (then it is marked told, for good)."""
        if kept.get("revealed"):
            return True
        if not kept.get("closing") or await self.attempts.running(_running(cid)):
            return False
        await self.store.daily_put(f"challenge:{cid}", {**kept, "revealed": True}, KEEP)
        return True

    async def _told(self, cid: str) -> bool:
        kept = await self.store.daily_get(f"challenge:{cid}")
        return kept is not None and await self._revealed(cid, kept)

    async def answer(self, cid: str, player: Player | None, pool: Pool | None = None) -> ChallengeAnswer:
        """What anyone may know of a challenge: its commitment and the attempts on the board of
        ``pool`` (by default the asker's: people's and bots' boards are apart, as the daily deal's),
        time and score only; its seed and solution once revealed; while its reveal waits, when it
        comes at the latest."""
        kept = await self._challenge(cid)
        revealed = await self._revealed(cid, kept)
        pool = pool or (pool_of(player.public()) if player is not None else "humans")
        rows: list[DailyRow] = []
        for i, (pid, value) in enumerate(await self.store.board_range(_board(cid, pool), 0, 100, False)):
            attempt = await self.attempts.get(f"challenge:{cid}:{pid}") or {}
            rows.append(board_row(i + 1, attempt.get("player") or {"id": pid, "name": pid}, value))
        out: ChallengeAnswer = {
            "type": "challenge",
            "challenge": cid,
            "variant": kept["variant"],
            "creator": kept["creator"],
            "commitment": commitment(bytes.fromhex(kept["seed"])),
            "revealed": revealed,
            "pool": pool,
            "board": rows,
        }
        if player is not None and player.registered:  # theirs: a first attempt held back says why
            out["attempt"] = own_attempt(await self.attempts.get(f"challenge:{cid}:{player.id}"))
        if revealed:
            out["seed"], out["solution"] = kept["seed"], kept["solution"]
        elif kept.get("closing"):
            out["reveals_at"] = await self.attempts.latest_end(_running(cid)) or now_ms()
        return out

    async def _challenge(self, cid: str) -> dict[str, Any]:
        kept = await self.store.daily_get(f"challenge:{cid}")
        if kept is None:
            raise ProtocolError("no_challenge", challenge=cid)
        return kept

    async def _ghosts(self, cid: str, player: Player, wanted: int) -> list[Recorded]:
        out: list[Recorded] = []
        for pid, _ in await self.store.board_range(
            _board(cid, pool_of(player.public())), 0, max(0, min(wanted, MAX_GHOSTS)), False
        ):
            attempt = await self.attempts.get(f"challenge:{cid}:{pid}")
            if attempt is not None and "ghost" in attempt:
                out.append(Recorded.of(attempt["ghost"]))
        return out

    async def _start(
        self, player: Player, cid: str, kept: Mapping[str, Any], wanted: int
    ) -> ChallengePlaying:
        ghosts = await self._ghosts(cid, player, wanted) if wanted else []
        variant = str(kept["variant"])
        rules = RaceRules(
            variant,
            VARIANTS[variant].default_goal,
            1,
            self.registry.config.default_time_limit,
            "all",
            "full",
            int(kept["rules_version"]),
        )
        # an attempt on a revealed deal is practice: it never comes on the board
        owner = {
            "kind": "challenge",
            "challenge": cid,
            "counted": not kept.get("revealed"),
            "made_before": int(kept.get("created_at", 0)),  # (challenges from before fair play: 0)
        }
        deal = Drawn(bytes.fromhex(str(kept["seed"])), list(kept["solution"]))
        race_id = self.attempts.new_id()
        first = _first(cid, player.id)
        claimed = False

        async def confirm() -> Mapping[str, Any]:
            nonlocal claimed
            # read again with the attempt marked running: a reveal in between is seen here
            now = await self._challenge(cid)
            if now.get("revealed"):
                return {**owner, "counted": False}
            if now.get("closing"):
                raise ProtocolError("challenge_closing", challenge=cid)
            # the player's first attempt is the one that started first, claimed in the store as it
            # starts (on any node): one that reads the deal and a second begun meanwhile, say on
            # another node, cannot both be "the first" and the later one counted
            claim = await self.store.daily_claim(first, {"race": race_id}, KEEP)
            claimed = claim["race"] == race_id
            if not claimed and (await self.store.board_score(_running(cid), claim["race"]) or 0) > now_ms():
                # their counted attempt still runs (on another node: this one's check_free cannot
                # see it): a second one now would read the deal for it
                raise ProtocolError("already_in_race", race=claim["race"])
            return owner if claimed else {**owner, "counted": False}

        try:
            driver = await self.attempts.start(
                player, rules, deal, ghosts, owner, _running(cid), KEEP, race_id=race_id, confirm=confirm
            )
        except Exception:
            if claimed:  # it never started: the player's first attempt is still to come
                await self.store.daily_release(first, race_id)
            raise
        if self.registry.config.rated_seats_per_address:  # where it plays from (shared_places)
            places, at = _places(cid), now_ms()
            await until_stored(
                f"challenge {cid}", lambda: shared_places.mark(self.store, places, player, at, KEEP)
            )
        return {
            "type": "challenge_playing",
            "challenge": cid,
            "variant": variant,
            "race": driver.id,
            "ghosts": len(ghosts),
            "commitment": driver.race.commitment,
        }

    def over(self, driver: RaceDriver, record: Mapping[str, Any] | None) -> None:
        """An attempt of a challenge ended: kept (:class:`Attempts`); a player's first counted
        attempt is their row and their ghost."""
        race = driver.race
        owner = race.options.owner or {}
        cid = str(owner["challenge"])
        seat = next(iter(race.seats.values()), None)
        if record is None or seat is None:  # cancelled before its first view: nothing seen, not used
            claim = _first(cid, str(race.creator["id"])) if owner.get("counted") and race.creator else None
            self.attempts.given_back(driver, _running(cid), KEEP, claim)
            return
        pid = seat.id
        row = record["results"][0]
        value = board_value(
            row["time"] if row["finish"] == "goal" else None, int(row["score"]), row.get("last_home")
        )
        kept: Message = {
            "race": race.id,
            "player": seat.player,
            "state": "finished",
            "record": {**record, "challenge": cid, "move_times": seat.move_times},
            "value": value,
        }
        if (ghost := recorded(seat)) is not None:
            kept["ghost"] = ghost.stored()
        key = f"challenge:{cid}:{pid}"
        index = {"key": f"{key}:{race.id}", "challenge": cid, "player": pid, "owner": owner}

        async def first_is_the_row() -> None:
            if await self.store.daily_get(key) is not None:
                return
            at = int(record.get("ended_at") or now_ms())
            made_before = int(owner.get("made_before", 0))  # an account made after the challenge: new
            held = await until_stored(
                f"challenge {cid}", lambda: self.fairplay.held(seat.player, seat.move_times, at, made_before)
            )
            if held is None and self.registry.config.rated_seats_per_address:
                places = _places(cid)
                if await until_stored(
                    f"challenge {cid}", lambda: shared_places.shared(self.store, places, pid, at)
                ):
                    held = SAME_ADDRESS  # another account at this desk may have read the deal first
            first = await self.store.daily_claim(key, kept if held is None else {**kept, "held": held}, KEEP)
            if first["race"] != race.id:  # not their first attempt
                return
            put = BoardPut(_board(cid, pool_of(seat.player)), pid, value, "set", KEEP)
            if held is None:
                await until_stored(
                    f"challenge board {cid}",
                    lambda: self.store.board_put(put.board, put.member, put.score, put.mode, put.ttl),
                )
            elif held in FLAGGED:
                what = f"{race.rules.variant} challenge {cid}"
                await until_stored(
                    f"challenge {cid}", lambda: self.fairplay.flag(seat.player, race.id, held, [put], what)
                )

        values = {f"{key}:{race.id}": kept, f"race:{race.id}": index}
        self.attempts.keep(
            driver, _running(cid), KEEP, values, first_is_the_row if owner.get("counted") else None
        )


def _running(cid: str) -> str:
    return f"challenge-running:{cid}"


def _places(cid: str) -> str:
    return f"challenge-places:{cid}"


def _first(cid: str, player_id: str) -> str:
    """The claim naming the race of a player's first counted attempt at a challenge."""
    return f"challenge-first:{cid}:{player_id}"


def _board(cid: str, pool: Pool) -> str:
    """A challenge's board of ``pool``: people's first attempts, or bots' (a program's pace is no
    person's, and a bot made after the challenge could race a line told to it)."""
    return f"challenge:{cid}" if pool == "humans" else f"challenge-bots:{cid}"
