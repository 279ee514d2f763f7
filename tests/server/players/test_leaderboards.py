"""Leaderboards over both stores: what a finished race puts on which board, order, ties, periods, paging."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.players.fairplay import FairPlay
from server.players.leaderboards import Leaderboards
from server.store import Account, MemoryStore, Store
from server.store.redis import RedisStore
from terrace.errors import ProtocolError
from terrace.wire.messages import LeaderboardQuery
from tests.server.conftest import FAST

_IDS = itertools.count(1)  # every record a race of its own
NOV_23 = 1_795_392_000.0  # 2026-11-23 00:00 UTC, a Monday


class Clock:
    def __init__(self) -> None:
        self.now = NOV_23 + 3600

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    s: Store = (
        MemoryStore() if request.param == "memory" else RedisStore(request.getfixturevalue("redis_url"))
    )
    for n, (name, kind) in enumerate(
        [
            ("alice", "human"),
            ("bob", "human"),
            ("carol", "human"),
            ("dan", "human"),
            ("robo", "bot"),
            ("tin", "bot"),
        ]
    ):
        await s.add_account(Account(f"a-{name}", name, kind, f"hash-{n}", 0))
    yield s
    await s.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def boards(store: Store, clock: Clock) -> Leaderboards:
    return Leaderboards(store, FairPlay(store, FAST, clock), clock=clock)


def _player(name: str, kind: str = "human", guest: bool = False) -> dict[str, Any]:
    return {"id": f"g-{name}" if guest else f"a-{name}", "name": name, "kind": kind, "guest": guest}


def _record(
    *rows: tuple[str, int, str, int | None], variant: str = "terrace", kind: str = "human"
) -> dict[str, Any]:
    """Rows of (name, place, finish, time ms); a name starting with ``guest`` is a guest."""
    return {
        "id": f"r{next(_IDS)}",
        "variant": variant,
        "goal": "clear" if variant == "louis" else "terrace",
        "results": [
            {
                "player": _player(name, kind, guest=name.startswith("guest")),
                "place": place,
                "finish": finish,
                "time": t,
                "score": 40,
                "terrace_left": 0 if finish == "goal" else 5,
            }
            for name, place, finish, t in rows
        ],
    }


def _names(answer: dict[str, Any]) -> list[tuple[int, str, Any]]:
    return [(r["rank"], r["player"]["name"], r["value"]) for r in answer["rows"]]


async def test_a_race_puts_goal_times_wins_and_ratings_on_their_boards(boards: Leaderboards) -> None:
    changed = await boards.race_finished(
        _record(("alice", 1, "goal", 5000), ("bob", 2, "goal", 7000), ("carol", 3, "stuck", None))
    )
    assert {b.key for b in changed} == {
        "fastest:terrace:terrace",
        "fastest:terrace:terrace:day:2026-11-23",
        "fastest:terrace:terrace:week:2026-W48",
        "wins:terrace",
        "rating:humans:terrace",
    }
    fastest = await boards.answer(LeaderboardQuery(board="fastest", variant="terrace"))
    assert _names(fastest) == [(1, "alice", 5000), (2, "bob", 7000)]
    assert (fastest["goal"], fastest["period"], fastest["total"]) == ("terrace", "all", 2)
    assert _names(await boards.answer(LeaderboardQuery(board="wins", variant="terrace"))) == [(1, "alice", 1)]
    rating = await boards.answer(LeaderboardQuery(board="rating", variant="terrace", pool="humans"))
    assert [name for _, name, _ in _names(rating)] == ["alice", "bob", "carol"]
    assert rating["rows"][0]["value"] > rating["rows"][1]["value"] > rating["rows"][2]["value"]
    assert {"mu", "sigma"} <= set(rating["rows"][0])


async def test_the_best_time_is_kept_and_a_faster_one_takes_over(boards: Leaderboards) -> None:
    await boards.race_finished(_record(("alice", 1, "goal", 5000), ("bob", 2, "goal", 7000)))
    await boards.race_finished(_record(("bob", 1, "goal", 4000), ("alice", 2, "goal", 6000)))
    fastest = await boards.answer(LeaderboardQuery(board="fastest", variant="terrace"))
    assert _names(fastest) == [(1, "bob", 4000), (2, "alice", 5000)]
    wins = _names(await boards.answer(LeaderboardQuery(board="wins", variant="terrace")))
    assert sorted(wins) == [(1, "alice", 1), (1, "bob", 1)]  # level: one shared rank


async def test_equal_scores_share_a_rank_and_the_next_rank_skips(boards: Leaderboards) -> None:
    await boards.race_finished(_record(("alice", 1, "goal", 5000), ("bob", 1, "goal", 5000)))
    await boards.race_finished(_record(("carol", 1, "goal", 6000), ("dan", 2, "goal", 8000)))
    rows = _names(await boards.answer(LeaderboardQuery(board="fastest", variant="terrace")))
    assert [(rank, t) for rank, _, t in rows] == [(1, 5000), (1, 5000), (3, 6000), (4, 8000)]
    assert {name for _, name, _ in rows[:2]} == {"alice", "bob"}


async def test_day_and_week_boards_start_afresh_with_their_period(boards: Leaderboards, clock: Clock) -> None:
    await boards.race_finished(_record(("alice", 1, "goal", 5000), ("bob", 2, "stuck", None)))
    clock.now += 86_400  # Tuesday: a new day, the same week
    await boards.race_finished(_record(("bob", 1, "goal", 9000), ("alice", 2, "stuck", None)))
    day = await boards.answer(LeaderboardQuery(board="fastest", variant="terrace", period="day"))
    week = await boards.answer(LeaderboardQuery(board="fastest", variant="terrace", period="week"))
    assert (day["period_key"], _names(day)) == ("2026-11-24", [(1, "bob", 9000)])
    assert (week["period_key"], _names(week)) == ("2026-W48", [(1, "alice", 5000), (2, "bob", 9000)])
    clock.now += 7 * 86_400
    assert (await boards.answer(LeaderboardQuery(board="fastest", variant="terrace", period="week")))[
        "rows"
    ] == []
    assert (
        len((await boards.answer(LeaderboardQuery(board="fastest", variant="terrace")))["rows"]) == 2
    )  # all time


async def test_a_race_with_a_guest_counts_on_no_board_and_a_race_alone_counts_its_time(
    boards: Leaderboards, store: Store
) -> None:
    """Every player of a race has its deal, and a guest (as many as one likes) may turn the stock
    through and tell it: an account's time in such a race proves nothing (a helper put one at
    230 ms on the fastest board)."""
    record = _record(("guest-zed", 1, "goal", 3000), ("alice", 2, "goal", 5000))
    await boards.race_finished(record)
    assert (await boards.answer(LeaderboardQuery(board="fastest", variant="terrace")))["rows"] == []
    assert (await boards.answer(LeaderboardQuery(board="wins", variant="terrace")))["rows"] == []
    assert await store.board_size("rating:humans:terrace") == 0  # a guest in the race: unrated
    await boards.race_finished(_record(("alice", 1, "goal", 7000)))  # alone: nobody to tell her the deal
    assert _names(await boards.answer(LeaderboardQuery(board="fastest", variant="terrace"))) == [
        (1, "alice", 7000)
    ]
    assert (await boards.answer(LeaderboardQuery(board="wins", variant="terrace")))[
        "rows"
    ] == []  # a win needs a race


async def test_bots_have_their_own_rating_pool(boards: Leaderboards) -> None:
    await boards.race_finished(_record(("robo", 2, "stuck", None), ("tin", 1, "goal", 3000), kind="bot"))
    bots = await boards.answer(LeaderboardQuery(board="rating", variant="terrace", pool="bots"))
    assert [name for _, name, _ in _names(bots)] == ["tin", "robo"]
    assert (await boards.answer(LeaderboardQuery(board="rating", variant="terrace", pool="humans")))[
        "rows"
    ] == []


async def test_pages_and_the_rows_around_a_player(boards: Leaderboards) -> None:
    for n, name in enumerate(["alice", "bob", "carol", "dan"]):
        await boards.race_finished(_record((name, 1, "goal", 1000 * (n + 1))))  # each alone
    page = await boards.answer(LeaderboardQuery(board="fastest", variant="terrace", start=1, count=2))
    assert (page["start"], page["total"], _names(page)) == (1, 4, [(2, "bob", 2000), (3, "carol", 3000)])
    around = await boards.answer(
        LeaderboardQuery(board="fastest", variant="terrace", around="carol", count=3)
    )
    assert (around["start"], [n for _, n, _ in _names(around)]) == (1, ["bob", "carol", "dan"])
    assert [r["position"] for r in around["rows"]] == [2, 3, 4]


async def test_queries_naming_no_board_or_an_absent_player_are_refused(boards: Leaderboards) -> None:
    with pytest.raises(ProtocolError) as e:
        await boards.answer(LeaderboardQuery(board="rating", variant="terrace"))
    assert e.value.code == "bad_board"
    with pytest.raises(ProtocolError) as e:
        await boards.answer(LeaderboardQuery(board="fastest", variant="louis", goal="terrace"))
    assert e.value.code == "bad_board"
    with pytest.raises(ProtocolError) as e:
        await boards.answer(LeaderboardQuery(board="wins", variant="terrace", around="nobody"))
    assert e.value.code == "not_on_board"


async def test_one_race_finished_twice_is_counted_once(boards: Leaderboards, store: Store) -> None:
    record = _record(("alice", 1, "goal", 5000), ("bob", 2, "goal", 7000))
    assert await boards.race_finished(record) != []
    rating = await store.rating("humans", "terrace", "a-alice")
    assert await boards.race_finished(record) == []  # a retry, or another node finishing it again
    assert _names(await boards.answer(LeaderboardQuery(board="wins", variant="terrace"))) == [(1, "alice", 1)]
    assert await store.rating("humans", "terrace", "a-alice") == rating


async def test_races_rating_the_same_players_at_once_are_each_counted(
    boards: Leaderboards, store: Store
) -> None:
    records = [_record(("alice", 1, "goal", 5000 + n), ("bob", 2, "stuck", None)) for n in range(6)]
    await asyncio.gather(*(boards.race_finished(r) for r in records))
    assert _names(await boards.answer(LeaderboardQuery(board="wins", variant="terrace"))) == [(1, "alice", 6)]
    store = MemoryStore()
    alone = Leaderboards(store, FairPlay(store, FAST))
    for r in records:  # one after the other: the ratings all six races together must give
        await alone.race_finished(r)
    assert await store.rating("humans", "terrace", "a-alice") == await alone.store.rating(
        "humans", "terrace", "a-alice"
    )
