"""Leaderboards: ratings per pool and variant, fastest goal times (all time, today, this week), wins.

Boards are sorted sets in the store (Redis semantics, also in memory):

| board | key | score | better |
|---|---|---|---|
| ``rating`` | ``rating:{pool}:{variant}`` | ordinal (mu - 3 sigma) | higher |
| ``fastest`` | ``fastest:{variant}:{goal}[:day:YYYY-MM-DD / :week:YYYY-Www]`` | goal time, ms | lower (kept with ZADD LT) |
| ``wins`` | ``wins:{variant}`` | races won (place 1) | higher |

Beside each rating board, ``played:{pool}:{variant}`` counts each player's rated races (its
rows carry ``races``: the bot ladder is the bots' rating board), and every rated race is put
first in each of its players' history (the rating after it; :meth:`Leaderboards.player`).

Only registered players appear (a guest has no lasting identity). Day and
week boards are keyed by their UTC period and expire a while after it ends.
Equal scores share a rank: a row's rank is one more than the number of
players strictly better.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from server.players.fairplay import FLAGGED, FairPlay
from server.players.ratings import Rating, ordinal, pool_of, rate
from server.store import BoardPut, RatingChange, RatingsMoved, Store
from terrace.errors import ProtocolError
from terrace.rules.variants import VARIANTS
from terrace.vocab import PERIODS, POOLS, BoardName, Goal, Period, Pool
from terrace.wire.messages import (
    BoardPlayer,
    BoardRow,
    HistoryEntry,
    Leaderboard,
    LeaderboardQuery,
    PlayerAnswer,
)
from terrace.wire.messages import (
    Rating as RatingRow,
)

Message = dict[str, Any]

PAGE = 10  # rows when a query names no count
HISTORY_KEPT = 100  # rated races kept per player (their rating after each)
HISTORY_SHOWN = 50
MAX_ROWS = 100
_TTL = {"day": 3 * 86_400, "week": 15 * 86_400}  # period boards live on a while after the period ends
_HIGHER_IS_BETTER = {"rating": True, "fastest": False, "wins": True}


@dataclass(frozen=True)
class Board:
    """One board: what it ranks, and the store key it lives under."""

    kind: BoardName
    variant: str
    pool: Pool | None = None  # rating
    goal: Goal | None = None  # fastest
    period: Period = "all"  # fastest: all | day | week
    period_key: str | None = None  # "2026-11-23" or "2026-W48"

    @property
    def key(self) -> str:
        if self.kind == "rating":
            return f"rating:{self.pool}:{self.variant}"
        if self.kind == "wins":
            return f"wins:{self.variant}"
        base = f"fastest:{self.variant}:{self.goal}"
        return base if self.period == "all" else f"{base}:{self.period}:{self.period_key}"

    @property
    def descending(self) -> bool:
        return _HIGHER_IS_BETTER[self.kind]

    def message(
        self, rows: list[BoardRow], start: int | None = None, total: int | None = None
    ) -> Leaderboard:
        """The board as a ``leaderboard`` answer (``start`` and ``total`` given) or push."""
        out: Leaderboard = {"type": "leaderboard", "board": self.kind, "variant": self.variant, "rows": rows}
        if start is not None and total is not None:
            out["start"], out["total"] = start, total
        if self.pool:
            out["pool"] = self.pool
        if self.goal:
            out["goal"] = self.goal
        if self.kind == "fastest":
            out["period"] = self.period
            if self.period_key:
                out["period_key"] = self.period_key
        return out


def period_key(period: str, when: float) -> str | None:
    day = dt.datetime.fromtimestamp(when, dt.UTC).date()
    if period == "day":
        return day.isoformat()
    if period == "week":
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}"
    return None


class Leaderboards:
    def __init__(self, store: Store, fairplay: FairPlay, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.fairplay = fairplay
        self.clock = clock

    def board(
        self,
        kind: BoardName,
        variant: str,
        pool: Pool | None = None,
        goal: Goal | None = None,
        period: Period = "all",
    ) -> Board:
        """The board a query names; ProtocolError ``bad_board`` when it names none."""
        if kind == "rating":
            if pool not in POOLS:
                raise ProtocolError("bad_board", detail="a rating board needs pool 'humans' or 'bots'")
            return Board("rating", variant, pool=pool)
        if kind == "wins":
            return Board("wins", variant)
        v = VARIANTS[variant]
        goal = goal or v.default_goal
        if goal not in v.goals:
            raise ProtocolError("bad_board", detail=f"{variant} races have only the goal {v.default_goal!r}")
        return Board(
            "fastest", variant, goal=goal, period=period, period_key=period_key(period, self.clock())
        )

    # ----- a race ends ---------------------------------------------------------------

    async def race_finished(self, record: Mapping[str, Any]) -> list[Board]:
        """Put a finished race on the boards, once however often it is called (a retry after the
        store failed half-way, another node finishing the same record); returns the boards that
        changed ([] when the race was on them already)."""
        held = await self._held(record)
        while True:
            puts, ratings, withheld = await self._changes(record, held)
            try:
                changed = await self.store.apply_race(str(record["id"]), [p for _, p in puts], ratings)
            except RatingsMoved:  # another race rated one of these players meanwhile: rate again
                continue
            if changed is None:
                return []
            for player, reason, kept_back in withheld.values():  # once: the call that applied the race
                await self.fairplay.flag(
                    player, str(record["id"]), reason, kept_back, f"{record['variant']} race"
                )
            # a race that won or was rated moves its wins and rating boards, whatever the scores say
            moved = (b for (b, _), c in zip(puts, changed, strict=True) if c or b.kind != "fastest")
            return list(dict.fromkeys(moved))  # each board once, in order

    async def _held(self, record: Mapping[str, Any]) -> dict[str, str]:
        """Why each registered player's result does not count on the boards, for those it does not
        (server.players.fairplay)."""
        ended = int(record.get("ended_at") or self.clock() * 1000)
        held: dict[str, str] = {}
        for row in record.get("results", []):
            reason = await self.fairplay.held(row["player"], row.get("move_times"), ended)
            if reason is not None:
                held[str(row["player"]["id"])] = reason
        return held

    async def _changes(
        self, record: Mapping[str, Any], held: Mapping[str, str]
    ) -> tuple[
        list[tuple[Board, BoardPut]],
        RatingChange | None,
        dict[str, tuple[Mapping[str, Any], str, list[BoardPut]]],
    ]:
        """What a finished race changes: each board put (with its board), the new ratings, and for
        each player whose result is flagged (``held``), the board entries held back."""
        variant, goal = str(record["variant"]), cast(Goal, record["goal"])
        rows: Sequence[Mapping[str, Any]] = record.get("results", [])
        registered = [r for r in rows if not r["player"].get("guest", True)]
        puts: list[tuple[Board, BoardPut]] = []
        now = self.clock()
        # a created race that seated two accounts of one address went ahead unrated (said before it
        # started): it counts like a race with a guest in it, on no board
        pool = None if record.get("unrated") else pool_of(rows)
        # Every player of a race has the same deal, and anyone may turn the stock through and tell
        # it: a time counts only when nobody could have told it to the player, in a race alone or
        # in a rated one (registered players, one per address); a win only in a rated race.
        timed = pool is not None or len(rows) == 1
        for row in registered:
            pid = str(row["player"]["id"])
            if timed and row.get("finish") == "goal" and isinstance(row.get("time"), int):
                for period in PERIODS:
                    board = Board(
                        "fastest", variant, goal=goal, period=period, period_key=period_key(period, now)
                    )
                    puts.append((board, BoardPut(board.key, pid, row["time"], "min", _TTL.get(period))))
            if row.get("place") == 1 and pool is not None:
                board = Board("wins", variant)
                puts.append((board, BoardPut(board.key, pid, 1, "add")))
        ratings: RatingChange | None = None
        if pool is not None:
            board = Board("rating", variant, pool=pool)
            before: dict[str, Rating | None] = {
                str(r["player"]["id"]): await self.store.rating(pool, variant, str(r["player"]["id"]))
                for r in rows
            }
            after = rate(rows, before)
            if held:
                # A result held back spoils the race for the others: a throwaway account that loses
                # on purpose (or reads the stock aloud) would hand its opponent wins, a rating and a
                # time. Their ratings stay as they were (no race in their history, none counted);
                # the held player's own rating and race count move, so a newcomer still gets
                # established by playing.
                after = {pid: r for pid, r in after.items() if pid in held}
            puts += [(board, BoardPut(board.key, pid, ordinal(r), "set")) for pid, r in after.items()]
            ratings = RatingChange(
                pool, variant, before, after, _history(record, pool, variant, after), HISTORY_KEPT
            )
        # a held result's entries stay off the boards (its rating and race count change all the same,
        # so a new account gets established by playing); a flagged one's are kept with its flag
        withheld: dict[str, tuple[Mapping[str, Any], str, list[BoardPut]]] = {}
        players = {str(r["player"]["id"]): r["player"] for r in registered}
        counted: list[tuple[Board, BoardPut]] = []
        for board, put in puts:
            reason = held.get(put.member)
            if reason is None:
                if not held:  # (beside a held result nothing counts: see above)
                    counted.append((board, put))
            elif reason in FLAGGED:
                withheld.setdefault(put.member, (players[put.member], reason, []))[2].append(put)
        if ratings is not None:  # every rated player's race count, held or not
            counted += [
                (
                    Board("rating", variant, pool=pool),
                    BoardPut(played_key(ratings.pool, variant), pid, 1, "add"),
                )
                for pid in ratings.after
            ]
        return counted, ratings, withheld

    async def player(self, name: str) -> PlayerAnswer:
        """A registered player's page: ratings (with races played) per pool and variant, and their
        latest rated races with the rating after each. ``no_player`` for an unknown name."""
        account = await self.store.account_by_name(name)
        if account is None:
            raise ProtocolError("no_player", name=name)
        ratings: list[RatingRow] = []
        for pool in POOLS:
            for variant in VARIANTS:
                stored = await self.store.rating(pool, variant, account.id)
                if stored is None:
                    continue
                board = Board("rating", variant, pool=pool)
                rank = await self.store.board_rank(board.key, account.id, True)
                played = await self.store.board_score(played_key(pool, variant), account.id)
                ratings.append(
                    {
                        "pool": pool,
                        "variant": variant,
                        "value": round(ordinal(stored), 3),
                        "mu": round(stored[0], 3),
                        "sigma": round(stored[1], 3),
                        "races": int(played or 0),
                        "rank": None if rank is None else rank + 1,
                    }
                )
        return {
            "type": "player",
            "player": {"id": account.id, "name": account.name, "kind": account.kind},
            "ratings": ratings,
            "history": cast(list[HistoryEntry], await self.store.history(account.id, HISTORY_SHOWN)),
        }

    # ----- queries -------------------------------------------------------------------

    async def rows(self, board: Board, start: int = 0, count: int = PAGE) -> list[BoardRow]:
        """Rows ``start`` .. ``start + count - 1`` (0-based) with shared ranks for equal scores."""
        count = max(0, min(count, MAX_ROWS))
        entries = await self.store.board_range(board.key, start, count, board.descending)
        out: list[BoardRow] = []
        previous: tuple[float, int] | None = None
        for i, (pid, score) in enumerate(entries):
            if previous is not None and previous[0] == score:
                rank = previous[1]
            else:
                rank = 1 + await self.store.board_better(board.key, score, board.descending)
            previous = (score, rank)
            account = await self.store.account_by_id(pid)
            player: BoardPlayer = (
                {"id": pid, "name": account.name, "kind": account.kind}
                if account
                else {"id": pid, "name": pid, "kind": "?"}
            )
            row: BoardRow = {
                "rank": rank,
                "position": start + i + 1,
                "player": player,
                "value": _value(board, score),
            }
            if board.kind == "rating":
                stored = await self.store.rating(board.pool or "", board.variant, pid)
                if stored is not None:
                    row["mu"], row["sigma"] = round(stored[0], 3), round(stored[1], 3)
                played = await self.store.board_score(played_key(board.pool or "", board.variant), pid)
                row["races"] = int(played or 0)
            out.append(row)
        return out

    async def around(self, board: Board, player_id: str, count: int = PAGE) -> tuple[int, list[BoardRow]]:
        """The rows centred on a player: (0-based start, rows). Raises ``not_on_board``."""
        position = await self.store.board_rank(board.key, player_id, board.descending)
        if position is None:
            raise ProtocolError("not_on_board", board=board.kind, variant=board.variant)
        start = max(0, position - count // 2)
        return start, await self.rows(board, start, count)

    async def answer(self, req: LeaderboardQuery) -> Leaderboard:
        """The ``leaderboard`` answer to a request (see PROTOCOL.md)."""
        board = self.board(req.board, req.variant, req.pool, req.goal, req.period or "all")
        count = PAGE if req.count is None else req.count
        if req.around:
            account = await self.store.account_by_name(req.around)
            if account is None:
                raise ProtocolError("not_on_board", board=board.kind, variant=board.variant)
            start, rows = await self.around(board, account.id, count)
        else:
            start = req.start or 0
            rows = await self.rows(board, start, count)
        total = await self.store.board_size(board.key)
        return board.message(rows, start, total)


def played_key(pool: str, variant: str) -> str:
    """The board counting each player's rated races in a pool and variant."""
    return f"played:{pool}:{variant}"


def _value(board: Board, score: float) -> float | int:
    return round(score, 3) if board.kind == "rating" else int(score)


def _history(
    record: Mapping[str, Any], pool: str, variant: str, after: Mapping[str, Rating]
) -> dict[str, dict[str, Any]]:
    """Each rated player's history entry for the race: the rating after it."""
    rows = {str(r["player"]["id"]): r for r in record.get("results", [])}
    return {
        pid: {
            "race": str(record["id"]),
            "at": record.get("ended_at"),
            "variant": variant,
            "pool": pool,
            "place": rows[pid].get("place"),
            "players": len(rows),
            "rating": round(ordinal((mu, sigma)), 3),
            "mu": round(mu, 3),
            "sigma": round(sigma, 3),
        }
        for pid, (mu, sigma) in after.items()
    }
