"""The Redis store: accounts, records, leaderboards, ratings and live race logs in one Redis.

Several server nodes may share it; it survives server restarts (and Redis restarts, as far
as Redis's own persistence goes). Semantics are those of :class:`server.store.Store`; the
contract suite ``tests/server/test_store.py`` checks them against :class:`MemoryStore`.

Key layout (every key starts with ``prefix``, "terrace:" by default; values of records,
log entries, meta and ratings are msgpack):

=====================================  ======  ==================================================
key                                    type    content
=====================================  ======  ==================================================
``account:{id}``                       hash    id, name, kind, token_hash, created_at
``account-name:{casefolded name}``     string  account id; written with SET NX, so two nodes
                                               cannot both register a name
``account-token:{token hash}``         string  account id
``record:{race id}``                   string  the finished race record
``records``                            zset    race ids of kept records, score = save sequence;
                                               trimmed to ``keep_records``, evicted records deleted
``record-seq``                         string  counter behind the ``records`` scores
``board:{board}``                      zset    member -> score; ZADD (GT / LT) or ZINCRBY,
                                               EXPIRE for boards with a ttl
``rating:{pool}:{variant}``            hash    player id -> [mu, sigma]
``log:{race id}``                      stream  one entry per move, field ``e``; XADD / XRANGE
``meta:{race id}``                     string  what a restarted server needs to rebuild the race
``live``                               set     ids of the races with a log or meta
``lease:{race id}``                    string  the public URL of the node that owns the race; SET NX
                                               PX ttl, renewed by its owner (compare and PEXPIRE)
``race-summary``                       hash    race id -> the race's latest summary (every node's
                                               lobby list)
``race-standings``                     hash    race id -> the race's latest standings (spectators
                                               on other nodes start from them)
``events``                             channel pub/sub: race events of each owner, forwarded by the
                                               other nodes to their spectators and subscribers
=====================================  ======  ==================================================

Multi-key writes are atomic (Lua scripts or MULTI/EXEC). The record script touches
``record:{id}`` keys it computes, so this layout is for one Redis, not Redis Cluster.

Any connection failure (refused, reset, timeout, a loading or read-only server) surfaces as
:class:`server.store.StoreDown`. The client reconnects by itself: once Redis is back, the same
store works again. A command is retried once after a dropped connection, so an append whose
answer was lost may be applied twice; log entries should carry a sequence number for replay.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from contextlib import contextmanager
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from .store import Account, BoardMode, StoreDown, check_board_put, pack, unpack

# KEYS: name index, account hash, token index. ARGV: id, then hash field/value pairs.
_ADD_ACCOUNT = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
redis.call('SET', KEYS[3], ARGV[1])
return 1
"""

# KEYS: record, recent zset, sequence. ARGV: id, data, keep, record key prefix.
_SAVE_RECORD = """
redis.call('SET', KEYS[1], ARGV[2])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if extra > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do
    redis.call('DEL', ARGV[4] .. id)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
return extra
"""

# KEYS: lease. ARGV: node, ttl ms. Take it if free or already ours.
_LEASE_TAKE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: lease. ARGV: node, ttl ms (ttl 0: release).
_LEASE_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) == 0 then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""

_DOWN = (rexc.ConnectionError, rexc.TimeoutError, rexc.ReadOnlyError, OSError)
_LOG_PAGE = 1_000


@contextmanager
def _guard() -> Iterator[None]:
    """Turn "cannot reach Redis" into :class:`StoreDown`; other errors are bugs and pass through."""
    try:
        yield
    except _DOWN as e:
        raise StoreDown(f"redis: {e}") from e


