"""The store interface: where the server keeps what outlives a connection (and, with Redis, a restart).

The :class:`Store` protocol is the one async interface the server uses; two stores
implement it and one contract test suite (``tests/server/test_store.py``) runs against both:

- :class:`server.store.memory.MemoryStore`, the embedded default: one process, everything gone on restart;
- :class:`server.store.redis.RedisStore`, shared by every node and surviving restarts.

What a store keeps:

- accounts (names unique without regard to case or look-alike characters, see
  :mod:`server.names`; found by id, name or token hash);
- finished race records, the newest ``keep_records`` of them;
- leaderboards with Redis sorted-set semantics: string members, float scores, ties ordered
  by member (ascending boards ascending by member, descending boards descending by member),
  an optional expiry for daily/weekly boards;
- sessions (by the hash of their token, with an expiry), so a session opened on one node
  is good on every node;
- OpenSkill ratings, ``(mu, sigma)`` per pool, variant and player;
- the matchmaking queues of every node: who waits for which queue, grouped into races by one
  atomic step (:meth:`Store.queue_match`), so people queued on different nodes race together;
- which finished races the boards and ratings have taken in: :meth:`Store.apply_race` applies
  a race's board puts and rating changes together, once, whatever retries follow;
- the live move log and the metadata of every running race, so a restarted server can
  rebuild its races, and races still waiting for players. A race is *live* from its first
  :meth:`Store.save_race_waiting`, :meth:`Store.save_race_meta` or :meth:`Store.log_append`
  until :meth:`Store.log_drop`, which forgets all of it;
- the daily deal's secret, seeds and attempts (:meth:`Store.daily_claim`: the first write wins).

A store that cannot be reached raises :class:`StoreDown` (and only that) so callers can
answer "store down" instead of crashing.
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

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


Rating = tuple[float, float]  # mu, sigma

APPLIED_TTL = 30 * 86_400  # seconds a race stays marked as applied: far longer than any retry
ANALYSIS_TTL = 30 * 86_400  # seconds Redis keeps a finished race's hindsight analysis


@dataclass(frozen=True)
class BoardPut:
    """One :meth:`Store.board_put`, as part of :meth:`Store.apply_race`."""

    board: str
    member: str
    score: float
    mode: BoardMode = "set"
    ttl: int | None = None


@dataclass(frozen=True)
class RatingChange:
    """One race's new ratings in a pool and variant, computed from ``before`` (None: unrated)."""

    pool: str
    variant: str
    before: dict[str, Rating | None] = field(default_factory=dict)
    after: dict[str, Rating] = field(default_factory=dict)
    # each rated player's history entry for the race (put first in their history, in the same
    # step as the ratings: a race is in a player's history exactly when it changed their rating)
    history: dict[str, dict[str, Any]] = field(default_factory=dict)
    history_keep: int = 100  # entries kept per player, newest first


class NotOwner(Exception):
    """Another node holds the race's lease: the log entry was not appended."""

    def __init__(self, race_id: str, holder: str) -> None:
        super().__init__(f"race {race_id} is {holder}'s")
        self.race_id = race_id
        self.holder = holder


