"""The embedded memory store (the default): everything in dicts, in one process, gone on restart.

Kept as one module (about 450 lines): one implementation of one interface, method by method
beside the Redis store's (same order, same names), which reads best in one place.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.players import names

from .base import (
    APPLIED_TTL,
    Account,
    BoardMode,
    BoardPut,
    NotOwner,
    RatingChange,
    RatingsMoved,
    check_board_put,
)
from .codec import pack, unpack


@dataclass
class _Board:
    scores: dict[str, float]
    order: list[tuple[float, str]]  # (score, member), ascending: Redis's order
    expires: float | None = None  # clock() time


class MemoryStore:
    """Everything in dicts; keeps at most ``keep_records`` records (oldest go first).

    ``clock`` (seconds, monotonic) decides when boards with a ttl expire; tests inject one.
    Log entries and meta are copied through msgpack, so they come back as they would from Redis.
    """

    def __init__(
        self,
        keep_records: int = 1_000,
        clock: Callable[[], float] = time.monotonic,
        max_sessions: int = 5_000,
    ) -> None:
        self._accounts: dict[str, Account] = {}  # id -> account
        self._by_name: dict[str, str] = {}  # name key (server.names: case and look-alikes folded) -> id
        self._by_token: dict[str, str] = {}  # token hash -> id
        self._sessions: dict[str, tuple[bytes, float]] = {}  # hash -> (data, clock() expiry)
        self._sweep_at = 64
        # past it the session put longest ago goes: each guest hello puts one for a day, so a flood of
        # hellos would otherwise grow the server's memory for a day
        self._max_sessions = max_sessions
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._keep = keep_records
        self._clock = clock
        self._boards: dict[str, _Board] = {}
        self._ratings: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
        self._queues: dict[
            str, dict[str, tuple[float, bool, bytes]]
        ] = {}  # queue -> id -> (since, house, player)
        self._applied: dict[str, float] = {}  # race id -> clock() time its mark expires
        self._logs: dict[str, list[bytes]] = {}
        self._meta: dict[str, bytes] = {}
        self._waiting: dict[str, bytes] = {}
        self._live: set[str] = set()
        self._leases: dict[str, tuple[str, float]] = {}  # race id -> (node, clock() expiry)
        self._shared: dict[str, dict[str, bytes]] = {}  # race id -> part -> data
        self._listeners: set[asyncio.Queue[bytes]] = set()
        self._analyses: dict[str, bytes] = {}  # race id -> its hindsight analysis (packed)
        self._daily: dict[str, tuple[bytes, float]] = {}  # key -> (data, clock() expiry)
        self._history: dict[str, list[bytes]] = {}  # player id -> entries, newest first
        self._arenas: dict[
            str, tuple[bytes, dict[str, bytes], dict[str, bytes]]
        ] = {}  # id -> spec, players, results

    # ----- accounts

    async def add_account(self, account: Account) -> bool:
        """Store ``account``; False (and nothing stored) if its name, or one like it, is taken."""
        keys = names.keys(account.name)
        if any(k in self._by_name for k in keys):
            return False
        self._accounts[account.id] = account
        self._by_name.update(dict.fromkeys(keys, account.id))
        self._by_token[account.token_hash] = account.id
        return True

    async def account_by_id(self, account_id: str) -> Account | None:
        return self._accounts.get(account_id)

    async def account_by_name(self, name: str) -> Account | None:
        aid = next((self._by_name[k] for k in names.keys(name) if k in self._by_name), None)
        return self._accounts[aid] if aid else None

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        aid = self._by_token.get(token_hash)
        return self._accounts[aid] if aid else None

    # ----- sessions

    async def session_put(self, session_hash: str, data: dict[str, Any], ttl: float) -> None:
        now = self._clock()
        if len(self._sessions) >= self._sweep_at:  # expired ones go now and then: the dict stays small
            self._sessions = {h: kept for h, kept in self._sessions.items() if kept[1] > now}
            self._sweep_at = 2 * len(self._sessions) + 64
        self._sessions.pop(session_hash, None)  # a session put again is the newest
        while len(self._sessions) >= self._max_sessions:
            del self._sessions[next(iter(self._sessions))]
        self._sessions[session_hash] = (pack(data), now + ttl)

    async def session_get(self, session_hash: str) -> dict[str, Any] | None:
        kept = self._sessions.get(session_hash)
        if kept is None or kept[1] <= self._clock():
            return None
        return dict(unpack(kept[0]))

    # ----- records

    async def save_record(self, record: Mapping[str, Any]) -> None:
        self._records[record["id"]] = dict(record)
        while len(self._records) > self._keep:
            self._records.popitem(last=False)

    async def record(self, race_id: str) -> dict[str, Any] | None:
        return self._records.get(race_id)

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        if n <= 0:
            return []
        return list(self._records.values())[-n:][::-1]

    # ----- hindsight analyses

    async def save_analysis(self, race_id: str, analysis: Mapping[str, Any]) -> None:
        for gone in [r for r in self._analyses if r not in self._records]:
            del self._analyses[gone]  # their records were evicted
        if race_id in self._records:
            self._analyses[race_id] = pack(analysis)

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        kept = self._analyses.get(race_id)
        return None if kept is None or race_id not in self._records else dict(unpack(kept))

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
        self._applied[race_id] = now + APPLIED_TTL
        return [self._put(p.board, p.member, p.score, p.mode, p.ttl) for p in puts]

    # ----- matchmaking

    async def queue_put(self, queue: str, player: dict[str, Any], house: bool) -> int:
        waiting = self._queues.setdefault(queue, {})
        waiting[str(player["id"])] = (self._clock(), house, pack(player))
        return len(waiting)

    async def queue_take(self, queue: str, player_id: str) -> bool:
        return self._queues.get(queue, {}).pop(player_id, None) is not None

    async def queue_match(self, queue: str, seats: int, wait: float) -> list[dict[str, Any]] | None:
        waiting = self._queues.get(queue, {})
        by_time = sorted(waiting.items(), key=lambda item: item[1][0])  # stable: ties in queue order
        people = [(pid, w) for pid, w in by_time if not w[1]][:seats]
        house = [(pid, w) for pid, w in by_time if w[1]][: seats - len(people)]
        if not people or len(people) + len(house) < 2:
            return None
        if len(people) + len(house) < seats and self._clock() < people[0][1][0] + wait:
            return None
        group = people + house
        for pid, _ in group:
            del waiting[pid]
        return [dict(unpack(w[2])) for _, w in group]

    async def queues(self) -> list[str]:
        for name in [q for q, waiting in self._queues.items() if not waiting]:
            del self._queues[name]
        return sorted(self._queues)

    # ----- arenas

    async def arena_create(self, spec: dict[str, Any]) -> bool:
        if spec["id"] in self._arenas:
            return False
        self._arenas[str(spec["id"])] = (pack(spec), {}, {})
        return True

    async def arena_get(self, arena_id: str) -> dict[str, Any] | None:
        arena = self._arenas.get(arena_id)
        return None if arena is None else dict(unpack(arena[0]))

    async def arena_list(self) -> list[dict[str, Any]]:
        specs = [dict(unpack(a[0])) for a in self._arenas.values()]
        return sorted(specs, key=lambda s: (s["starts_ms"], s["id"]))

    async def arena_join(self, arena_id: str, player: dict[str, Any]) -> None:
        self._arenas[arena_id][1][str(player["id"])] = pack(player)

    async def arena_leave(self, arena_id: str, player_id: str) -> bool:
        arena = self._arenas.get(arena_id)
        return arena is not None and arena[1].pop(player_id, None) is not None

    async def arena_players(self, arena_id: str) -> list[dict[str, Any]]:
        arena = self._arenas.get(arena_id)
        return [] if arena is None else [dict(unpack(p)) for p in arena[1].values()]

    async def arena_result(self, arena_id: str, result: dict[str, Any]) -> bool:
        results = self._arenas[arena_id][2]
        if result["race"] in results:
            return False
        results[str(result["race"])] = pack(result)
        return True

    async def arena_results(self, arena_id: str) -> list[dict[str, Any]]:
        arena = self._arenas.get(arena_id)
        return [] if arena is None else [dict(unpack(r)) for r in arena[2].values()]

    # ----- rating history

    async def history_add(self, player_id: str, entry: dict[str, Any], keep: int) -> None:
        entries = self._history.setdefault(player_id, [])
        entries.insert(0, pack(entry))
        del entries[keep:]

    async def history(self, player_id: str, n: int) -> list[dict[str, Any]]:
        return [dict(unpack(e)) for e in self._history.get(player_id, [])[:n]]

    # ----- live races

    async def log_append(self, race_id: str, entry: dict[str, Any], owner: str | None = None) -> None:
        holder = self._owner(race_id) if owner else None
        if holder is not None and holder != owner:
            raise NotOwner(race_id, holder)
        self._logs.setdefault(race_id, []).append(pack(entry))
        self._live.add(race_id)

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        return [unpack(e) for e in self._logs.get(race_id, [])]

    async def log_drop(self, race_id: str) -> None:
        self._logs.pop(race_id, None)
        self._meta.pop(race_id, None)
        self._waiting.pop(race_id, None)
        self._live.discard(race_id)

    async def live_races(self) -> list[str]:
        return sorted(self._live)

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None:
        self._meta[race_id] = pack(meta)
        self._live.add(race_id)

    async def race_meta(self, race_id: str) -> dict[str, Any] | None:
        data = self._meta.get(race_id)
        return None if data is None else dict(unpack(data))

    async def save_race_waiting(self, race_id: str, meta: dict[str, Any]) -> None:
        self._waiting[race_id] = pack(meta)
        self._live.add(race_id)

    async def race_waiting(self, race_id: str) -> dict[str, Any] | None:
        data = self._waiting.get(race_id)
        return None if data is None else dict(unpack(data))

    # ----- nodes

    def _owner(self, race_id: str) -> str | None:
        lease = self._leases.get(race_id)
        if lease is not None and self._clock() >= lease[1]:
            del self._leases[race_id]
            return None
        return lease[0] if lease else None

    async def lease_take(self, race_id: str, node: str, ttl: float) -> bool:
        if self._owner(race_id) not in (None, node):
            return False
        self._leases[race_id] = (node, self._clock() + ttl)
        return True

    async def lease_renew(self, race_id: str, node: str, ttl: float) -> bool:
        if self._owner(race_id) != node:
            return False
        self._leases[race_id] = (node, self._clock() + ttl)
        return True

    async def lease_owner(self, race_id: str) -> str | None:
        return self._owner(race_id)

    async def lease_release(self, race_id: str, node: str) -> None:
        if self._owner(race_id) == node:
            del self._leases[race_id]

    async def share_race(self, race_id: str, part: str, data: dict[str, Any] | None) -> None:
        if data is None:
            self._shared.pop(race_id, None)
        else:
            self._shared.setdefault(race_id, {})[part] = pack(data)

    async def shared_race(self, race_id: str) -> dict[str, dict[str, Any]]:
        return {part: dict(unpack(d)) for part, d in self._shared.get(race_id, {}).items()}

    async def shared_races(self) -> list[dict[str, Any]]:
        return [
            dict(unpack(parts["summary"]))
            for rid, parts in sorted(self._shared.items())
            if "summary" in parts and self._owner(rid) is not None
        ]

    async def publish(self, event: dict[str, Any]) -> None:
        data = pack(event)
        for queue in self._listeners:
            queue.put_nowait(data)

    async def events(self) -> AsyncGenerator[dict[str, Any], None]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._listeners.add(queue)
        try:
            yield {}  # listening from here on
            while True:
                yield dict(unpack(await queue.get()))
        finally:
            self._listeners.discard(queue)

    # ----- lifecycle

    # ----- the daily deal

    async def daily_claim(self, key: str, data: dict[str, Any], ttl: int) -> dict[str, Any]:
        kept = await self.daily_get(key)
        if kept is not None:
            return kept
        await self.daily_put(key, data, ttl)
        return dict(unpack(pack(data)))

    async def daily_put(self, key: str, data: dict[str, Any], ttl: int) -> None:
        self._daily[key] = (pack(data), self._clock() + ttl)

    async def daily_get(self, key: str) -> dict[str, Any] | None:
        kept = self._daily.get(key)
        if kept is None or kept[1] <= self._clock():
            return None
        return dict(unpack(kept[0]))

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        return None
