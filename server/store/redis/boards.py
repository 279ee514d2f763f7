"""The Redis store's leaderboards, ratings and each player's rating history.

Keys (after the prefix; see :mod:`server.store.redis.base`):

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``{lb}:board:<board>``                     zset    member -> score; ZADD (GT / LT) or ZINCRBY,
                                                   EXPIRE for boards with a ttl
``{lb}:rating:<pool>:<variant>``           hash    player id -> [mu, sigma]
``{lb}:applied:<race id>``                 string  the race is on the boards and ratings (kept
                                                   30 days): a retried apply changes nothing
``{lb}:history:<player id>``               list    the player's rated races, newest first (rating
                                                   after each; LTRIM to the newest 100); written in
                                                   the script that applies the race's ratings.
                                                   (``history:{<player id>}``: where entries written
                                                   before were; read after the new ones)
=========================================  ======  ==============================================
"""

from __future__ import annotations

from collections.abc import Sequence
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
from server.store.redis.base import RedisBase, as_bytes, guard, pack_rating, text


class RedisBoards(RedisBase):
    # ----- boards

    async def board_put(
        self, board: str, member: str, score: float, mode: BoardMode = "set", ttl: int | None = None
    ) -> bool:
        check_board_put(mode, score)
        key = self._lb("board", board)
        with guard():
            async with self._r.pipeline(transaction=True) as p:
                if mode == "add":
                    p.zscore(key, member)
                    p.zincrby(key, score, member)
                else:
                    p.zadd(key, {member: score}, ch=True, gt=mode == "max", lt=mode == "min")
                if ttl is not None:
                    p.expire(key, ttl)
                out: list[Any] = await p.execute()
        if mode == "add":
            old, new = out[0], out[1]
            return old is None or float(new) != float(old)
        return bool(out[0])

    async def board_range(
        self, board: str, start: int, count: int, descending: bool
    ) -> list[tuple[str, float]]:
        if start < 0:
            raise ValueError("start must be >= 0")
        if count <= 0:
            return []
        with guard():
            rows: list[Any] = await self._r.zrange(
                self._lb("board", board), start, start + count - 1, desc=descending, withscores=True
            )
        return [(text(m), float(s)) for m, s in rows]

    async def board_rank(self, board: str, member: str, descending: bool) -> int | None:
        key = self._lb("board", board)
        with guard():
            rank: Any = await (self._r.zrevrank(key, member) if descending else self._r.zrank(key, member))
        return None if rank is None else int(rank)

    async def board_score(self, board: str, member: str) -> float | None:
        with guard():
            score: float | None = await self._r.zscore(self._lb("board", board), member)
        return None if score is None else float(score)

    async def board_remove(self, board: str, member: str) -> bool:
        with guard():
            return bool(await self._r.zrem(self._lb("board", board), member))

    async def board_size(self, board: str) -> int:
        with guard():
            n: int = await self._r.zcard(self._lb("board", board))
        return n

    async def board_better(self, board: str, score: float, descending: bool) -> int:
        low, high = (f"({score!r}", "+inf") if descending else ("-inf", f"({score!r}")
        with guard():
            n: int = await self._r.zcount(self._lb("board", board), low, high)
        return n

    # ----- ratings

    async def rating(self, pool: str, variant: str, player_id: str) -> tuple[float, float] | None:
        with guard():
            data: bytes | str | None = await self._r.hget(self._lb("rating", pool, variant), player_id)
        if data is None:
            return None
        mu, sigma = unpack(as_bytes(data))
        return float(mu), float(sigma)

    async def set_ratings(self, pool: str, variant: str, ratings: dict[str, tuple[float, float]]) -> None:
        if not ratings:
            return
        mapping: dict[Any, Any] = {pid: pack_rating(r) for pid, r in ratings.items()}
        with guard():
            await self._r.hset(self._lb("rating", pool, variant), mapping=mapping)  # one command: atomic

    async def apply_race(
        self, race_id: str, puts: Sequence[BoardPut], ratings: RatingChange | None = None
    ) -> list[bool] | None:
        for put in puts:
            check_board_put(put.mode, put.score)
        rating_key = self._lb("rating", ratings.pool, ratings.variant) if ratings else self._lb("rating")
        after = ratings.after if ratings else {}
        history = ratings.history if ratings else {}
        keys = [
            self._lb("applied", race_id),
            rating_key,
            *(self._lb("board", p.board) for p in puts),
            *(self._lb("history", pid) for pid in history),
        ]
        keep = ratings.history_keep if ratings else 0
        args: list[Any] = [APPLIED_TTL, len(puts), len(after), len(history), keep]
        for p in puts:
            args += [p.member, repr(float(p.score)), p.mode, "" if p.ttl is None else p.ttl]
        for pid, rating in after.items():
            before = ratings.before.get(pid) if ratings else None
            args += [pid, b"" if before is None else pack_rating(before), pack_rating(rating)]
        args += [pack(entry) for entry in history.values()]
        with guard():
            out: Any = await self._apply_race(keys=keys, args=args)
        if out == -1:
            return None
        if out == -2:
            raise RatingsMoved(race_id)
        return [bool(c) for c in out]

    # ----- rating history

    async def history_add(self, player_id: str, entry: dict[str, Any], keep: int) -> None:
        key = self._lb("history", player_id)
        with guard():
            async with self._r.pipeline(transaction=True) as tx:
                tx.lpush(key, pack(entry))
                tx.ltrim(key, 0, keep - 1)
                await tx.execute()

    async def history(self, player_id: str, n: int) -> list[dict[str, Any]]:
        with guard():
            raw: list[Any] = await self._r.lrange(self._lb("history", player_id), 0, n - 1)
            if len(raw) < n:  # entries from before histories moved beside the ratings: older
                raw += await self._r.lrange(f"{self._p}history:{{{player_id}}}", 0, n - 1 - len(raw))
        return [dict(unpack(as_bytes(e))) for e in raw]
