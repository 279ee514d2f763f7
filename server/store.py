"""Where the server keeps what outlives a connection (and, with Redis, a restart).

The :class:`Store` protocol is the one async interface the server uses; two stores
implement it and one contract test suite (``tests/server/test_store.py``) runs against both:

- :class:`MemoryStore`, the embedded default: one process, everything gone on restart;
- :class:`server.redis_store.RedisStore`, shared by every node and surviving restarts.

What a store keeps:

- accounts (names unique case-insensitively, found by id, name or token hash);
- finished race records, the newest ``keep_records`` of them;
- leaderboards with Redis sorted-set semantics: string members, float scores, ties ordered
  by member (ascending boards ascending by member, descending boards descending by member),
  an optional expiry for daily/weekly boards;
- OpenSkill ratings, ``(mu, sigma)`` per pool, variant and player;
- the live move log and the metadata of every running race, so a restarted server can
  rebuild its races. A race is *live* from its first :meth:`Store.save_race_meta` or
  :meth:`Store.log_append` until :meth:`Store.log_drop`, which forgets its log and meta.

A store that cannot be reached raises :class:`StoreDown` (and only that) so callers can
answer "store down" instead of crashing.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import msgpack

BoardMode = Literal["set", "max", "min", "add"]
BOARD_MODES: frozenset[str] = frozenset({"set", "max", "min", "add"})


class StoreDown(Exception):
    """The store cannot be reached (or refuses writes); the operation may not have happened."""


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    kind: str  # "human" | "bot"
    token_hash: str
    created_at: int  # unix ms


@runtime_checkable
class Store(Protocol):
    """The async interface every store implements; see the module docstring for semantics."""

    # ----- accounts
    async def add_account(self, account: Account) -> bool:
        """Store ``account``; False (and nothing stored) if its name is taken (case-insensitively)."""
        ...

    async def account_by_id(self, account_id: str) -> Account | None: ...

    async def account_by_name(self, name: str) -> Account | None: ...

    async def account_by_token_hash(self, token_hash: str) -> Account | None: ...

    # ----- finished race records
    async def save_record(self, record: dict[str, Any]) -> None:
        """Keep ``record`` (keyed by ``record["id"]``); the oldest beyond ``keep_records`` go."""
        ...

    async def record(self, race_id: str) -> dict[str, Any] | None: ...

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        """The newest ``n`` records, newest first."""
        ...

    # ----- leaderboards
    async def board_put(
        self, board: str, member: str, score: float, mode: BoardMode = "set", ttl: int | None = None
    ) -> bool:
        """Put ``member``'s score; returns whether the stored score changed (a new member counts).

        ``mode``: "set" replaces, "max" keeps the higher, "min" keeps the lower, "add" adds.
        ``ttl`` (seconds): the board expires that long after this put; a put without ``ttl``
        leaves an existing expiry alone.
        """
        ...

    async def board_range(
        self, board: str, start: int, count: int, descending: bool
    ) -> list[tuple[str, float]]:
        """``count`` rows from 0-based ``start`` (ZRANGE, or ZREVRANGE when ``descending``)."""
        ...

    async def board_rank(self, board: str, member: str, descending: bool) -> int | None:
        """0-based rank (ZRANK / ZREVRANK); None if absent."""
        ...

    async def board_score(self, board: str, member: str) -> float | None: ...

    async def board_size(self, board: str) -> int: ...

    async def board_better(self, board: str, score: float, descending: bool) -> int:
        """How many members score strictly better than ``score`` (higher if ``descending``)."""
        ...

    # ----- ratings
    async def rating(self, pool: str, variant: str, player_id: str) -> tuple[float, float] | None:
        """``(mu, sigma)`` or None if the player has no rating in that pool and variant."""
        ...

    async def set_ratings(self, pool: str, variant: str, ratings: dict[str, tuple[float, float]]) -> None:
        """Write all of one race's new ratings at once (atomically)."""
        ...

    # ----- live races: move logs and metadata
    async def log_append(self, race_id: str, entry: dict[str, Any]) -> None:
        """Append ``entry`` (JSON-able) to the race's log; done before the move is acknowledged."""
        ...

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        """The race's log in append order ([] if none)."""
        ...

    async def log_drop(self, race_id: str) -> None:
        """Forget the race's log and meta; it is no longer live."""
        ...

    async def live_races(self) -> list[str]:
        """Ids of the races with a log or meta, sorted."""
        ...

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None: ...

    async def race_meta(self, race_id: str) -> dict[str, Any] | None: ...

    # ----- nodes: race leases, shared race summaries, events
    async def lease_take(self, race_id: str, node: str, ttl: float) -> bool:
        """Own the race for ``ttl`` seconds if nobody does (or ``node`` already does)."""
        ...

    async def lease_renew(self, race_id: str, node: str, ttl: float) -> bool:
        """Extend ``node``'s lease by ``ttl`` seconds; False (nothing changed) if it is not ``node``'s."""
        ...

    async def lease_owner(self, race_id: str) -> str | None: ...

    async def lease_release(self, race_id: str, node: str) -> None:
        """Give the lease up if it is ``node``'s."""
        ...

    async def share_race(self, race_id: str, part: str, data: dict[str, Any] | None) -> None:
        """Keep ``part`` ("summary" or "standings") of a race for every node; None forgets the race."""
        ...

    async def shared_race(self, race_id: str) -> dict[str, dict[str, Any]]:
        """The parts kept for the race ({} if none)."""
        ...

    async def shared_races(self) -> list[dict[str, Any]]:
        """The summaries of the races whose lease is held, sorted by race id."""
        ...

    async def publish(self, event: dict[str, Any]) -> None:
        """Send ``event`` (JSON-able) to every :meth:`events` listener, on every node."""
        ...

    def events(self) -> AsyncGenerator[dict[str, Any], None]:
        """Every event published from now on; raises StoreDown when the store goes away.

        The first item is an empty dict, yielded once the subscription is live: a caller
        that waits for it knows no later event can be missed.
        """
        ...

    # ----- lifecycle
    async def ping(self) -> None:
        """Raise :class:`StoreDown` if the store cannot be reached."""
        ...

    async def close(self) -> None: ...


