"""The store contract: one suite, run against the memory store and a real Redis.

Whatever the server relies on a store for is checked here for both stores, so either can
stand in for the other. Redis runs as a throwaway ``redis-server`` on a free port (see
``redis_server.py``); the last tests are about Redis alone: concurrent registration from
two nodes, and :class:`StoreDown` while the server is down, recovering once it is back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis import exceptions as rexc

from server import names
from server.store import (
    Account,
    BoardPut,
    MemoryStore,
    NotOwner,
    RatingChange,
    RatingsMoved,
    Store,
    StoreDown,
    open_store,
)
from server.store.redis import RedisStore
from server.store.redis.base import guard as _guard
from tests.server import redis_server as rs
from tests.server.redis_cluster import LocalCluster, redis_cluster

__all__ = ["redis_cluster"]  # a fixture

KEEP = 5


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Subject:
    store: Store
    advance: Callable[[float], Awaitable[None]]  # let time pass (memory: the clock; redis: sleep)


@pytest.fixture(params=["memory", "redis", "cluster"])
async def subject(request: pytest.FixtureRequest) -> AsyncIterator[Subject]:
    if request.param == "memory":
        clock = FakeClock()

        async def tick(seconds: float) -> None:
            clock.now += seconds

        yield Subject(MemoryStore(keep_records=KEEP, clock=clock), tick)
        return
    if request.param == "cluster":  # the same layout on three masters with a replica each
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        cluster.flushall()
        store = RedisStore(cluster.url, keep_records=KEEP, cluster=True, replica_acks=1)
        await store.ping()  # as a server does before anything else
    else:
        store = RedisStore(request.getfixturevalue("redis_url"), keep_records=KEEP)
    yield Subject(store, asyncio.sleep)
    await store.close()


@pytest.fixture
def store(subject: Subject) -> Store:
    return subject.store


def account(n: int, name: str | None = None) -> Account:
    return Account(
        f"p-{n}", name or f"Player{n}", "bot" if n % 2 else "human", f"hash{n}", 1_700_000_000_000 + n
    )


async def test_both_stores_implement_the_protocol(store: Store) -> None:
    assert isinstance(store, Store)


async def test_open_store_chooses_by_url(redis_url: str) -> None:
    assert isinstance(open_store(None), MemoryStore)
    s = open_store(redis_url, keep_records=3)
    assert isinstance(s, RedisStore)
    await s.ping()
    await s.close()


# ----- accounts ----------------------------------------------------------------------


async def test_account_found_by_id_name_and_token(store: Store) -> None:
    a = account(1, "Alice")
    assert await store.add_account(a)
    assert await store.add_account(account(2))
    assert await store.account_by_id("p-1") == a
    assert await store.account_by_name("Alice") == a
    assert await store.account_by_name("aLiCe") == a
    assert await store.account_by_token_hash("hash1") == a
    assert await store.account_by_id("p-9") is None
    assert await store.account_by_name("Bob") is None
    assert await store.account_by_token_hash("nope") is None


async def test_name_taken_case_insensitively_stores_nothing(store: Store) -> None:
    assert await store.add_account(account(1, "Alice"))
    assert not await store.add_account(account(2, "ALICE"))
    assert await store.account_by_id("p-2") is None
    assert await store.account_by_token_hash("hash2") is None
    assert (await store.account_by_name("alice")) == account(1, "Alice")


@pytest.mark.parametrize(
    ("first", "second"),
    [("Alice", "AIice"), ("Alice", "a1ice"), ("Bob", "B0b"), ("mary", "rnary"), ("alice", "ALICE")],
)
async def test_names_that_look_alike_are_one_name(store: Store, first: str, second: str) -> None:
    assert await store.add_account(account(1, first))
    assert not await store.add_account(account(2, second))
    assert await store.account_by_id("p-2") is None
    assert await store.account_by_name(second) == account(1, first)
    assert await store.add_account(account(3, "Alicia"))  # a different name is still a name of its own


@pytest.mark.parametrize("second", ["robo_ladder", "roboladder", "robo-lader", "Robo.Ladder", "ROBO__LADDER"])
async def test_separators_and_doubled_letters_fold_into_one_name(store: Store, second: str) -> None:
    assert await store.add_account(account(1, "robo-ladder"))
    assert not await store.add_account(account(2, second))
    assert await store.account_by_id("p-2") is None
    assert await store.account_by_name(second) == account(1, "robo-ladder")


@pytest.mark.parametrize(("first", "second"), [("player1", "player11"), ("robo-ladder", "robo-ladders")])
async def test_digits_and_other_letters_stay_names_of_their_own(
    store: Store, first: str, second: str
) -> None:
    assert await store.add_account(account(1, first))
    assert await store.add_account(account(2, second))
    assert await store.account_by_name(second) == account(2, second)


async def test_index_names_on_a_store_of_todays_keys_changes_nothing(store: Store) -> None:
    assert await store.add_account(account(1, "robo-ladder"))
    await store.index_names()
    assert await store.index_names() == 0  # once
    assert not await store.add_account(account(2, "robo_ladder"))
    assert await store.account_by_name("robo-ladder") == account(1, "robo-ladder")


async def test_concurrent_registrations_of_one_name_let_one_win(store: Store) -> None:
    results = await asyncio.gather(*(store.add_account(account(i, "Same")) for i in range(10)))
    assert sorted(results) == [False] * 9 + [True]


# ----- records -----------------------------------------------------------------------


def rec(n: int) -> dict[str, object]:
    return {
        "id": f"r-{n}",
        "seed": "ab" * 8,
        "results": [{"place": 1, "move_list": [[1, 2], [3, 4]]}],
        "n": n,
    }


async def test_record_saved_and_fetched(store: Store) -> None:
    await store.save_record(rec(1))
    assert await store.record("r-1") == rec(1)
    assert await store.record("r-2") is None


async def test_recent_records_newest_first(store: Store) -> None:
    assert await store.recent_records(3) == []
    for n in range(4):
        await store.save_record(rec(n))
    assert await store.recent_records(2) == [rec(3), rec(2)]
    assert await store.recent_records(10) == [rec(n) for n in (3, 2, 1, 0)]
    assert await store.recent_records(0) == []


async def test_records_beyond_keep_records_are_evicted(store: Store) -> None:
    for n in range(KEEP + 2):
        await store.save_record(rec(n))
    assert await store.record("r-0") is None
    assert await store.record("r-1") is None
    assert await store.record("r-2") == rec(2)
    assert await store.recent_records(100) == [rec(n) for n in range(KEEP + 1, 1, -1)]


async def test_saving_a_record_again_replaces_it_in_place(store: Store) -> None:
    for n in range(3):
        await store.save_record(rec(n))
    await store.save_record({**rec(0), "n": 99})
    assert await store.record("r-0") == {**rec(0), "n": 99}
    assert [r["id"] for r in await store.recent_records(5)] == ["r-2", "r-1", "r-0"]


async def test_an_analysis_is_kept_beside_its_record(store: Store) -> None:
    await store.save_record(rec(1))
    assert await store.analysis("r-1") is None
    analysis = {"players": [{"player": {"id": "p1"}, "losing_move": 178, "continuation": ["S-W", "W-F1"]}]}
    await store.save_analysis("r-1", analysis)
    assert await store.analysis("r-1") == analysis
    assert await store.analysis("r-2") is None


# ----- boards ------------------------------------------------------------------------


async def test_board_set_replaces(store: Store) -> None:
    assert await store.board_put("b", "x", 5)
    assert not await store.board_put("b", "x", 5)
    assert await store.board_put("b", "x", 3)
    assert await store.board_score("b", "x") == 3.0


async def test_board_max_keeps_the_higher(store: Store) -> None:
    assert await store.board_put("b", "x", 5, mode="max")
    assert not await store.board_put("b", "x", 4, mode="max")
    assert not await store.board_put("b", "x", 5, mode="max")
    assert await store.board_score("b", "x") == 5.0
    assert await store.board_put("b", "x", 7.5, mode="max")
    assert await store.board_score("b", "x") == 7.5


async def test_board_min_keeps_the_lower(store: Store) -> None:
    assert await store.board_put("b", "x", 61.25, mode="min")
    assert not await store.board_put("b", "x", 70, mode="min")
    assert not await store.board_put("b", "x", 61.25, mode="min")
    assert await store.board_put("b", "x", 59, mode="min")
    assert await store.board_score("b", "x") == 59.0
    assert await store.board_rank("b", "x", descending=False) == 0


async def test_board_add_increments(store: Store) -> None:
    assert await store.board_put("wins", "x", 1, mode="add")
    assert await store.board_put("wins", "x", 2, mode="add")
    assert not await store.board_put("wins", "x", 0, mode="add")
    assert await store.board_score("wins", "x") == 3.0
    assert await store.board_put("wins", "y", 0, mode="add")  # a new member counts as a change
    assert await store.board_score("wins", "y") == 0.0


async def test_board_rejects_unknown_mode_and_nan(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.board_put("b", "x", 1, mode="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        await store.board_put("b", "x", float("nan"))
    assert await store.board_size("b") == 0


TIED = {"carol": 2.0, "alice": 2.0, "Bob": 2.0, "dave": 1.0, "erin": 3.0, "ä": 2.0, "bob": 2.0}


async def put_all(store: Store, board: str, scores: dict[str, float]) -> None:
    for member, score in scores.items():
        await store.board_put(board, member, score)


async def test_board_ranges_order_ties_like_redis(store: Store) -> None:
    await put_all(store, "b", TIED)
    ascending = [("dave", 1.0), ("Bob", 2.0), ("alice", 2.0), ("bob", 2.0), ("carol", 2.0), ("ä", 2.0)]
    ascending.append(("erin", 3.0))
    assert await store.board_range("b", 0, 100, descending=False) == ascending
    assert await store.board_range("b", 0, 100, descending=True) == ascending[::-1]
    for i, (member, _) in enumerate(ascending):
        assert await store.board_rank("b", member, descending=False) == i
        assert await store.board_rank("b", member, descending=True) == len(ascending) - 1 - i


async def test_board_paging(store: Store) -> None:
    await put_all(store, "b", {f"m{i:02}": float(i) for i in range(10)})
    assert await store.board_range("b", 0, 3, descending=True) == [("m09", 9.0), ("m08", 8.0), ("m07", 7.0)]
    assert await store.board_range("b", 3, 3, descending=True) == [("m06", 6.0), ("m05", 5.0), ("m04", 4.0)]
    assert await store.board_range("b", 8, 5, descending=True) == [("m01", 1.0), ("m00", 0.0)]
    assert await store.board_range("b", 8, 5, descending=False) == [("m08", 8.0), ("m09", 9.0)]
    assert await store.board_range("b", 10, 5, descending=True) == []
    assert await store.board_range("b", 2, 0, descending=False) == []
    assert await store.board_range("nothing", 0, 5, descending=False) == []
    with pytest.raises(ValueError):
        await store.board_range("b", -1, 5, descending=False)


async def test_board_rows_around_a_member(store: Store) -> None:
    await put_all(store, "b", {f"m{i:02}": float(i) for i in range(10)})
    rank = await store.board_rank("b", "m03", descending=True)
    assert rank == 6
    rows = await store.board_range("b", max(rank - 2, 0), 5, descending=True)
    assert rows == [(f"m{i:02}", float(i)) for i in (5, 4, 3, 2, 1)]
    top = await store.board_rank("b", "m09", descending=True)
    assert top == 0
    rows = await store.board_range("b", max(top - 2, 0), 5, descending=True)
    assert rows[0] == ("m09", 9.0) and len(rows) == 5


async def test_board_better_counts_members_strictly_better(store: Store) -> None:
    assert await store.board_better("b", 5, descending=True) == 0
    await put_all(store, "b", {"a": 1, "b": 2, "c": 2, "d": 3.5})
    assert await store.board_better("b", 2, descending=True) == 1  # only d is higher
    assert await store.board_better("b", 2, descending=False) == 1  # only a is lower
    assert await store.board_better("b", 3.5, descending=True) == 0
    assert await store.board_better("b", 0.5, descending=True) == 4
    assert await store.board_better("b", 9, descending=False) == 4


async def test_board_rank_score_size(store: Store) -> None:
    assert await store.board_size("b") == 0
    assert await store.board_rank("b", "x", descending=True) is None
    assert await store.board_score("b", "x") is None
    await put_all(store, "b", {"x": -1.5, "y": 1e9, "z": 0.1})
    await store.board_put("other", "x", 100)
    assert await store.board_size("b") == 3
    assert await store.board_size("other") == 1
    assert await store.board_score("b", "z") == 0.1
    assert await store.board_score("b", "y") == 1e9
    assert await store.board_rank("b", "x", descending=False) == 0
    assert await store.board_rank("b", "y", descending=True) == 0
    assert await store.board_rank("b", "w", descending=True) is None


async def test_board_ttl_expires_the_board(subject: Subject) -> None:
    store = subject.store
    await store.board_put("daily", "x", 5, ttl=1)
    await store.board_put("daily", "y", 6)  # no ttl: the board keeps its expiry
    await store.board_put("forever", "x", 5)
    await subject.advance(0.6)
    await store.board_put("daily", "x", 4, mode="max", ttl=1)  # unchanged, but the expiry moves on
    await subject.advance(0.6)
    assert await store.board_size("daily") == 2
    await subject.advance(0.6)
    assert await store.board_size("daily") == 0
    assert await store.board_range("daily", 0, 10, descending=True) == []
    assert await store.board_score("daily", "x") is None
    assert await store.board_rank("daily", "x", descending=True) is None
    assert await store.board_score("forever", "x") == 5.0
    assert await store.board_put("daily", "x", 1)  # a new board, without expiry
    assert await store.board_size("daily") == 1


# ----- ratings -----------------------------------------------------------------------


async def test_ratings_per_pool_and_variant(store: Store) -> None:
    assert await store.rating("human", "classic", "p-1") is None
    await store.set_ratings("human", "classic", {"p-1": (25.0, 8.333333333333334), "p-2": (27.1, 7.9)})
    await store.set_ratings("bot", "classic", {"p-1": (30.0, 5.0)})
    await store.set_ratings("human", "open", {"p-1": (20.0, 6.0)})
    assert await store.rating("human", "classic", "p-1") == (25.0, 8.333333333333334)
    assert await store.rating("human", "classic", "p-2") == (27.1, 7.9)
    assert await store.rating("bot", "classic", "p-1") == (30.0, 5.0)
    assert await store.rating("human", "open", "p-1") == (20.0, 6.0)
    assert await store.rating("bot", "open", "p-1") is None
    await store.set_ratings("human", "classic", {"p-2": (28.0, 7.0)})
    assert await store.rating("human", "classic", "p-1") == (25.0, 8.333333333333334)
    assert await store.rating("human", "classic", "p-2") == (28.0, 7.0)
    await store.set_ratings("human", "classic", {})


# ----- sessions ----------------------------------------------------------------------


async def test_a_session_is_kept_until_its_expiry_and_a_put_renews_it(subject: Subject) -> None:
    store = subject.store
    who = {"id": "g-1", "name": "ann", "kind": "human", "guest": True}
    assert await store.session_get("h1") is None
    await store.session_put("h1", who, ttl=2.0)
    assert await store.session_get("h1") == who
    assert await store.session_get("h2") is None
    await subject.advance(1.2)
    await store.session_put("h1", who, ttl=2.0)  # a hello again: good for another 2 s
    await subject.advance(1.2)  # past the first expiry
    assert await store.session_get("h1") == who
    await subject.advance(1.0)  # sleeping is never shorter than asked: surely past the second
    assert await store.session_get("h1") is None


# ----- matchmaking --------------------------------------------------------------------


def _waiting(n: int) -> dict[str, str]:
    return {"id": f"p-{n}", "name": f"Player{n}"}


async def test_a_queue_seats_people_first_and_house_players_never_alone(store: Store) -> None:
    assert await store.queue_put("terrace", _waiting(1), house=True) == 1
    assert await store.queue_put("terrace", _waiting(2), house=True) == 2
    assert await store.queue_match("terrace", 3, wait=0) is None  # house players alone: no race
    assert await store.queue_put("terrace", _waiting(3), house=False) == 3
    assert await store.queue_put("signora", _waiting(4), house=False) == 1  # another queue
    group = await store.queue_match("terrace", 3, wait=60)  # full: no waiting
    assert group is not None and [p["id"] for p in group] == ["p-3", "p-1", "p-2"]
    assert group[0] == _waiting(3)
    assert await store.queue_match("terrace", 3, wait=0) is None  # each player in one group only
    assert await store.queues() == ["signora"]  # the empty queue is no longer listed


async def test_people_who_fill_every_seat_take_no_house_player_along(store: Store) -> None:
    """A full group of people leaves the house waiting: never more players than seats (the Redis
    script once took every house player when people filled the seats)."""
    for n in range(1, 6):
        await store.queue_put("terrace", _waiting(n), house=True)
    for n in range(6, 10):
        await store.queue_put("terrace", _waiting(n), house=False)
    group = await store.queue_match("terrace", 4, wait=60)
    assert group is not None and [p["id"] for p in group] == ["p-6", "p-7", "p-8", "p-9"]
    assert await store.queue_match("terrace", 4, wait=0) is None  # house players alone: no race
    assert await store.queue_put("terrace", _waiting(10), house=False) == 6  # five house still wait


async def test_a_short_group_goes_once_the_longest_waiting_person_has_waited(subject: Subject) -> None:
    store = subject.store
    await store.queue_put("terrace", _waiting(1), house=False)
    await subject.advance(0.2)
    await store.queue_put("terrace", _waiting(2), house=False)
    await store.queue_put("terrace", _waiting(3), house=False)
    assert await store.queue_take("terrace", "p-3")  # unqueued
    assert not await store.queue_take("terrace", "p-3")
    assert await store.queue_match("terrace", 4, wait=0.8) is None  # two of four, before the wait
    await subject.advance(0.7)
    group = await store.queue_match("terrace", 4, wait=0.8)
    assert group is not None and [p["id"] for p in group] == ["p-1", "p-2"]
    assert not await store.queue_take("terrace", "p-1")  # the match took it first
    assert await store.queue_match("terrace", 2, wait=0) is None


# ----- arenas ----------------------------------------------------------------------


def _arena(arena_id: str, starts: int) -> dict[str, object]:
    return {
        "id": arena_id,
        "variant": "terrace",
        "goal": "terrace",
        "pool": "bots",
        "starts_ms": starts,
        "ends_ms": starts + 60_000,
        "name": arena_id,
    }


async def test_an_arena_is_created_once_and_listed_by_start(store: Store) -> None:
    assert await store.arena_create(_arena("late", 2_000))
    assert await store.arena_create(_arena("early", 1_000))
    assert not await store.arena_create({**_arena("late", 5_000), "name": "again"})  # the id is taken
    assert await store.arena_get("late") == _arena("late", 2_000)
    assert await store.arena_get("none") is None
    assert [a["id"] for a in await store.arena_list()] == ["early", "late"]


async def test_arena_players_join_update_and_leave(store: Store) -> None:
    await store.arena_create(_arena("a", 1_000))
    await store.arena_join("a", {"id": "p-1", "name": "One"})
    await store.arena_join("a", {"id": "p-2", "name": "Two"})
    await store.arena_join("a", {"id": "p-1", "name": "One again"})
    players = sorted(await store.arena_players("a"), key=lambda p: str(p["id"]))
    assert players == [{"id": "p-1", "name": "One again"}, {"id": "p-2", "name": "Two"}]
    assert await store.arena_leave("a", "p-1")
    assert not await store.arena_leave("a", "p-1")
    assert await store.arena_players("a") == [{"id": "p-2", "name": "Two"}]
    assert await store.arena_players("other") == []


async def test_an_arena_counts_each_race_once(store: Store) -> None:
    await store.arena_create(_arena("a", 1_000))
    first = {"race": "r-1", "ended": 5, "rows": [{"id": "p-1", "place": 1}]}
    assert await store.arena_result("a", first)
    assert not await store.arena_result("a", {**first, "ended": 9})
    assert await store.arena_result("a", {"race": "r-2", "ended": 7, "rows": []})
    results = sorted(await store.arena_results("a"), key=lambda r: str(r["race"]))
    assert results == [first, {"race": "r-2", "ended": 7, "rows": []}]
    assert await store.arena_results("b") == []


async def test_a_players_history_is_newest_first_and_trimmed(store: Store) -> None:
    for i in range(5):
        await store.history_add("p-1", {"race": f"r-{i}", "rating": float(i)}, keep=3)
    await store.history_add("p-2", {"race": "other"}, keep=3)
    assert [e["race"] for e in await store.history("p-1", 10)] == ["r-4", "r-3", "r-2"]
    assert await store.history("p-1", 1) == [{"race": "r-4", "rating": 4.0}]
    assert await store.history("p-9", 10) == []


# ----- one finished race on the boards and ratings, once ---------------------------


async def test_a_race_applied_twice_counts_once(store: Store) -> None:
    puts = [BoardPut("wins", "p-1", 1, "add"), BoardPut("fast", "p-1", 5000, "min", ttl=60)]
    rated = RatingChange(
        "humans", "terrace", {"p-1": None, "p-2": None}, {"p-1": (27.0, 7.0), "p-2": (23.0, 7.0)}
    )
    assert await store.apply_race("r-1", puts, rated) == [True, True]
    assert await store.apply_race("r-1", puts, rated) is None  # a retry: nothing changes
    assert await store.board_score("wins", "p-1") == 1.0
    assert await store.rating("humans", "terrace", "p-1") == (27.0, 7.0)
    again = [BoardPut("wins", "p-1", 1, "add"), BoardPut("fast", "p-1", 6000, "min")]
    assert await store.apply_race("r-2", again) == [True, False]  # another race counts
    assert await store.board_score("wins", "p-1") == 2.0


async def test_a_rated_race_is_in_each_players_history_exactly_when_it_rated_them(store: Store) -> None:
    await store.history_add("p-1", {"race": "r-0"}, keep=3)
    entries = {"p-1": {"race": "r-1", "rating": 1.5}, "p-2": {"race": "r-1", "rating": -0.5}}
    rated = RatingChange(
        "humans", "terrace", {"p-1": None, "p-2": None}, {"p-1": (27.0, 7.0), "p-2": (23.0, 7.0)}, entries, 3
    )
    stale = RatingChange("humans", "terrace", {"p-1": (1.0, 1.0), "p-2": None}, rated.after, entries, 3)
    with pytest.raises(RatingsMoved):  # nothing applied: no history either
        await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add")], stale)
    assert [e["race"] for e in await store.history("p-1", 10)] == ["r-0"]
    assert await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add")], rated) == [True]
    assert await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add")], rated) is None  # a retry
    assert await store.history("p-1", 10) == [{"race": "r-1", "rating": 1.5}, {"race": "r-0"}]
    assert await store.history("p-2", 10) == [{"race": "r-1", "rating": -0.5}]
    for n in range(2, 6):  # trimmed to the newest ``history_keep``
        more = RatingChange(
            "humans",
            "terrace",
            {"p-1": (27.0, 7.0) if n == 2 else (27.0 + n - 1, 7.0)},
            {"p-1": (27.0 + n, 7.0)},
            {"p-1": {"race": f"r-{n}"}},
            3,
        )
        assert await store.apply_race(f"r-{n}", [], more) == []
    assert [e["race"] for e in await store.history("p-1", 10)] == ["r-5", "r-4", "r-3"]


async def test_a_race_rated_from_stale_ratings_changes_nothing(store: Store) -> None:
    await store.set_ratings("humans", "terrace", {"p-1": (26.0, 8.0)})
    stale = RatingChange(
        "humans", "terrace", {"p-1": (25.0, 8.3), "p-2": None}, {"p-1": (1.0, 1.0), "p-2": (2.0, 2.0)}
    )
    with pytest.raises(RatingsMoved):
        await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add")], stale)
    assert await store.board_score("wins", "p-1") is None
    assert await store.rating("humans", "terrace", "p-1") == (26.0, 8.0)
    assert await store.rating("humans", "terrace", "p-2") is None
    fresh = RatingChange(
        "humans", "terrace", {"p-1": (26.0, 8.0), "p-2": None}, {"p-1": (1.0, 1.0), "p-2": (2.0, 2.0)}
    )
    # not marked before: the race is applied now
    assert await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add")], fresh) == [True]
    assert await store.rating("humans", "terrace", "p-2") == (2.0, 2.0)


async def test_a_bad_put_in_a_race_applies_nothing(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add"), BoardPut("b", "x", float("nan"))])
    assert await store.board_score("wins", "p-1") is None
    assert await store.apply_race("r-1", [BoardPut("wins", "p-1", 1, "add")]) == [True]


# ----- live races --------------------------------------------------------------------


async def test_move_log_keeps_append_order(store: Store) -> None:
    assert await store.log_read("r-1") == []
    entries = [
        {"seq": i, "player": "p-1", "move": {"from": "w", "to": [i, i + 1]}, "t": 0.5 * i} for i in range(5)
    ]
    for e in entries:
        await store.log_append("r-1", e)
    await store.log_append("r-2", {"seq": 0})
    assert await store.log_read("r-1") == entries
    assert await store.log_read("r-2") == [{"seq": 0}]
    assert await store.live_races() == ["r-1", "r-2"]


async def test_a_log_append_is_refused_while_another_node_holds_the_lease(store: Store) -> None:
    await store.log_append("r-1", {"seq": 1}, owner="ws://a")  # nobody holds it: appended
    assert await store.lease_take("r-1", "ws://b", 5)
    with pytest.raises(NotOwner) as refused:
        await store.log_append("r-1", {"seq": 2}, owner="ws://a")
    assert (refused.value.race_id, refused.value.holder) == ("r-1", "ws://b")
    await store.log_append("r-1", {"seq": 2}, owner="ws://b")
    await store.log_append("r-1", {"seq": 3})  # a node alone is never refused
    assert [e["seq"] for e in await store.log_read("r-1")] == [1, 2, 3]


async def test_a_waiting_race_is_live_kept_apart_from_its_meta_and_dropped_with_it(store: Store) -> None:
    await store.save_race_waiting("r-1", {"players": ["p-1"]})
    await store.save_race_waiting("r-1", {"players": ["p-1", "p-2"]})  # the latest wins
    assert (await store.live_races(), await store.race_meta("r-1")) == (["r-1"], None)
    await store.save_race_meta("r-1", {"started_at": 5})
    assert await store.race_waiting("r-1") == {"players": ["p-1", "p-2"]}
    assert await store.race_meta("r-1") == {"started_at": 5}
    await store.log_drop("r-1")
    assert (await store.live_races(), await store.race_waiting("r-1")) == ([], None)


async def test_long_move_log_reads_back_whole(store: Store) -> None:
    for i in range(1_050):
        await store.log_append("r-1", {"seq": i})
    assert [e["seq"] for e in await store.log_read("r-1")] == list(range(1_050))


async def test_race_meta_and_drop(store: Store) -> None:
    meta = {
        "rules": {"variant": "classic", "goal": "clear"},
        "seed": "00ff",
        "players": ["p-1", "p-2"],
        "t": 1,
    }
    assert await store.race_meta("r-1") is None
    await store.save_race_meta("r-1", meta)
    assert await store.race_meta("r-1") == meta
    assert await store.live_races() == ["r-1"]  # live from its meta, before any move
    await store.log_append("r-1", {"seq": 0})
    await store.log_append("r-2", {"seq": 0})
    await store.log_drop("r-1")
    assert await store.log_read("r-1") == []
    assert await store.race_meta("r-1") is None
    assert await store.live_races() == ["r-2"]
    await store.log_drop("r-2")
    await store.log_drop("r-unknown")
    assert await store.live_races() == []


async def test_ping(store: Store) -> None:
    await store.ping()


# ----- Redis alone -------------------------------------------------------------------


async def test_two_nodes_cannot_both_register_a_name(redis_url: str) -> None:
    a, b = RedisStore(redis_url), RedisStore(redis_url)
    try:
        results = await asyncio.gather(a.add_account(account(1, "Same")), b.add_account(account(2, "same")))
        assert sorted(results) == [False, True]
        winner = await b.account_by_name("SAME")
        assert winner is not None and await a.account_by_id(winner.id) == winner
    finally:
        await a.close()
        await b.close()


async def _add_as_before_folding(store: RedisStore, a: Account) -> None:
    """Write an account as the store did while names had look-alike keys only (keys version 1)."""
    r = store._r
    await r.hset(
        store._tag("acct", "account", a.id),
        mapping={
            "id": a.id,
            "name": a.name,
            "kind": a.kind,
            "token_hash": a.token_hash,
            "created_at": a.created_at,
        },
    )
    await r.set(store._tag("acct", "account-token", a.token_hash), a.id)
    await r.set(store._tag("acct", "account-name", a.name.casefold()), a.id)
    looks = {names.skeleton(a.name.casefold()).casefold(), names.skeleton(a.name).casefold()}
    for key in looks:  # the two look-alike keys, not the folded ones
        await r.set(store._tag("acct", "account-look", key), a.id)


async def test_accounts_made_before_folding_keep_working_and_new_clashes_are_refused(redis_url: str) -> None:
    """The upgrade: accounts whose names clash only once folded all keep working (found by
    their own names and tokens); the older holds the folded name, so a third is refused."""
    old = RedisStore(redis_url)
    try:
        first, second = account(1, "robo-ladder"), account(2, "robo_ladder")
        for a in (first, second, account(3, "roboladder")):
            await _add_as_before_folding(old, a)
    finally:
        await old.close()
    new = RedisStore(redis_url)  # a server of today starts on that store
    try:
        assert await new.index_names() == 3
        assert await new.index_names() == 0
        for a in (first, second, account(3, "roboladder")):
            assert await new.account_by_name(a.name) == a
            assert await new.account_by_token_hash(a.token_hash) == a
        assert not await new.add_account(account(4, "Robo.Lader"))
        assert await new.account_by_name("robo-lader") == first  # the older one holds the folded name
        assert await new.add_account(account(5, "robo-ladders"))
    finally:
        await new.close()


async def test_prefix_separates_stores(redis_url: str) -> None:
    a, b = RedisStore(redis_url, prefix="one:"), RedisStore(redis_url, prefix="two:")
    try:
        await a.board_put("b", "x", 1)
        assert await b.board_size("b") == 0
    finally:
        await a.close()
        await b.close()


async def test_store_down_while_redis_is_stopped_and_back_after() -> None:
    with rs.RedisServer(rs.require_redis_server()) as server:
        store = RedisStore(server.url, connect_timeout=0.5, timeout=1)
        try:
            await store.board_put("b", "x", 1)
            server.stop()
            with pytest.raises(StoreDown):
                await store.ping()
            with pytest.raises(StoreDown):
                await store.board_put("b", "x", 2)
            with pytest.raises(StoreDown):
                await store.log_append("r-1", {"seq": 0})
            with pytest.raises(StoreDown):
                await store.add_account(account(1))
            server.start()  # same port, no persistence: an empty Redis
            await store.ping()
            assert await store.add_account(account(1))  # scripts reload by themselves
            await store.save_record(rec(1))
            assert await store.recent_records(1) == [rec(1)]
            assert await store.board_put("b", "x", 2)
        finally:
            await store.close()


async def test_acknowledged_log_entries_survive_a_redis_crash(tmp_path: Path) -> None:
    server = rs.RedisServer(rs.require_redis_server(), appendonly=True, dir=tmp_path)
    with server:
        store = RedisStore(server.url)
        try:
            await store.save_race_meta("r-1", {"seed": "00"})
            for i in range(20):
                await store.log_append("r-1", {"seq": i})
            server.kill()  # SIGKILL: no clean shutdown
            server.start()
            assert await store.live_races() == ["r-1"]
            assert await store.race_meta("r-1") == {"seed": "00"}
            assert await store.log_read("r-1") == [{"seq": i} for i in range(20)]
        finally:
            await store.close()


# ----- nodes: leases, shared races, events


async def test_a_lease_is_one_nodes_until_released_or_expired(subject: Subject) -> None:
    store = subject.store
    assert await store.lease_owner("r1") is None
    assert await store.lease_take("r1", "ws://a/ws", 0.3)
    assert await store.lease_take("r1", "ws://a/ws", 0.3)  # again: still ours
    assert not await store.lease_take("r1", "ws://b/ws", 0.3)
    assert not await store.lease_renew("r1", "ws://b/ws", 0.3)
    assert await store.lease_renew("r1", "ws://a/ws", 0.3)
    assert await store.lease_owner("r1") == "ws://a/ws"
    await store.lease_release("r1", "ws://b/ws")  # not b's: nothing happens
    assert await store.lease_owner("r1") == "ws://a/ws"
    await store.lease_release("r1", "ws://a/ws")
    assert await store.lease_take("r1", "ws://b/ws", 0.3)
    await subject.advance(0.5)  # b died: its lease runs out
    assert await store.lease_owner("r1") is None
    assert not await store.lease_renew("r1", "ws://b/ws", 0.3)
    assert await store.lease_take("r1", "ws://a/ws", 0.3)


async def test_shared_races_are_listed_while_their_lease_lives(subject: Subject) -> None:
    store = subject.store
    await store.share_race("r1", "summary", {"id": "r1", "state": "open"})
    await store.share_race("r1", "standings", {"type": "standings", "rows": []})
    assert await store.shared_races() == []  # nobody owns it
    await store.lease_take("r1", "ws://a/ws", 5)
    assert await store.shared_races() == [{"id": "r1", "state": "open"}]
    assert await store.shared_race("r1") == {
        "summary": {"id": "r1", "state": "open"},
        "standings": {"type": "standings", "rows": []},
    }
    await store.share_race("r1", "summary", None)
    assert await store.shared_races() == [] and await store.shared_race("r1") == {}


async def test_published_events_reach_every_listener(store: Store) -> None:
    events = [store.events(), store.events()]
    assert [await anext(e) for e in events] == [{}, {}]  # both subscribed: nothing can be missed now
    nexts = [asyncio.ensure_future(anext(e)) for e in events]
    await store.publish({"node": "a", "race": "r1", "msg": {"type": "standings"}})
    got = await asyncio.wait_for(asyncio.gather(*nexts), 5)
    assert got == [{"node": "a", "race": "r1", "msg": {"type": "standings"}}] * 2
    for e in events:
        await e.aclose()


@pytest.mark.parametrize(
    "error",
    [
        rexc.ClusterError("TTL exhausted."),  # redirects chased while a failover moves slots
        rexc.ClusterDownError("CLUSTERDOWN The cluster is down"),
        rexc.TryAgainError("TRYAGAIN"),
        rexc.ConnectionError("Error 111 connecting"),
        rexc.SlotNotCoveredError("Slot 7 not covered"),
    ],
)
def test_redis_errors_of_an_unreachable_or_failing_over_store_read_as_store_down(error: Exception) -> None:
    with pytest.raises(StoreDown, match="redis: "), _guard():
        raise error


def test_redis_errors_that_are_bugs_pass_through_the_guard() -> None:
    with pytest.raises(rexc.ResponseError, match="WRONGTYPE"), _guard():
        raise rexc.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")


# ----- the daily deal


async def test_daily_claim_keeps_the_first_value_and_returns_it(store: Store) -> None:
    assert await store.daily_get("secret") is None
    assert await store.daily_claim("secret", {"secret": "aa"}, 60) == {"secret": "aa"}
    assert await store.daily_claim("secret", {"secret": "bb"}, 60) == {"secret": "aa"}
    assert await store.daily_get("secret") == {"secret": "aa"}


async def test_concurrent_daily_claims_agree_on_one_value(store: Store) -> None:
    kept = await asyncio.gather(*(store.daily_claim("seed", {"n": n}, 60) for n in range(8)))
    assert len({k["n"] for k in kept}) == 1


async def test_daily_put_replaces_and_expires(subject: Subject) -> None:
    store = subject.store
    await store.daily_claim("attempt", {"state": "playing"}, 60)
    await store.daily_put("attempt", {"state": "finished", "moves": [[1, "W-3"]]}, 1)
    assert await store.daily_get("attempt") == {"state": "finished", "moves": [[1, "W-3"]]}
    await subject.advance(1.2)
    assert await store.daily_get("attempt") is None


async def test_history_written_before_it_moved_beside_the_ratings_still_reads_after_the_new(
    redis_url: str,
) -> None:
    import redis.asyncio as aioredis

    from server.store.codec import pack

    raw = aioredis.Redis.from_url(redis_url)
    await raw.flushall()
    await raw.rpush("terrace:history:{p-1}", pack({"race": "old-2"}), pack({"race": "old-1"}))
    store = RedisStore(redis_url)
    await store.history_add("p-1", {"race": "new-1"}, keep=10)
    assert [e["race"] for e in await store.history("p-1", 10)] == ["new-1", "old-2", "old-1"]
    assert [e["race"] for e in await store.history("p-1", 2)] == ["new-1", "old-2"]
    await store.close()
    await raw.aclose()
