"""The daily deal's edge: seeds drawn ahead in a worker process, attempts, the daily board, reveals.

The rules of the day are :mod:`terrace.race.daily` (sans-I/O); this module keeps them in the store
and runs the attempts:

- a day's deal is drawn from a secret and kept in the store (:mod:`server.features.daily_deals`);
- an attempt is a private one-seat race (:mod:`server.features.attempts`): journalled like any
  race (a node that dies hands it on), off the lobby, unwatched, its end coming here, not to
  the archive; its record is withheld (even its player gets it without the seed) until the
  deal is revealed, and the board shows time and score only;
- a day's deal is revealed (its seed, the solver's line, the best lines, every attempt's
  record) only once the day is over and no attempt of it can still be running on any node;
  until then a past day can be neither read nor practised;
- one rated attempt per registered account per variant and day, claimed in the store in one
  step (an attempt cancelled before its first view gives back exactly its own claim), so no
  path, node or reconnect starts a second; practice after it, or on a revealed past day;
  guests only on a revealed day. The daily board is a board of its own: no rating changes.

Time comes from ``clock`` (Unix seconds); tests set it to let a day end. Challenges, built on
the same attempts, are :mod:`server.features.challenges`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from typing import Any

from server.config import Config
from server.features import shared_places
from server.features.attempts import MARGIN_MS, Attempts, own_attempt
from server.features.daily_boards import DailyBoards, pool_of
from server.features.daily_boards import attempt_key as _attempt
from server.features.daily_boards import board_key as _board
from server.features.daily_deals import DEAL_TTL, DailyDeals
from server.handlers.dispatch import Handler, player_of
from server.players.accounts import Player
from server.players.fairplay import FLAGGED, FairPlay
from server.races.archive import until_stored
from server.races.audience import Audience
from server.races.driver import RaceDriver, now_ms
from server.races.registry import Registry
from server.races.winnable import Drawn
from server.store import BoardPut, Store
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.race import RaceRules
from terrace.race.daily import (
    DailyDeal,
    board_value,
    day_end,
    day_of,
    parse_day,
    shift,
)
from terrace.race.ghosts import recorded
from terrace.race.held import SAME_ADDRESS
from terrace.rules.variants import VARIANTS
from terrace.vocab import Pool
from terrace.wire.messages import DailyAnswer, DailyPlay, DailyPlaying, DailyQuery

log = logging.getLogger("terrace.server")

Message = dict[str, Any]

REVEAL_AFTER_MS = 60_000  # a day's deal is told no sooner than this after the day ends
KEEP_TTL = 8 * 86_400  # attempts, records and boards: today's, yesterday's and a week back


class Daily:
    ANONYMOUS = ("daily",)

    def __init__(
        self,
        config: Config,
        store: Store,
        registry: Registry,
        audience: Audience,
        attempts: Attempts,
        fairplay: FairPlay,
        executor: Executor | None = None,
        clock: Callable[[], float] = time.time,
        publish: Callable[[Message], None] | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.registry = registry
        self.audience = audience
        self.attempts = attempts
        self.fairplay = fairplay
        self.clock = clock
        self.deals = DailyDeals(config, store, lambda: self.today(), executor)
        self.boards = DailyBoards(store, attempts, audience)
        self.publish = publish  # one node of many: tell the others
        self._revealed: set[tuple[str, str]] = set()  # (variant, day): told, for good
        registry.owners["daily"] = self.over
        attempts.told["daily"] = lambda owner: self.revealed(str(owner["variant"]), str(owner["day"]))

    def today(self) -> str:
        return day_of(self.clock())

    # ----- seeds --------------------------------------------------------------------

    async def deal(self, variant: str, day: str) -> DailyDeal:
        return await self.deals.deal(variant, day)

    async def prepare(self) -> None:
        await self.deals.prepare()

    # ----- the reveal ---------------------------------------------------------------

    async def revealed(self, variant: str, day: str) -> bool:
        """Whether ``day``'s deal of ``variant`` may be told: the day is over (by a margin), and no
        attempt of it can still be running, on any node. Once told, told for good."""
        if (variant, day) in self._revealed:
            return True
        if self.clock() * 1000 < day_end(day) * 1000 + REVEAL_AFTER_MS:
            return False
        key = f"revealed:{variant}:{day}"
        if await self.store.daily_get(key) is None:
            if await self.attempts.running(_running(variant, day)):
                return False
            await self.store.daily_claim(key, {"at": int(self.clock() * 1000)}, DEAL_TTL)
        self._revealed.add((variant, day))
        return True

    async def reveals_at(self, variant: str, day: str) -> int:
        """When ``day``'s deal of ``variant`` will be told at the soonest (Unix ms): after the day,
        and after the latest end of its attempts that may still be running."""
        latest = await self.attempts.latest_end(_running(variant, day))
        return max(int(day_end(day) * 1000) + REVEAL_AFTER_MS, latest or 0)

    # ----- asking -------------------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        return {"daily": self.on_daily, "daily_play": self.on_daily_play}

    async def on_daily(self, conn: Connection, req: DailyQuery) -> DailyAnswer:
        return await self.answer(req, conn.player)

    async def on_daily_play(self, conn: Connection, req: DailyPlay) -> DailyPlaying:
        return await self.play(player_of(conn), req)

    def _day(self, req: DailyQuery | DailyPlay) -> str:
        """The day a request names (today by default); never a day to come."""
        today = self.today()
        if req.day is None:
            return today
        day = parse_day(req.day)
        if day is None:
            raise ProtocolError("bad_field", field="day", detail="must be a day as YYYY-MM-DD")
        if day > today:
            raise ProtocolError("daily_not_yet", day=day, today=today)
        return day

    async def answer(self, req: DailyQuery, player: Player | None) -> DailyAnswer:
        """The ``daily`` answer: the day's commitments and board, the asker's own attempt, and,
        once the deal is revealed (the day over, no attempt of it running), its seed, the
        solver's line and the best lines; until then, when it will be revealed at the soonest."""
        variant, day = req.variant, self._day(req)
        today = self.today()
        deal, following = await asyncio.gather(self.deal(variant, day), self.deal(variant, shift(day, 1)))
        pool: Pool = req.pool or (pool_of(player.public()) if player else "humans")
        rows, total = await self.boards.rows(variant, day, pool)
        v = VARIANTS[variant]
        out: DailyAnswer = {
            "type": "daily",
            "variant": variant,
            "day": day,
            "today": today,
            "goal": v.default_goal,
            "time_limit": self.config.default_time_limit,
            "rules_version": deal.rules_version,
            "commitment": deal.commitment,
            "next_commitment": following.commitment,
            "ends_at": int(day_end(day) * 1000),
            "pool": pool,
            "board": rows,
            "total": total,
        }
        if player is not None and player.registered:
            attempt = await self.attempts.get(_attempt(variant, day, player.id))
            out["attempt"] = {"state": "lost"} if attempt and self._lost(attempt) else own_attempt(attempt)
        if await self.revealed(variant, day):  # anyone may check it now
            out["seed"] = deal.seed.hex()
            out["solution"] = deal.solution
            out["best"] = await self.boards.best(variant, day, pool)
        else:
            out["reveals_at"] = await self.reveals_at(variant, day)
        return out

    # ----- playing ------------------------------------------------------------------

    async def play(self, player: Player, req: DailyPlay) -> DailyPlaying:
        """Start an attempt on a day's deal: today's one rated attempt (an account's, claimed in
        the store in one step, so no second one starts on any node by any path), practice on it
        after that, or practice on a past day's revealed deal. Its ``started`` follows."""
        variant, day = req.variant, self._day(req)
        today = day == self.today()
        practice = bool(req.practice)
        if today and not player.registered:
            # a guest may play any number of times: every game of today's deal would show its
            # stock to whoever turns it, for an account to race with the deal known
            raise ProtocolError("daily_account_needed", variant=variant)
        if not today and not await self.revealed(variant, day):
            # attempts of that day may still run: a game of it now would tell them the deal
            at = await self.reveals_at(variant, day)
            when = f": it is told at {_utc(at)} at the soonest"
            raise ProtocolError("not_revealed", what=f"The {variant} deal of {day}", when=when, reveals_at=at)
        self.registry.check_free(player)
        deal = await self.deal(variant, day)
        ghosts = await self.boards.ghosts(variant, day, player, 3 if req.ghosts is None else req.ghosts)
        key = _attempt(variant, day, player.id)
        race_id = self.attempts.new_id()
        rated = False
        if today:
            kept = await self.attempts.get(key)
            if kept is None and practice:
                raise ProtocolError("daily_attempt_first", variant=variant)
            if kept is None:
                mine = {"race": race_id, "player": player.public(), "state": "playing", "started": now_ms()}
                kept = await self.store.daily_claim(key, mine, KEEP_TTL)
                if kept["race"] != race_id:  # another connection of the account, on any node, was first
                    raise ProtocolError("daily_attempted", variant=variant, day=day)
                rated = True
            elif not practice:
                raise ProtocolError("daily_attempted", variant=variant, day=day)
            elif kept.get("state") != "finished" and not self._lost(kept):
                raise ProtocolError("daily_unfinished", variant=variant)
        v = VARIANTS[variant]
        rules = RaceRules(
            variant, v.default_goal, 1, self.config.default_time_limit, "all", "full", deal.rules_version
        )
        owner = {"kind": "daily", "variant": variant, "day": day, "rated": rated}
        try:
            driver = await self.attempts.start(
                player,
                rules,
                Drawn(deal.seed, deal.solution),
                ghosts,
                owner,
                _running(variant, day),
                KEEP_TTL,
                race_id,
            )
        except BaseException:
            if rated:  # the claim is given back: no attempt was seen
                await self.store.daily_release(key, race_id)
            raise
        if rated and self.config.rated_seats_per_address:  # where it plays from (shared_places)
            places, at = _places(variant, day), now_ms()
            await until_stored(
                f"daily {key}", lambda: shared_places.mark(self.store, places, player, at, KEEP_TTL)
            )
        log.info("daily %s %s: %s plays (%s)", variant, day, player.name, "rated" if rated else "practice")
        return {
            "type": "daily_playing",
            "variant": variant,
            "day": day,
            "race": driver.id,
            "rated": rated,
            "ghosts": len(ghosts),
            "commitment": deal.commitment,
        }

    def _lost(self, attempt: Mapping[str, Any]) -> bool:
        """An attempt still marked as playing long after it must have ended: its race was lost
        with its node and its store (a memory store). It stays used, with no row."""
        if attempt.get("state") != "playing":
            return False
        over_by = int(attempt["started"]) + 1000 * (self.config.default_time_limit + self.config.countdown)
        return now_ms() > over_by + 1000 * self.config.grace + MARGIN_MS

    # ----- an attempt ends ----------------------------------------------------------

    def over(self, driver: RaceDriver, record: Mapping[str, Any] | None) -> None:
        """An attempt ended (here, or on the node that adopted it): what it left is known here at
        once (the player's next request sees it) and kept in the store (:class:`Attempts`)."""
        race = driver.race
        owner = race.options.owner or {}
        variant, day, rated = str(owner["variant"]), str(owner["day"]), bool(owner["rated"])
        seat = next(iter(race.seats.values()), None)
        pid = str(race.creator["id"]) if race.creator else ""  # seated or not (a cancelled attempt)
        key = _attempt(variant, day, pid) if rated else f"practice:{race.id}"
        running = _running(variant, day)
        if record is None or seat is None:  # cancelled before its first view: the attempt is unused
            self.attempts.given_back(driver, running, KEEP_TTL, key if rated else None)
            return
        row = record["results"][0]
        goal_time = row["time"] if row["finish"] == "goal" else None
        value = board_value(goal_time, int(row["score"]), row.get("last_home"))
        full = {
            **record,
            "daily": {"variant": variant, "day": day, "rated": rated},
            "move_times": seat.move_times,
        }
        kept: Message = {
            "race": race.id,
            "player": seat.player,
            "state": "finished",
            "record": full,
            "value": value,
            "place": race.ghosts.place(race.seats.values()),
        }
        if (ghost := recorded(seat)) is not None:
            kept["ghost"] = ghost.stored()
        index = {"key": key, "day": day, "player": pid, "owner": owner}
        board = _board(variant, day, pool_of(seat.player))

        async def on_the_board() -> None:
            # an account made after the day's commitment was out (the start of the day before) is new
            made_before = int(day_end(shift(day, -2)) * 1000)
            at = int(record.get("ended_at") or now_ms())
            held = await until_stored(
                f"daily {key}", lambda: self.fairplay.held(seat.player, seat.move_times, at, made_before)
            )
            if held is None and self.config.rated_seats_per_address:
                places = _places(variant, day)
                if await until_stored(
                    f"daily {key}", lambda: shared_places.shared(self.store, places, pid, at)
                ):
                    held = SAME_ADDRESS  # another account at this desk may have read the deal first
            put = BoardPut(board, pid, value, "min", KEEP_TTL)
            if held is not None:  # off the board; the player's daily answer says why
                await until_stored(
                    f"daily {key}", lambda: self.store.daily_put(key, {**kept, "held": held}, KEEP_TTL)
                )
                if held in FLAGGED:
                    what = f"{variant} daily {day}"
                    await until_stored(
                        f"daily {key}", lambda: self.fairplay.flag(seat.player, race.id, held, [put], what)
                    )
                return
            await until_stored(
                f"daily board {board}", lambda: self.store.board_put(board, pid, value, "min", KEEP_TTL)
            )
            await self.boards.changed(variant, day, pool_of(seat.player))
            if self.publish is not None:
                self.publish({"daily": {"variant": variant, "day": day, "pool": pool_of(seat.player)}})

        self.attempts.keep(
            driver, running, KEEP_TTL, {key: kept, f"race:{race.id}": index}, on_the_board if rated else None
        )

    async def drain(self) -> None:
        """At shutdown: let attempts just ended reach the store, and stop the drawing worker."""
        await self.attempts.drain()
        self.deals.close()


def _places(variant: str, day: str) -> str:
    return f"daily-places:{variant}:{day}"


def _running(variant: str, day: str) -> str:
    return f"daily-running:{variant}:{day}"


def _utc(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