def _s(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _b(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


class RedisStore:
    """:class:`server.store.Store` on ``redis.asyncio``; connects lazily, reconnects by itself."""

    def __init__(
        self,
        url: str,
        keep_records: int = 1_000,
        prefix: str = "terrace:",
        connect_timeout: float = 2.0,
        timeout: float = 5.0,
    ) -> None:
        self._p = prefix
        self._keep = keep_records
        self._r = aioredis.Redis.from_url(
            url,
            decode_responses=False,
            socket_connect_timeout=connect_timeout,
            socket_timeout=timeout,
            # One quick retry: enough to replace a connection a Redis restart broke, not so many
            # that a caller waits seconds to learn the store is down.
            retry=Retry(ExponentialBackoff(cap=0.05, base=0.01), retries=1),
        )
        self._add_account = self._r.register_script(_ADD_ACCOUNT)
        self._save_record = self._r.register_script(_SAVE_RECORD)
        self._lease_take = self._r.register_script(_LEASE_TAKE)
        self._lease_renew = self._r.register_script(_LEASE_RENEW)

    def _k(self, *parts: str) -> str:
        return self._p + ":".join(parts)

    # ----- accounts

    async def add_account(self, account: Account) -> bool:
        fields = {
            "id": account.id,
            "name": account.name,
            "kind": account.kind,
            "token_hash": account.token_hash,
            "created_at": str(account.created_at),
        }
        keys = [
            self._k("account-name", account.name.casefold()),
            self._k("account", account.id),
            self._k("account-token", account.token_hash),
        ]
        args = [account.id, *(x for kv in fields.items() for x in kv)]
        with _guard():
            return bool(await self._add_account(keys=keys, args=args))

    async def account_by_id(self, account_id: str) -> Account | None:
        with _guard():
            raw: dict[bytes | str, bytes | str] = await self._r.hgetall(self._k("account", account_id))
        if not raw:
            return None
        f = {_s(k): _s(v) for k, v in raw.items()}
        return Account(f["id"], f["name"], f["kind"], f["token_hash"], int(f["created_at"]))

    async def _account_by_index(self, key: str) -> Account | None:
        with _guard():
            aid: bytes | str | None = await self._r.get(key)
        return None if aid is None else await self.account_by_id(_s(aid))

    async def account_by_name(self, name: str) -> Account | None:
        return await self._account_by_index(self._k("account-name", name.casefold()))

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        return await self._account_by_index(self._k("account-token", token_hash))

    # ----- records

    async def save_record(self, record: dict[str, Any]) -> None:
        rid = str(record["id"])
        keys = [self._k("record", rid), self._k("records"), self._k("record-seq")]
        with _guard():
            await self._save_record(keys=keys, args=[rid, pack(record), self._keep, self._k("record", "")])

    async def record(self, race_id: str) -> dict[str, Any] | None:
        with _guard():
            data: bytes | str | None = await self._r.get(self._k("record", race_id))
        return None if data is None else dict(unpack(_b(data)))

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        if n <= 0:
            return []
        with _guard():
            ids: list[Any] = await self._r.zrange(self._k("records"), 0, n - 1, desc=True)
            if not ids:
                return []
            datas: list[bytes | str | None] = await self._r.mget([self._k("record", _s(i)) for i in ids])
        return [dict(unpack(_b(d))) for d in datas if d is not None]

    # ----- boards

    async def board_put(
        self, board: str, member: str, score: float, mode: BoardMode = "set", ttl: int | None = None
    ) -> bool:
        check_board_put(mode, score)
        key = self._k("board", board)
        with _guard():
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
        with _guard():
            rows: list[Any] = await self._r.zrange(
                self._k("board", board), start, start + count - 1, desc=descending, withscores=True
            )
        return [(_s(m), float(s)) for m, s in rows]

    async def board_rank(self, board: str, member: str, descending: bool) -> int | None:
        key = self._k("board", board)
        with _guard():
            rank: Any = await (self._r.zrevrank(key, member) if descending else self._r.zrank(key, member))
        return None if rank is None else int(rank)

    async def board_score(self, board: str, member: str) -> float | None:
        with _guard():
            score: float | None = await self._r.zscore(self._k("board", board), member)
        return None if score is None else float(score)

    async def board_size(self, board: str) -> int:
        with _guard():
            n: int = await self._r.zcard(self._k("board", board))
        return n

    async def board_better(self, board: str, score: float, descending: bool) -> int:
        low, high = (f"({score!r}", "+inf") if descending else ("-inf", f"({score!r}")
        with _guard():
            n: int = await self._r.zcount(self._k("board", board), low, high)
        return n

    # ----- ratings

    async def rating(self, pool: str, variant: str, player_id: str) -> tuple[float, float] | None:
        with _guard():
            data: bytes | str | None = await self._r.hget(self._k("rating", pool, variant), player_id)
        if data is None:
            return None
        mu, sigma = unpack(_b(data))
        return float(mu), float(sigma)

    async def set_ratings(self, pool: str, variant: str, ratings: dict[str, tuple[float, float]]) -> None:
        if not ratings:
            return
        mapping: dict[Any, Any] = {
            pid: pack([float(mu), float(sigma)]) for pid, (mu, sigma) in ratings.items()
        }
        with _guard():
            await self._r.hset(self._k("rating", pool, variant), mapping=mapping)  # one command: atomic

    # ----- live races

    async def log_append(self, race_id: str, entry: dict[str, Any]) -> None:
        data = pack(entry)
        with _guard():
            async with self._r.pipeline(transaction=True) as p:
                p.xadd(self._k("log", race_id), {"e": data})
                p.sadd(self._k("live"), race_id)
                await p.execute()

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        key = self._k("log", race_id)
        entries: list[dict[str, Any]] = []
        low = "-"
        with _guard():
            while True:
                page: list[Any] | None = await self._r.xrange(key, min=low, max="+", count=_LOG_PAGE)
                page = page or []
                entries.extend(dict(unpack(fields[b"e"])) for _, fields in page)
                if len(page) < _LOG_PAGE:
                    return entries
                low = "(" + _s(page[-1][0])

    async def log_drop(self, race_id: str) -> None:
        with _guard():
            async with self._r.pipeline(transaction=True) as p:
                p.delete(self._k("log", race_id), self._k("meta", race_id))
                p.srem(self._k("live"), race_id)
                await p.execute()

    async def live_races(self) -> list[str]:
        with _guard():
            ids: set[bytes | str] = await self._r.smembers(self._k("live"))
        return sorted(_s(i) for i in ids)

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None:
        data = pack(meta)
        with _guard():
            async with self._r.pipeline(transaction=True) as p:
                p.set(self._k("meta", race_id), data)
                p.sadd(self._k("live"), race_id)
                await p.execute()

    async def race_meta(self, race_id: str) -> dict[str, Any] | None:
        with _guard():
            data: bytes | str | None = await self._r.get(self._k("meta", race_id))
        return None if data is None else dict(unpack(_b(data)))

    # ----- nodes

    async def lease_take(self, race_id: str, node: str, ttl: float) -> bool:
        with _guard():
            return bool(await self._lease_take(keys=[self._k("lease", race_id)], args=[node, _ms(ttl)]))

    async def lease_renew(self, race_id: str, node: str, ttl: float) -> bool:
        with _guard():
            return bool(await self._lease_renew(keys=[self._k("lease", race_id)], args=[node, _ms(ttl)]))

    async def lease_owner(self, race_id: str) -> str | None:
        with _guard():
            owner: bytes | str | None = await self._r.get(self._k("lease", race_id))
        return None if owner is None else _s(owner)

    async def lease_release(self, race_id: str, node: str) -> None:
        with _guard():
            await self._lease_renew(keys=[self._k("lease", race_id)], args=[node, 0])

    async def share_race(self, race_id: str, part: str, data: dict[str, Any] | None) -> None:
        with _guard():
            if data is None:
                async with self._r.pipeline(transaction=True) as p:
                    p.hdel(self._k("race-summary"), race_id)
                    p.hdel(self._k("race-standings"), race_id)
                    await p.execute()
            else:
                await self._r.hset(self._k("race-" + part), race_id, pack(data))

    async def shared_race(self, race_id: str) -> dict[str, dict[str, Any]]:
        with _guard():
            async with self._r.pipeline(transaction=False) as p:
                p.hget(self._k("race-summary"), race_id)
                p.hget(self._k("race-standings"), race_id)
                summary, standings = await p.execute()
        out: dict[str, dict[str, Any]] = {}
        if summary is not None:
            out["summary"] = dict(unpack(_b(summary)))
        if standings is not None:
            out["standings"] = dict(unpack(_b(standings)))
        return out

    async def shared_races(self) -> list[dict[str, Any]]:
        with _guard():
            raw: dict[Any, Any] = await self._r.hgetall(self._k("race-summary"))
            ids = sorted(_s(i) for i in raw)
            if not ids:
                return []
            owners: list[Any] = await self._r.mget([self._k("lease", i) for i in ids])
        by_id = {_s(k): v for k, v in raw.items()}
        return [dict(unpack(_b(by_id[i]))) for i, owner in zip(ids, owners, strict=True) if owner is not None]

    async def publish(self, event: dict[str, Any]) -> None:
        with _guard():
            await self._r.publish(self._k("events"), pack(event))

    async def events(self) -> AsyncGenerator[dict[str, Any], None]:
        with _guard():
            async with self._r.pubsub() as p:
                await p.subscribe(self._k("events"))
                yield {}  # subscribed: nothing published from here on is missed
                while True:
                    msg: Any = await p.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if msg is not None and msg.get("type") == "message":
                        yield dict(unpack(_b(msg["data"])))

    # ----- lifecycle

    async def ping(self) -> None:
        with _guard():
            await self._r.ping()

    async def close(self) -> None:
        await self._r.aclose()
