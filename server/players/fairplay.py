"""Boards a scout cannot top: whose results count on the boards, results held back and flagged,
and the operator's void and restore.

Everyone in a race has the same deal, and turning the stock shows it all, so one person can
read a deal with one account and race the line with another. The server cannot stop two
people at different addresses sharing a deal (docs/FAIRPLAY.md), but it can keep such a
result off the boards:

- **Established accounts only.** A human account's time, win and rating row count on the
  boards only once it is *established*: made at least ``established_hours`` before (24; for a
  daily attempt, also before the day's commitment was published, the start of the day before)
  and with at least ``established_races`` finished rated races (3). Its ratings and race counts
  change all the same, so it gets there by playing. A scout made for the job is neither.
- **A person's pace.** A human account's result whose moves came faster than a person plays
  (:mod:`terrace.race.pace`) is held back from the boards and *flagged*: the flag keeps the
  board entries held back, for the operator to look at (``terrace-server admin flags``).
- **Void and restore.** ``terrace-server admin void NAME`` takes an account off every board
  (its entries kept aside) and holds back its results from then on, flagged; ``restore NAME``
  puts back what was taken off and what its flags held back, and clears its flags.

Bots race on the bots' boards as before: these rules are the people's (but a void holds for
any account). Flags and voids live in the store, so every node and the admin command share them.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from server.config import Config
from server.players.accounts import Player
from server.store import Account, BoardPut, Store
from terrace.race.held import FEW_RACES, NEW_ACCOUNT, PACE, SAME_ADDRESS, VOIDED
from terrace.race.pace import inhuman
from terrace.rules.variants import VARIANTS

log = logging.getLogger("terrace.server")

Message = dict[str, Any]

FLAG_TTL = 90 * 86_400  # a flag (and what it held back) is kept this long
FLAGS = "fairplay:flags"  # board of flags: member "<race>:<player>", score = when (ms)
# the reasons a result does not count (terrace.race.held): the first two quietly, the others flagged
FLAGGED = (PACE, VOIDED)


class FairPlay:
    def __init__(self, store: Store, config: Config, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.races = config.established_races  # finished rated races, in any variant
        self.age_ms = int(config.established_hours * 3_600_000)
        self.pace = config.pace_check
        self.clock = clock

    async def held(
        self, player: Mapping[str, Any], move_times: Sequence[int] | None, at_ms: int, made_before_ms: int = 0
    ) -> str | None:
        """Why ``player``'s result of ``at_ms`` does not count on the boards (a reason above), or
        None when it does (a guest's never reaches them anyway): the account must be
        ``established_hours`` old then, and made before ``made_before_ms`` too."""
        if player.get("guest", True):
            return None
        pid = str(player["id"])
        if await self.voided(pid):
            return VOIDED
        if player.get("kind") == "bot":
            return None
        if self.pace and move_times is not None and inhuman(move_times):
            return PACE
        account = await self.store.account_by_id(pid)
        if account is None:
            return NEW_ACCOUNT
        if self.age_ms and account.created_at > min(at_ms - self.age_ms, made_before_ms or at_ms):
            return NEW_ACCOUNT  # (an operator who sets no age asks for none, for the daily deal too)
        played = 0
        for variant in VARIANTS:
            if played >= self.races:
                break
            played += int(await self.store.board_score(f"played:humans:{variant}", pid) or 0)
        return FEW_RACES if played < self.races else None

    async def held_in_race(self, player: Mapping[str, Any], move_times: Sequence[int] | None) -> str | None:
        """Why ``player``'s result in a race against others earns nothing there (an arena's
        points), or None: a voided account, or moves faster than a person plays from anyone but a
        bot (a guest too: a program passing for a person in a people's race). Age and race count
        are the boards' rules, not a race's: a new account races like anyone."""
        if not player.get("guest", True) and await self.voided(str(player["id"])):
            return VOIDED
        if player.get("kind") == "bot":
            return None
        if self.pace and move_times is not None and inhuman(move_times):
            return PACE
        return None

    async def held_in_arena(
        self,
        record: Mapping[str, Any],
        seated: Sequence[Player | None],
        crowds: Callable[[Sequence[Player | None], Player], bool],
    ) -> dict[str, str]:
        """Whose result in an arena's race (its ``record``, its players ``seated`` as this node knows
        them) earns no points, and why: :meth:`held_in_race`, or a person seated beside another of
        their address or install (``crowds``: the registry's rule), paired anyway by a queue that
        knew no addresses (several nodes share one). The race's flag for the operator is the
        boards' (server.players.leaderboards), as for any race."""
        held: dict[str, str] = {}
        for row in record["results"]:
            reason = await self.held_in_race(row["player"], row.get("move_times"))
            if reason is not None:
                held[str(row["player"]["id"])] = reason
        for player in seated:
            if player is not None and player.id not in held and crowds(seated, player):
                held[player.id] = SAME_ADDRESS
        return held

    async def flag(
        self, player: Mapping[str, Any], race_id: str, reason: str, held: Iterable[BoardPut], what: str
    ) -> None:
        """Keep a held-back result for the operator: who, which race, why, and its board entries."""
        pid = str(player["id"])
        now = int(self.clock() * 1000)
        flag = {
            "player": {"id": pid, "name": player.get("name"), "kind": player.get("kind")},
            "race": race_id,
            "reason": reason,
            "what": what,
            "at": now,
            "held": [asdict(p) for p in held],
        }
        await self.store.daily_put(_flag(race_id, pid), flag, FLAG_TTL)
        await self.store.board_put(FLAGS, f"{race_id}:{pid}", now, "set", FLAG_TTL)
        log.warning("fair play: %s's %s (race %s) held back: %s", player.get("name"), what, race_id, reason)

    async def flags(self, count: int = 100) -> list[Message]:
        """The newest flags, newest first."""
        out: list[Message] = []
        for member, _ in await self.store.board_range(FLAGS, 0, count, True):
            race_id, _, pid = member.partition(":")
            flag = await self.store.daily_get(_flag(race_id, pid))
            if flag is not None:
                out.append(flag)
        return out

    async def void(self, account: Account) -> int:
        """Take ``account`` off every board, keeping what was there, and hold back its results from
        now on; how many entries came off."""
        taken: list[Message] = []
        for board in _boards(self.clock()):
            score = await self.store.board_score(board, account.id)
            if score is not None and await self.store.board_remove(board, account.id):
                taken.append(
                    {"board": board, "member": account.id, "score": score, "mode": "set", "ttl": None}
                )
        kept = await self.store.daily_get(_void(account.id))
        taken += kept["taken"] if kept else []
        await self.store.daily_put(_void(account.id), {"taken": taken, "at": int(self.clock() * 1000)}, 2**31)
        log.warning("fair play: %s voided (%d board entries taken off)", account.name, len(taken))
        return len(taken)

    async def restore(self, account: Account) -> int:
        """Put back what a void took off and what the account's flags held back, and clear its
        flags; how many entries went back."""
        puts: list[Message] = []
        kept = await self.store.daily_get(_void(account.id))
        if kept is not None:
            puts += kept["taken"]
        for member, _ in await self.store.board_range(FLAGS, 0, 10_000, True):
            race_id, _, pid = member.partition(":")
            if pid != account.id:
                continue
            flag = await self.store.daily_get(_flag(race_id, pid))
            puts += flag["held"] if flag else []
            await self.store.board_remove(FLAGS, member)
        for put in puts:
            score = put["score"]
            if str(put["board"]).startswith("rating:"):  # the rating now, not the one held back
                pool, variant = str(put["board"]).split(":")[1:3]
                rating = await self.store.rating(pool, variant, account.id)
                score = rating[0] - 3 * rating[1] if rating else score
            await self.store.board_put(put["board"], put["member"], score, put["mode"], put.get("ttl"))
        await self.store.daily_put(_void(account.id), {"restored": True}, 1)  # gone in a second
        log.warning("fair play: %s restored (%d board entries back)", account.name, len(puts))
        return len(puts)

    async def voided(self, account_id: str) -> bool:
        kept = await self.store.daily_get(_void(account_id))
        return kept is not None and "taken" in kept


def _flag(race_id: str, player_id: str) -> str:
    return f"fairplay:flag:{race_id}:{player_id}"


def _void(player_id: str) -> str:
    return f"fairplay:void:{player_id}"


def _boards(now: float) -> list[str]:
    """Every board an account may be on now: ratings, counts, wins and fastest times (all time, the
    last days and weeks that boards live), and the daily boards of the last days."""
    today = dt.datetime.fromtimestamp(now, dt.UTC).date()
    days = [(today - dt.timedelta(days=d)).isoformat() for d in range(9)]
    weeks = sorted(
        {f"{y}-W{w:02d}" for y, w, _ in ((today - dt.timedelta(days=d)).isocalendar() for d in range(16))}
    )
    boards: list[str] = []
    for variant, v in VARIANTS.items():
        for pool in ("humans", "bots"):
            boards += [f"rating:{pool}:{variant}", f"played:{pool}:{variant}"]
            boards += [f"daily:{variant}:{day}:{pool}" for day in days]
        boards.append(f"wins:{variant}")
        for goal in v.goals:
            base = f"fastest:{variant}:{goal}"
            boards += [base, *(f"{base}:day:{d}" for d in days[:4]), *(f"{base}:week:{w}" for w in weeks)]
    return boards
