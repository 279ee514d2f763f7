"""The Redis store: accounts, records, leaderboards, ratings and live race logs in one Redis.

Several server nodes may share it; it survives server restarts (and Redis restarts, as far
as Redis's own persistence goes). Semantics are those of :class:`server.store.base.Store`; the
contract suite ``tests/server/test_store.py`` checks them against :class:`MemoryStore`.

Key layout. Every key starts with ``prefix`` ("terrace:" by default); ``<...>`` stands for a
value; braces are literal **hash tags**: Redis Cluster puts keys with the same tag in one
hash slot, so every script and transaction below touches one slot, and the same layout runs
on one Redis and on a cluster. Values of records, log entries, meta, sessions and ratings are
msgpack.

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``{acct}:account:<id>``                    hash    id, name, kind, token_hash, created_at
``{acct}:account-name:<casefolded name>``  string  account id; SET NX in the script that adds an
                                                   account: two nodes cannot both take a name
``{acct}:account-look:<name key>``         string  account id, one per look-alike key of the name
                                                   (server.players.names): ``AIice`` cannot join ``Alice``
``{acct}:account-token:<token hash>``      string  account id
``session:<token hash>``                   string  who the session is; expires (PX)
``{rec}:record:<race id>``                 string  the finished race record
``{rec}:records``                          zset    race ids of kept records, score = save
                                                   sequence; trimmed to ``keep_records``
``{rec}:record-seq``                       string  counter behind the ``records`` scores
``{rec}:analysis:<race id>``               string  the race's hindsight analysis (server.features.hindsight);
                                                   expires after ``ANALYSIS_TTL``
``{lb}:board:<board>``                     zset    member -> score; ZADD (GT / LT) or ZINCRBY,
                                                   EXPIRE for boards with a ttl
``{lb}:rating:<pool>:<variant>``           hash    player id -> [mu, sigma]
``{lb}:applied:<race id>``                 string  the race is on the boards and ratings (kept
                                                   30 days): a retried apply changes nothing
``race:{<race id>}:log``                   stream  one entry per move, field ``e``; refused while
                                                   another node holds the race's lease
``race:{<race id>}:meta``                  string  what a restarted node needs to rebuild the race
``race:{<race id>}:waiting``               string  a race still waiting for players, as it last
                                                   changed
``race:{<race id>}:lease``                 string  the public URL of the node that owns the race;
                                                   SET PX ttl, renewed by its owner
``live``                                   set     ids of the races with a log, meta or waiting
                                                   state (added before them, removed after them)
``{mm}:people:<queue>``, ``{mm}:house:<queue>``
                                           zset    who waits in a matchmaking queue (people,
                                                   house players), score = ms queued (Redis TIME)
``{mm}:players``                           hash    player id -> who waits
``{mm}:queues``                            set     the queues someone may wait in
``history:{<player id>}``                  list    the player's rated races, newest first (rating
                                                   after each; LTRIM to the newest 100)
``{arena}:arena:<id>``                     string  an arena's spec (terrace.race.arena); SET NX
``{arena}:arenas``                         zset    arena ids, score = start (unix ms)
``{arena}:players:<id>``                   hash    player id -> who joined the arena
``{arena}:results:<id>``                   hash    race id -> the race's places; HSETNX: once
``{shared}:race-summary``                  hash    race id -> the race's latest summary
``{shared}:race-standings``                hash    race id -> the race's latest standings
``events``                                 channel pub/sub: race events of each owner, forwarded
                                                   by the other nodes to their audiences
=========================================  ======  ==============================================

The tags that are one fixed word (``{acct}``, ``{rec}``, ``{lb}``, ``{mm}``, ``{shared}``) put
all of their keys on one cluster node: they are small and each is written at most a few times
per finished race or queued player. What grows with play, the races' logs, spreads over the
cluster by race id.

On a cluster (``cluster=True``) and with ``replica_acks`` > 0, a log append is followed, on the
same connection to the race's master, by WAIT for that many replicas: a move is answered only
once a replica has its log entry, so a failover (a replica promoted when its master dies) loses
no acknowledged move. If fewer replicas answer within a second, the append is answered
``store_down`` (it may be in the log; the player sends the same ``seq`` again).

Any connection failure (refused, reset, timeout, a loading or read-only server) surfaces as
:class:`server.store.StoreDown`. The client reconnects by itself: once Redis is back, the same
store works again. A command is retried once after a dropped connection, so an append whose
answer was lost may be applied twice; log entries should carry a sequence number for replay.

Kept as one module (about 700 lines, a quarter of it this docstring): it is one implementation of one
interface, every method a few lines against the key layout above, which reads best in one place;
splitting it by topic would split the key layout from the code that writes it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rexc
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from server.players import names

from .acked import AckedWrites, EvalScript, Script
from .base import (
    ANALYSIS_TTL,
    APPLIED_TTL,
    Account,
    BoardMode,
    BoardPut,
    NotOwner,
    RatingChange,
    RatingsMoved,
    StoreDown,
    check_board_put,
)
from .batched import BatchedScript
from .codec import pack, unpack
from .scripts import (
    ADD_ACCOUNT,
    APPLY_RACE,
    LEASE_RENEW,
    LEASE_TAKE,
    LOG_APPEND,
    LOG_APPEND_INDEXED,
    QUEUE_MATCH,
    QUEUE_PUT,
    QUEUE_TAKE,
    SAVE_RECORD,
)

_DOWN = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.ReadOnlyError,
    rexc.ClusterError,  # CLUSTERDOWN, or "TTL exhausted": redirects chased while slots move in a failover
    rexc.TryAgainError,
    rexc.MasterDownError,
    rexc.RedisClusterException,  # no node of the cluster answers
    OSError,
)
_LOG_PAGE = 1_000
MAX_CONNECTIONS = 100  # connections to one Redis per server; more requests at once wait for one


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


def _pack_rating(rating: tuple[float, float]) -> bytes:
    """How a rating is kept (and compared byte for byte by the apply script)."""
    return pack([float(rating[0]), float(rating[1])])


class RedisStore:
    """:class:`server.store.base.Store` on ``redis.asyncio``; connects lazily, reconnects by itself."""

    def __init__(
        self,
        url: str,
        keep_records: int = 1_000,
        prefix: str = "terrace:",
        connect_timeout: float = 2.0,
        timeout: float = 5.0,
        cluster: bool = False,
        replica_acks: int = 0,
    ) -> None:
        self._p = prefix
        self._keep = keep_records
        options: dict[str, Any] = dict(
            decode_responses=False,
            socket_connect_timeout=connect_timeout,
            socket_timeout=timeout,
            # One quick retry: enough to replace a connection a Redis restart broke, not so many
            # that a caller waits seconds to learn the store is down.
            retry=Retry(ExponentialBackoff(cap=0.05, base=0.01), retries=1),
        )
        self._pool: aioredis.BlockingConnectionPool | None = None
        if cluster:
            self._r: aioredis.Redis | RedisCluster = RedisCluster.from_url(url, **options)
        else:
            # A request past the pool's connections waits for one (up to the timeout) instead of
            # failing with "Too many connections": a burst of hellos is no store outage.
            self._pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=MAX_CONNECTIONS, timeout=timeout, **options
            )
            self._r = aioredis.Redis(connection_pool=self._pool)
        self._acked = AckedWrites(self._r, url, replica_acks) if replica_acks > 0 else None
        self._add_account = self._script(ADD_ACCOUNT, cluster)
        self._save_record = self._script(SAVE_RECORD, cluster)
        self._lease_take = self._script(LEASE_TAKE, cluster)
        self._lease_renew = self._script(LEASE_RENEW, cluster)
        self._apply_race = self._script(APPLY_RACE, cluster)
        self._log_append = self._script(LOG_APPEND, cluster)
        # one Redis: a move's append (index, lease check, log) is one round trip, shared by the
        # appends of every player that come while one is on its way
        self._log_append_indexed = None if cluster else self._script(LOG_APPEND_INDEXED, cluster)
        self._log_append_batched = (
            None if cluster or self._acked is not None else BatchedScript(self._r, LOG_APPEND_INDEXED)  # type: ignore[arg-type]
        )
        self._queue_put = self._script(QUEUE_PUT, cluster)
        self._queue_take = self._script(QUEUE_TAKE, cluster)
        self._queue_match = self._script(QUEUE_MATCH, cluster)

    def _script(self, text: str, cluster: bool) -> Script:
        # On a cluster each call sends the script (EVAL): concurrent first calls of EVALSHA there
        # load the script concurrently, which redis-py's cluster client does not survive.
        return EvalScript(self._r, text) if cluster else self._r.register_script(text)

    def _k(self, *parts: str) -> str:
        return self._p + ":".join(parts)

    def _race(self, race_id: str, part: str) -> str:
        """A key of one race: its log, meta and lease share the race's hash slot."""
        return f"{self._p}race:{{{race_id}}}:{part}"

    def _tag(self, tag: str, *parts: str) -> str:
        """A key in the hash slot of ``tag``: the keys one script or transaction touches share one."""
        return self._p + "{" + tag + "}:" + ":".join(parts)

    def _lb(self, *parts: str) -> str:
        """A key of the boards and ratings: all in one hash slot, so one script updates them."""
        return self._tag("lb", *parts)

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
            self._tag("acct", "account", account.id),
            self._tag("acct", "account-token", account.token_hash),
            *self._name_keys(account.name),
        ]
        args = [account.id, *(x for kv in fields.items() for x in kv)]
        with _guard():
            return bool(await self._add_account(keys=keys, args=args))

    async def account_by_id(self, account_id: str) -> Account | None:
        with _guard():
            raw: dict[bytes | str, bytes | str] = await self._r.hgetall(
                self._tag("acct", "account", account_id)
            )
        if not raw:
            return None
        f = {_s(k): _s(v) for k, v in raw.items()}
        return Account(f["id"], f["name"], f["kind"], f["token_hash"], int(f["created_at"]))

    async def _account_by_index(self, key: str) -> Account | None:
        with _guard():
            aid: bytes | str | None = await self._r.get(key)
        return None if aid is None else await self.account_by_id(_s(aid))

    def _name_keys(self, name: str) -> list[str]:
        return [
            self._tag("acct", "account-name", name.casefold()),
            *(self._tag("acct", "account-look", k) for k in names.keys(name)),
        ]

    async def account_by_name(self, name: str) -> Account | None:
        """The account named ``name``, or one whose name looks like it (server.players.names)."""
        with _guard():
            found: list[bytes | str | None] = await self._r.mget(self._name_keys(name))
        aid = next((a for a in found if a is not None), None)
        return None if aid is None else await self.account_by_id(_s(aid))

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        return await self._account_by_index(self._tag("acct", "account-token", token_hash))

    # ----- sessions

    async def session_put(self, session_hash: str, data: dict[str, Any], ttl: float) -> None:
        with _guard():
            await self._r.set(self._k("session", session_hash), pack(data), px=_ms(ttl))

    async def session_get(self, session_hash: str) -> dict[str, Any] | None:
        with _guard():
            data: bytes | str | None = await self._r.get(self._k("session", session_hash))
        return None if data is None else dict(unpack(_b(data)))

    # ----- records

    async def save_record(self, record: Mapping[str, Any]) -> None:
        rid = str(record["id"])
        keys = [self._tag("rec", "record", rid), self._tag("rec", "records"), self._tag("rec", "record-seq")]
        with _guard():
            await self._save_record(
                keys=keys, args=[rid, pack(record), self._keep, self._tag("rec", "record", "")]
            )

    async def record(self, race_id: str) -> dict[str, Any] | None:
        with _guard():
            data: bytes | str | None = await self._r.get(self._tag("rec", "record", race_id))
        return None if data is None else dict(unpack(_b(data)))

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        if n <= 0:
            return []
        with _guard():
            ids: list[Any] = await self._r.zrange(self._tag("rec", "records"), 0, n - 1, desc=True)
            if not ids:
                return []
            datas: list[bytes | str | None] = await self._r.mget(
                [self._tag("rec", "record", _s(i)) for i in ids]
            )
        return [dict(unpack(_b(d))) for d in datas if d is not None]

    # ----- hindsight analyses

    async def save_analysis(self, race_id: str, analysis: Mapping[str, Any]) -> None:
        with _guard():
            await self._r.set(self._tag("rec", "analysis", race_id), pack(analysis), ex=ANALYSIS_TTL)

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        with _guard():
            data: bytes | str | None = await self._r.get(self._tag("rec", "analysis", race_id))
        return None if data is None else dict(unpack(_b(data)))

    # ----- boards

    async def board_put(
        self, board: str, member: str, score: float, mode: BoardMode = "set", ttl: int | None = None
    ) -> bool:
        check_board_put(mode, score)
        key = self._lb("board", board)
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
                self._lb("board", board), start, start + count - 1, desc=descending, withscores=True
            )
        return [(_s(m), float(s)) for m, s in rows]

    async def board_rank(self, board: str, member: str, descending: bool) -> int | None:
        key = self._lb("board", board)
        with _guard():
            rank: Any = await (self._r.zrevrank(key, member) if descending else self._r.zrank(key, member))
        return None if rank is None else int(rank)

    async def board_score(self, board: str, member: str) -> float | None:
        with _guard():
            score: float | None = await self._r.zscore(self._lb("board", board), member)
        return None if score is None else float(score)

    async def board_size(self, board: str) -> int:
        with _guard():
            n: int = await self._r.zcard(self._lb("board", board))
        return n

    async def board_better(self, board: str, score: float, descending: bool) -> int:
        low, high = (f"({score!r}", "+inf") if descending else ("-inf", f"({score!r}")
        with _guard():
            n: int = await self._r.zcount(self._lb("board", board), low, high)
        return n

    # ----- ratings

    async def rating(self, pool: str, variant: str, player_id: str) -> tuple[float, float] | None:
        with _guard():
            data: bytes | str | None = await self._r.hget(self._lb("rating", pool, variant), player_id)
        if data is None:
            return None
        mu, sigma = unpack(_b(data))
        return float(mu), float(sigma)

    async def set_ratings(self, pool: str, variant: str, ratings: dict[str, tuple[float, float]]) -> None:
        if not ratings:
            return
        mapping: dict[Any, Any] = {pid: _pack_rating(r) for pid, r in ratings.items()}
        with _guard():
            await self._r.hset(self._lb("rating", pool, variant), mapping=mapping)  # one command: atomic

    async def apply_race(
        self, race_id: str, puts: Sequence[BoardPut], ratings: RatingChange | None = None
    ) -> list[bool] | None:
        for put in puts:
            check_board_put(put.mode, put.score)
        rating_key = self._lb("rating", ratings.pool, ratings.variant) if ratings else self._lb("rating")
        keys = [self._lb("applied", race_id), rating_key, *(self._lb("board", p.board) for p in puts)]
        args: list[Any] = [APPLIED_TTL, len(puts)]
        for p in puts:
            args += [p.member, repr(float(p.score)), p.mode, "" if p.ttl is None else p.ttl]
        for pid, after in (ratings.after if ratings else {}).items():
            before = ratings.before.get(pid) if ratings else None
            args += [pid, b"" if before is None else _pack_rating(before), _pack_rating(after)]
        with _guard():
            out: Any = await self._apply_race(keys=keys, args=args)
        if out == -1:
            return None
        if out == -2:
            raise RatingsMoved(race_id)
        return [bool(c) for c in out]

    # ----- matchmaking

    def _queue_keys(self, queue: str) -> list[str]:
        return [
            self._p + "{mm}:people:" + queue,
            self._p + "{mm}:house:" + queue,
            self._p + "{mm}:players",
            self._p + "{mm}:queues",
        ]

    async def queue_put(self, queue: str, player: dict[str, Any], house: bool) -> int:
        args: list[Any] = [str(player["id"]), pack(player), "1" if house else "0", queue]
        with _guard():
            return int(await self._queue_put(keys=self._queue_keys(queue), args=args))

    async def queue_take(self, queue: str, player_id: str) -> bool:
        with _guard():
            return bool(await self._queue_take(keys=self._queue_keys(queue), args=[player_id]))

    async def queue_match(self, queue: str, seats: int, wait: float) -> list[dict[str, Any]] | None:
        with _guard():
            group: list[Any] = await self._queue_match(
                keys=self._queue_keys(queue), args=[seats, int(wait * 1000), queue]
            )
        return [dict(unpack(_b(p))) for p in group] or None

    async def queues(self) -> list[str]:
        with _guard():
            names: set[bytes | str] = await self._r.smembers(self._p + "{mm}:queues")
        return sorted(_s(n) for n in names)

    # ----- arenas

    async def arena_create(self, spec: dict[str, Any]) -> bool:
        arena_id = str(spec["id"])
        with _guard():
            if not await self._r.set(self._tag("arena", "arena", arena_id), pack(spec), nx=True):
                return False
            await self._r.zadd(self._tag("arena", "arenas"), {arena_id: int(spec["starts_ms"])})
        return True

    async def arena_get(self, arena_id: str) -> dict[str, Any] | None:
        with _guard():
            raw = await self._r.get(self._tag("arena", "arena", arena_id))
        return None if raw is None else dict(unpack(_b(raw)))

    async def arena_list(self) -> list[dict[str, Any]]:
        with _guard():
            ids: list[Any] = await self._r.zrange(self._tag("arena", "arenas"), 0, -1)
            raws = await self._r.mget([self._tag("arena", "arena", _s(i)) for i in ids]) if ids else []
        specs = [dict(unpack(_b(r))) for r in raws if r is not None]
        return sorted(specs, key=lambda s: (s["starts_ms"], s["id"]))

    async def arena_join(self, arena_id: str, player: dict[str, Any]) -> None:
        with _guard():
            await self._r.hset(self._tag("arena", "players", arena_id), str(player["id"]), pack(player))

    async def arena_leave(self, arena_id: str, player_id: str) -> bool:
        with _guard():
            return bool(await self._r.hdel(self._tag("arena", "players", arena_id), player_id))

    async def arena_players(self, arena_id: str) -> list[dict[str, Any]]:
        with _guard():
            raw: list[Any] = await self._r.hvals(self._tag("arena", "players", arena_id))
        return [dict(unpack(_b(p))) for p in raw]

    async def arena_result(self, arena_id: str, result: dict[str, Any]) -> bool:
        key = self._tag("arena", "results", arena_id)
        with _guard():
            return bool(await self._r.hsetnx(key, str(result["race"]), pack(result)))

    async def arena_results(self, arena_id: str) -> list[dict[str, Any]]:
        with _guard():
            raw: list[Any] = await self._r.hvals(self._tag("arena", "results", arena_id))
        return [dict(unpack(_b(r))) for r in raw]

    # ----- rating history

    async def history_add(self, player_id: str, entry: dict[str, Any], keep: int) -> None:
        key = f"{self._p}history:{{{player_id}}}"
        with _guard():
            async with self._r.pipeline(transaction=True) as tx:
                tx.lpush(key, pack(entry))
                tx.ltrim(key, 0, keep - 1)
                await tx.execute()

    async def history(self, player_id: str, n: int) -> list[dict[str, Any]]:
        with _guard():
            raw: list[Any] = await self._r.lrange(f"{self._p}history:{{{player_id}}}", 0, n - 1)
        return [dict(unpack(_b(e))) for e in raw]

    # ----- live races

    async def log_append(self, race_id: str, entry: dict[str, Any], owner: str | None = None) -> None:
        keys = [self._race(race_id, "log"), self._race(race_id, "lease")]
        args: list[Any] = [owner or "", pack(entry)]
        if self._log_append_indexed is not None:
            keys.append(self._k("live"))
            args.append(race_id)
            with _guard():
                if self._acked is not None:
                    holder = await self._acked.run(self._log_append_indexed, keys, args)
                elif self._log_append_batched is not None:
                    holder = await self._log_append_batched(keys, args)
                else:
                    holder = await self._log_append_indexed(keys=keys, args=args)
            if holder:
                raise NotOwner(race_id, _s(holder))
            return
        with _guard():
            await self._r.sadd(self._k("live"), race_id)  # the index first: never a lost race
            if self._acked is not None:
                holder = await self._acked.run(self._log_append, keys, args)
            else:
                holder = await self._log_append(keys=keys, args=args)
        if holder:
            raise NotOwner(race_id, _s(holder))

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        key = self._race(race_id, "log")
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
            async with self._r.pipeline(transaction=False) as p:  # the race's keys, then the index
                p.delete(
                    self._race(race_id, "log"), self._race(race_id, "meta"), self._race(race_id, "waiting")
                )
                p.srem(self._k("live"), race_id)
                await p.execute()

    async def live_races(self) -> list[str]:
        with _guard():
            ids: set[bytes | str] = await self._r.smembers(self._k("live"))
        return sorted(_s(i) for i in ids)

    async def save_race_meta(self, race_id: str, meta: dict[str, Any]) -> None:
        await self._save(race_id, "meta", meta)

    async def race_meta(self, race_id: str) -> dict[str, Any] | None:
        return await self._load(race_id, "meta")

    async def save_race_waiting(self, race_id: str, meta: dict[str, Any]) -> None:
        await self._save(race_id, "waiting", meta)

    async def race_waiting(self, race_id: str) -> dict[str, Any] | None:
        return await self._load(race_id, "waiting")

    async def _save(self, race_id: str, part: str, meta: dict[str, Any]) -> None:
        data = pack(meta)
        with _guard():
            async with self._r.pipeline(transaction=False) as p:  # the index first: never a lost race
                p.sadd(self._k("live"), race_id)
                p.set(self._race(race_id, part), data)
                await p.execute()

    async def _load(self, race_id: str, part: str) -> dict[str, Any] | None:
        with _guard():
            data: bytes | str | None = await self._r.get(self._race(race_id, part))
        return None if data is None else dict(unpack(_b(data)))

    # ----- nodes

    async def lease_take(self, race_id: str, node: str, ttl: float) -> bool:
        with _guard():
            return bool(await self._lease_take(keys=[self._race(race_id, "lease")], args=[node, _ms(ttl)]))

    async def lease_renew(self, race_id: str, node: str, ttl: float) -> bool:
        with _guard():
            return bool(await self._lease_renew(keys=[self._race(race_id, "lease")], args=[node, _ms(ttl)]))

    async def lease_owner(self, race_id: str) -> str | None:
        with _guard():
            owner: bytes | str | None = await self._r.get(self._race(race_id, "lease"))
        return None if owner is None else _s(owner)

    async def lease_release(self, race_id: str, node: str) -> None:
        with _guard():
            await self._lease_renew(keys=[self._race(race_id, "lease")], args=[node, 0])

    async def share_race(self, race_id: str, part: str, data: dict[str, Any] | None) -> None:
        with _guard():
            if data is None:
                async with self._r.pipeline(transaction=True) as p:
                    p.hdel(self._tag("shared", "race-summary"), race_id)
                    p.hdel(self._tag("shared", "race-standings"), race_id)
                    await p.execute()
            else:
                await self._r.hset(self._tag("shared", "race-" + part), race_id, pack(data))

    async def shared_race(self, race_id: str) -> dict[str, dict[str, Any]]:
        with _guard():
            async with self._r.pipeline(transaction=False) as p:
                p.hget(self._tag("shared", "race-summary"), race_id)
                p.hget(self._tag("shared", "race-standings"), race_id)
                summary, standings = await p.execute()
        out: dict[str, dict[str, Any]] = {}
        if summary is not None:
            out["summary"] = dict(unpack(_b(summary)))
        if standings is not None:
            out["standings"] = dict(unpack(_b(standings)))
        return out

    async def shared_races(self) -> list[dict[str, Any]]:
        with _guard():
            raw: dict[Any, Any] = await self._r.hgetall(self._tag("shared", "race-summary"))
            ids = sorted(_s(i) for i in raw)
            if not ids:
                return []
            async with self._r.pipeline(transaction=False) as p:  # one lease per race: many slots
                for i in ids:
                    p.get(self._race(i, "lease"))
                owners: list[Any] = await p.execute()
        by_id = {_s(k): v for k, v in raw.items()}
        return [dict(unpack(_b(by_id[i]))) for i, owner in zip(ids, owners, strict=True) if owner is not None]

    async def publish(self, event: dict[str, Any]) -> None:
        with _guard():
            await self._r.publish(self._k("events"), pack(event))

    async def events(self) -> AsyncGenerator[dict[str, Any], None]:
        with _guard():
            if isinstance(self._r, RedisCluster):
                await self._r.initialize()  # the slot map picks the node to listen on
            async with self._r.pubsub() as p:
                await p.subscribe(self._k("events"))
                yield {}  # subscribed: nothing published from here on is missed
                while True:
                    msg: Any = await p.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if msg is not None and msg.get("type") == "message":
                        yield dict(unpack(_b(msg["data"])))

    # ----- the daily deal

    async def daily_claim(self, key: str, data: dict[str, Any], ttl: int) -> dict[str, Any]:
        packed = pack(data)
        with _guard():
            while True:
                if await self._r.set(self._k("daily", key), packed, ex=ttl, nx=True):
                    return dict(unpack(packed))
                kept: bytes | str | None = await self._r.get(self._k("daily", key))
                if kept is not None:  # else it expired between the two: claim again
                    return dict(unpack(_b(kept)))

    async def daily_put(self, key: str, data: dict[str, Any], ttl: int) -> None:
        with _guard():
            await self._r.set(self._k("daily", key), pack(data), ex=ttl)

    async def daily_get(self, key: str) -> dict[str, Any] | None:
        with _guard():
            kept: bytes | str | None = await self._r.get(self._k("daily", key))
        return None if kept is None else dict(unpack(_b(kept)))

    # ----- lifecycle

    async def ping(self) -> None:
        """Raise StoreDown if Redis cannot be reached. On a cluster, call it before anything else
        (the server does, at start): it reads the slot map once, as redis-py's cluster client
        loses answers when many first commands race to read it."""
        with _guard():
            if isinstance(self._r, RedisCluster):
                await self._r.initialize()
            await self._r.ping()
            if self._acked is not None and not isinstance(self._r, RedisCluster):
                # every write waits for that many replicas: without them no move can be answered,
                # so the store is down for this server, whatever PING says
                replicas = int((await self._r.info("replication")).get("connected_slaves", 0))
                if replicas < self._acked.replicas:
                    raise StoreDown(
                        f"redis: {replicas} of the {self._acked.replicas} replicas that acknowledge writes connected"
                    )

    async def close(self) -> None:
        if self._acked is not None:
            await self._acked.close()
        await self._r.aclose()
        if self._pool is not None:  # a pool handed to the client is the owner's to close
            await self._pool.disconnect()
