"""The daily boards: their rows (time and score only), the best lines once a deal is told, the
ghosts a new attempt races, and the pushes to the ``daily`` topic."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from server.features.attempts import Attempts
from server.players.accounts import Player
from server.players.ratings import DEFAULT, ordinal
from server.races.audience import Audience
from server.store import Store
from terrace.race.daily import board_row
from terrace.race.ghosts import Recorded
from terrace.vocab import Pool
from terrace.wire.messages import BestLine, DailyBoard, DailyRow

BOARD_ROWS = 20
BEST_LINES = 3  # a revealed day's answer carries the move lists of its first few rows
MAX_GHOSTS = 8


def pool_of(player: Mapping[str, Any]) -> Pool:
    return "bots" if player.get("kind") == "bot" else "humans"


def attempt_key(variant: str, day: str, player_id: str) -> str:
    return f"attempt:{variant}:{day}:{player_id}"


def board_key(variant: str, day: str, pool: str) -> str:
    return f"daily:{variant}:{day}:{pool}"


class DailyBoards:
    def __init__(self, store: Store, attempts: Attempts, audience: Audience) -> None:
        self.store = store
        self.attempts = attempts
        self.audience = audience

    async def rows(
        self, variant: str, day: str, pool: str, count: int = BOARD_ROWS
    ) -> tuple[list[DailyRow], int]:
        """The first ``count`` rows of a day's board, and how many rows it has."""
        key = board_key(variant, day, pool)
        entries = await self.store.board_range(key, 0, count, False)
        rows: list[DailyRow] = []
        previous: tuple[float, int] | None = None
        for i, (pid, value) in enumerate(entries):
            rank = previous[1] if previous is not None and previous[0] == value else i + 1
            previous = (value, rank)
            attempt = await self.attempts.get(attempt_key(variant, day, pid)) or {}
            rows.append(board_row(rank, attempt.get("player") or {"id": pid, "name": pid}, value))
        return rows, await self.store.board_size(key)

    async def best(self, variant: str, day: str, pool: str) -> list[BestLine]:
        best: list[BestLine] = []
        for pid, value in await self.store.board_range(board_key(variant, day, pool), 0, BEST_LINES, False):
            attempt = await self.attempts.get(attempt_key(variant, day, pid))
            if attempt is None or "record" not in attempt:
                continue
            row = board_row(len(best) + 1, attempt["player"], value)
            best.append({**row, "race": attempt["race"], "move_list": attempt["ghost"]["moves"]})
        return best

    async def ghosts(self, variant: str, day: str, player: Player, wanted: int) -> list[Recorded]:
        """Up to ``wanted`` finished rated attempts of the day by others, those nearest the player's
        rating when there are more."""
        wanted = max(0, min(wanted, MAX_GHOSTS))
        if wanted == 0:
            return []
        pool = pool_of(player.public())
        entries = await self.store.board_range(board_key(variant, day, pool), 0, 200, False)
        others = [pid for pid, _ in entries if pid != player.id]
        if len(others) > wanted:
            mine = ordinal(await self.store.rating(pool, variant, player.id) or DEFAULT)
            near: list[tuple[float, int, str]] = []
            for i, pid in enumerate(others):
                theirs = ordinal(await self.store.rating(pool, variant, pid) or DEFAULT)
                near.append((abs(theirs - mine), i, pid))
            others = [pid for _, _, pid in sorted(near)[:wanted]]
        out: list[Recorded] = []
        for pid in others:
            attempt = await self.attempts.get(attempt_key(variant, day, pid))
            if attempt is not None and "ghost" in attempt:
                out.append(Recorded.of(attempt["ghost"]))
        return out

    async def changed(self, variant: str, day: str, pool: str) -> None:
        """Push the day's board to the ``daily`` topic's subscribers here."""
        if not self.audience.daily_watchers:
            return
        rows, total = await self.rows(variant, day, pool)
        pushed: DailyBoard = {
            "type": "daily_board",
            "variant": variant,
            "day": day,
            "pool": cast(Pool, pool),
            "board": rows,
            "total": total,
        }
        self.audience.to_daily(pushed)
