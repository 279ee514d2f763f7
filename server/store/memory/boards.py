"""The memory store's leaderboards, ratings and each player's rating history."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.store.base import (
    APPLIED_TTL,
    BoardMode,
    BoardPut,
    RatingChange,
    RatingsMoved,
    check_board_put,
)
from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


@dataclass
class _Board:
    scores: dict[str, float]
    order: list[tuple[float, str]]  # (score, member), ascending: Redis's order
    expires: float | None = None  # clock() time


class MemoryBoards(MemoryBase):
    def _init_boards(self) -> None:
        self._boards: dict[str, _Board] = {}
        self._ratings: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
        self._applied: dict[str, float] = {}  # race id -> clock() time its mark expires
        self._history: dict[str, list[bytes]] = {}  # player id -> entries, newest first

    # ----- boards

    def _board(self, name: str) -> _Board | None:
        board = self._boards.get(name)
        if board is not None and board.expires is not None and self._clock() >= board.expires:
            del self._boards[name]
            return None
        return board

    async def board_put(
        self, board: str, member: str, score: float, mode: BoardMode = "set", ttl: int | None = None
    ) -> bool:
        check_board_put(mode, score)
        return self._put(board, member, score, mode, ttl)

    def _put(self, board: str, member: str, score: float, mode: BoardMode, ttl: int | None) -> bool:
        b = self._board(board)
        if b is None:
            b = self._boards[board] = _Board({}, [])
        old = b.scores.get(member)
        new = float(score)
        if old is not None:
            if mode == "add":
                new = old + new
            elif mode == "max":
                new = max(old, new)
            elif mode == "min":
                new = min(old, new)
        changed = old is None or new != old
        if changed:
            if old is not None:
                del b.order[bisect.bisect_left(b.order, (old, member))]
            bisect.insort(b.order, (new, member))
            b.scores[member] = new
        if ttl is not None:
            b.expires = self._clock() + ttl
        return changed

    async def board_range(
        self, board: str, start: int, count: int, descending: bool
    ) -> list[tuple[str, float]]:
        if start < 0:
            raise ValueError("start must be >= 0")
        b = self._board(board)
        if b is None or count <= 0:
            return []
        if descending:
            n = len(b.order)
            rows = b.order[max(n - start - count, 0) : max(n - start, 0)][::-1]
        else:
            rows = b.order[start : start + count]
        return [(member, score) for score, member in rows]

    async def board_rank(self, board: str, member: str, descending: bool) -> int | None:
        b = self._board(board)
        score = b.scores.get(member) if b else None
        if b is None or score is None:
            return None
        rank = bisect.bisect_left(b.order, (score, member))
        return len(b.order) - 1 - rank if descending else rank

    async def board_score(self, board: str, member: str) -> float | None:
        b = self._board(board)
        return b.scores.get(member) if b else None

    async def board_remove(self, board: str, member: str) -> bool:
        b = self._board(board)
        if b is None or member not in b.scores:
            return False
        score = b.scores.pop(member)
        del b.order[bisect.bisect_left(b.order, (score, member))]
        return True

    async def board_size(self, board: str) -> int:
        b = self._board(board)
        return len(b.order) if b else 0

    async def board_better(self, board: str, score: float, descending: bool) -> int:
        b = self._board(board)
        if b is None:
            return 0
        scores = [s for s, _ in b.order]
        return (
            len(scores) - bisect.bisect_right(scores, score)
            if descending
            else bisect.bisect_left(scores, score)
        )

    # ----- ratings

    async def rating(self, pool: str, variant: str, player_id: str) -> tuple[float, float] | None:
        return self._ratings.get((pool, variant), {}).get(player_id)

    async def set_ratings(self, pool: str, variant: str, ratings: dict[str, tuple[float, float]]) -> None:
        table = self._ratings.setdefault((pool, variant), {})
        table.update({pid: (float(mu), float(sigma)) for pid, (mu, sigma) in ratings.items()})

    async def apply_race(
        self, race_id: str, puts: Sequence[BoardPut], ratings: RatingChange | None = None
    ) -> list[bool] | None:
        for put in puts:
            check_board_put(put.mode, put.score)
        now = self._clock()
        if self._applied.get(race_id, now) > now:
            return None
        if ratings is not None:
            table = self._ratings.get((ratings.pool, ratings.variant), {})
            if any(table.get(pid) != before for pid, before in ratings.before.items()):
                raise RatingsMoved(race_id)
            await self.set_ratings(ratings.pool, ratings.variant, ratings.after)
            for pid, entry in ratings.history.items():
                await self.history_add(pid, entry, ratings.history_keep)
        self._applied[race_id] = now + APPLIED_TTL
        return [self._put(p.board, p.member, p.score, p.mode, p.ttl) for p in puts]

    # ----- rating history

    async def history_add(self, player_id: str, entry: dict[str, Any], keep: int) -> None:
        entries = self._history.setdefault(player_id, [])
        entries.insert(0, pack(entry))
        del entries[keep:]

    async def history(self, player_id: str, n: int) -> list[dict[str, Any]]:
        return [dict(unpack(e)) for e in self._history.get(player_id, [])[:n]]