def check_board_put(mode: str, score: float) -> None:
    """Reject what Redis would reject (or what makes no sense) the same way in every store."""
    if mode not in BOARD_MODES:
        raise ValueError(f"unknown board mode {mode!r}")
    if math.isnan(score):
        raise ValueError("a board score cannot be NaN")


def pack(obj: Any) -> bytes:
    """msgpack bytes of a JSON-able value (how stores keep records, log entries and meta)."""
    data: bytes = msgpack.packb(obj)
    return data


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data)


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

    def __init__(self, keep_records: int = 1_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._accounts: dict[str, Account] = {}  # id -> account
        self._by_name: dict[str, str] = {}  # casefolded name -> id
        self._by_token: dict[str, str] = {}  # token hash -> id
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._keep = keep_records
        self._clock = clock
        self._boards: dict[str, _Board] = {}
        self._ratings: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
        self._logs: dict[str, list[bytes]] = {}
        self._meta: dict[str, bytes] = {}
        self._live: set[str] = set()
        self._leases: dict[str, tuple[str, float]] = {}  # race id -> (node, clock() expiry)
        self._shared: dict[str, dict[str, bytes]] = {}  # race id -> part -> data
        self._listeners: set[asyncio.Queue[bytes]] = set()

    # ----- accounts

    async def add_account(self, account: Account) -> bool:
        """Store ``account``; False (and nothing stored) if its name is taken."""
        key = account.name.casefold()
        if key in self._by_name:
            return False
        self._accounts[account.id] = account
        self._by_name[key] = account.id
        self._by_token[account.token_hash] = account.id
        return True

    async def account_by_id(self, account_id: str) -> Account | None:
        return self._accounts.get(account_id)

    async def account_by_name(self, name: str) -> Account | None:
        aid = self._by_name.get(name.casefold())
        return self._accounts[aid] if aid else None

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        aid = self._by_token.get(token_hash)
        return self._accounts[aid] if aid else None

    # ----- records

    async def save_record(self, record: dict[str, Any]) -> None:
        self._records[record["id"]] = record
        while len(self._records) > self._keep:
            self._records.popitem(last=False)

    async def record(self, race_id: str) -> dict[str, Any] | None:
        return self._records.get(race_id)

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        if n <= 0:
            return []
        return list(self._records.values())[-n:][::-1]

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

    # ----- live races

    async def log_append(self, race_id: str, entry: dict[str, Any]) -> None:
        self._logs.setdefault(race_id, []).append(pack(entry))
        self._live.add(race_id)

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        return [unpack(e) for e in self._logs.get(race_id, [])]

    async def log_drop(self, race_id: str) -> None:
        self._logs.pop(race_id, None)
        self._meta.pop(race_id, None)
        self._live.discard(race_id)

    async def live_races(self) -> list[str]:
        return sorted(self._live)

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None:
        self._meta[race_id] = pack(meta)
        self._live.add(race_id)

    async def race_meta(self, race_id: str) -> dict[str, Any] | None:
        data = self._meta.get(race_id)
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

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        return None


def open_store(redis_url: str | None, keep_records: int = 1_000) -> Store:
    """The store a server runs on: Redis at ``redis_url`` if given, else in memory."""
    if redis_url:
        from .redis_store import RedisStore  # imported only when asked: the memory store needs no redis

        return RedisStore(redis_url, keep_records=keep_records)
    return MemoryStore(keep_records)