class RatingsMoved(Exception):
    """A rating a :class:`RatingChange` was computed from changed meanwhile (another race rated the
    same player): nothing was applied; read the ratings again and recompute."""


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

    async def index_names(self) -> int:
        """Index the accounts made under older name keys (``server.names.KEYS_VERSION``) under
        today's, once: a name that now clashes with an older account's is refused from then on.
        Two older accounts whose names now clash both keep working (each is found by its own
        name and token); the older one holds the shared keys. Returns the accounts indexed."""
        ...

    # ----- sessions
    async def session_put(self, session_hash: str, data: dict[str, Any], ttl: float) -> None:
        """Keep a session (JSON-able ``data``: who it is) for ``ttl`` seconds from now."""
        ...

    async def session_get(self, session_hash: str) -> dict[str, Any] | None:
        """The session's data, or None if it is unknown or expired."""
        ...

    # ----- finished race records
    async def save_record(self, record: Mapping[str, Any]) -> None:
        """Keep ``record`` (keyed by ``record["id"]``); the oldest beyond ``keep_records`` go."""
        ...

    async def record(self, race_id: str) -> dict[str, Any] | None: ...

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        """The newest ``n`` records, newest first."""
        ...

    # ----- hindsight analyses of finished races (server.hindsight)
    async def save_analysis(self, race_id: str, analysis: Mapping[str, Any]) -> None:
        """Keep a finished race's analysis beside its record (it goes when the record goes, or
        after ``ANALYSIS_TTL`` seconds in Redis)."""
        ...

    async def analysis(self, race_id: str) -> dict[str, Any] | None: ...

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

    async def board_remove(self, board: str, member: str) -> bool:
        """Take ``member`` off the board; whether it was on it."""
        ...

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

    async def apply_race(
        self, race_id: str, puts: Sequence[BoardPut], ratings: RatingChange | None = None
    ) -> list[bool] | None:
        """Apply one finished race to the boards and ratings, all of it at once and only once.

        With ``ratings``, its ``history`` entries are put first in each player's history in the same
        step. Returns, for each put, whether it changed its board; None when ``race_id`` was applied
        before (nothing changes: a retry after a lost answer is harmless). Raises
        :class:`RatingsMoved` (nothing applied) when a stored rating is not ``ratings.before``.
        The race stays marked as applied for :data:`APPLIED_TTL` seconds.
        """
        ...

    # ----- matchmaking: one queue for every node
    async def queue_put(self, queue: str, player: dict[str, Any], house: bool) -> int:
        """Put ``player`` (JSON-able, with its ``id``) in ``queue``, waiting from now; ``house``:
        only to give people someone to race. Returns how many wait in that queue now."""
        ...

    async def queue_take(self, queue: str, player_id: str) -> bool:
        """Take the player out of ``queue``; False if it was not there (a match took it first)."""
        ...

    async def queue_match(self, queue: str, seats: int, wait: float) -> list[dict[str, Any]] | None:
        """Take a group out of ``queue`` in one step, or None.

        A group is ``seats`` players (people first, house players filling the rest), or, once
        the person who has waited longest has waited ``wait`` seconds, the two or more there
        are. House players alone never make a group. Each waiting player is in one group only,
        whichever node asks.
        """
        ...

    async def queues(self) -> list[str]:
        """The queues someone may be waiting in."""
        ...

    # ----- arenas (terrace.race.arena): one spec, its joined players and its race results per arena
    async def arena_create(self, spec: dict[str, Any]) -> bool:
        """Keep a new arena (JSON-able, keyed by ``spec["id"]``); False (nothing changed) if the id is taken."""
        ...

    async def arena_get(self, arena_id: str) -> dict[str, Any] | None: ...

    async def arena_list(self) -> list[dict[str, Any]]:
        """Every arena's spec, by start time (then id)."""
        ...

    async def arena_join(self, arena_id: str, player: dict[str, Any]) -> None:
        """Add (or update) a joined player (JSON-able, keyed by ``player["id"]``)."""
        ...

    async def arena_leave(self, arena_id: str, player_id: str) -> bool:
        """Take a player out; False if they had not joined."""
        ...

    async def arena_players(self, arena_id: str) -> list[dict[str, Any]]:
        """The joined players, in no particular order."""
        ...

    async def arena_result(self, arena_id: str, result: dict[str, Any]) -> bool:
        """Count one race (JSON-able, keyed by ``result["race"]``); False if it was counted already."""
        ...

    async def arena_results(self, arena_id: str) -> list[dict[str, Any]]:
        """The races counted, in no particular order (:func:`terrace.race.arena.ordered` sorts them)."""
        ...

    # ----- rating history (the bot ladder): one list per player, newest first
    async def history_add(self, player_id: str, entry: dict[str, Any], keep: int) -> None:
        """Put ``entry`` (JSON-able: one rated race) first in the player's history; keep the newest ``keep``."""
        ...

    async def history(self, player_id: str, n: int) -> list[dict[str, Any]]:
        """The player's newest ``n`` history entries, newest first."""
        ...

    # ----- live races: move logs and metadata
    async def log_append(self, race_id: str, entry: dict[str, Any], owner: str | None = None) -> None:
        """Append ``entry`` (JSON-able) to the race's log; done before the move is acknowledged.

        ``owner`` (one node of many): append only unless another node holds the race's lease,
        else raise :class:`NotOwner` with nothing appended (in one step with the check).
        """
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

    async def save_race_waiting(self, race_id: str, meta: dict[str, Any]) -> None:
        """Keep a race that waits for players or counts down (its meta as it is now), so it outlives
        its node; the race is live from then on. Kept apart from :meth:`save_race_meta`, which wins."""
        ...

    async def race_waiting(self, race_id: str) -> dict[str, Any] | None: ...

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

    # ----- the daily deal (server.daily): small JSON-able values under daily keys
    async def daily_claim(self, key: str, data: dict[str, Any], ttl: int) -> dict[str, Any]:
        """Keep ``data`` under ``key`` for ``ttl`` seconds unless something is kept there already
        (in one step: of two nodes claiming at once, one wins); returns what is kept now."""
        ...

    async def daily_release(self, key: str, race_id: str) -> bool:
        """Delete ``key`` if it holds the claim of ``race_id`` (its ``race`` field), in one step:
        an attempt given back frees its claim, never one made since. Whether it was deleted."""
        ...

    async def daily_put(self, key: str, data: dict[str, Any], ttl: int) -> None:
        """Keep ``data`` under ``key`` for ``ttl`` seconds, whatever was there."""
        ...

    async def daily_get(self, key: str) -> dict[str, Any] | None:
        """What is kept under ``key`` (None: nothing, or it expired)."""
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
