"""The arena core with a fake clock: states, joining, pairing effects, scoring, schedules."""

from __future__ import annotations

from typing import Any

import pytest

from terrace.errors import ProtocolError
from terrace.race.arena import (
    Arena,
    Changed,
    Pair,
    Schedule,
    Unpair,
    check_standings,
    held_of,
    make_spec,
    parse_schedules,
    race_result,
    standings,
)

T0 = 1_800_000_000_000  # unix ms of the arena's start
SPEC = make_spec("evening", "terrace", "bots", T0, 3)


def bot(pid: str) -> dict[str, Any]:
    return {"id": pid, "name": pid.upper(), "kind": "bot"}


def result(race: str, ended: int, *order: str, places: list[int] | None = None) -> dict[str, Any]:
    places = places or list(range(1, len(order) + 1))
    rows = [
        {"id": p, "name": p.upper(), "kind": "bot", "place": pl} for p, pl in zip(order, places, strict=True)
    ]
    return {"race": race, "ended": ended, "rows": rows}


def test_spec_state_follows_the_clock() -> None:
    assert SPEC.state_at(T0 - 1) == "upcoming"
    assert SPEC.state_at(T0) == "running"
    assert SPEC.state_at(T0 + 180_000 - 1) == "running"
    assert SPEC.state_at(T0 + 180_000) == "finished"


def test_make_spec_refuses_bad_input_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        make_spec("a", "chess", "bots", T0, 3)
    with pytest.raises(ValueError, match="unknown pool"):
        make_spec("a", "terrace", "robots", T0, 3)
    with pytest.raises(ValueError, match="at most"):
        make_spec("a", "terrace", "bots", T0, 0)
    with pytest.raises(ValueError, match="arena id"):
        make_spec("Bad Id", "terrace", "bots", T0, 3)
    with pytest.raises(ValueError, match="no goal"):
        make_spec("a", "louis", "bots", T0, 3, goal="terrace")


def test_ticks_pair_everyone_at_the_start_and_unpair_at_the_end() -> None:
    arena = Arena.restore(SPEC, [bot("a"), bot("b")], [], T0 - 10)
    assert arena.state == "upcoming"
    assert arena.tick(T0 - 1) == []
    assert arena.next_at() == T0
    assert arena.tick(T0) == [Changed("running"), Pair(("a", "b"))]
    assert arena.next_at() == SPEC.ends_ms
    assert arena.tick(SPEC.ends_ms) == [Changed("finished"), Unpair(("a", "b"))]
    assert arena.next_at() is None
    assert arena.tick(SPEC.ends_ms + 5) == []


def test_joining_a_running_arena_pairs_at_once_and_an_upcoming_one_waits() -> None:
    upcoming = Arena.restore(SPEC, [], [], T0 - 5)
    assert upcoming.join(bot("a"), T0 - 5) == [Changed("upcoming")]
    running = Arena.restore(SPEC, [], [], T0 + 5)
    assert running.join(bot("a"), T0 + 5) == [Changed("running"), Pair(("a",))]
    assert "a" in running.players


def test_joining_is_refused_after_the_end_and_outside_the_pool() -> None:
    arena = Arena.restore(SPEC, [], [], SPEC.ends_ms)
    with pytest.raises(ProtocolError) as over:
        arena.join(bot("a"), SPEC.ends_ms)
    assert over.value.code == "arena_over"
    running = Arena.restore(SPEC, [], [], T0)
    with pytest.raises(ProtocolError) as pool:
        running.join({"id": "p", "name": "P", "kind": "human"}, T0)
    assert pool.value.code == "arena_pool"
    assert running.players == {}


def test_leaving_unpairs_and_leaving_twice_is_refused() -> None:
    arena = Arena.restore(SPEC, [bot("a")], [], T0)
    assert arena.leave("a") == [Unpair(("a",)), Changed("running")]
    with pytest.raises(ProtocolError) as again:
        arena.leave("a")
    assert again.value.code == "not_in_arena"


def test_a_race_over_pairs_its_players_still_joined_while_running() -> None:
    arena = Arena.restore(SPEC, [bot("a"), bot("b"), bot("c")], [], T0)
    arena.leave("c")
    effects = arena.race_over(result("r1", T0 + 50, "a", "b", "c"), T0 + 50)
    assert effects == [Changed("running"), Pair(("a", "b"))]


def test_the_summary_counts_everyone_on_the_standings_and_says_who_is_still_joined() -> None:
    """A list once said 3 players where the standings showed 4 (one had raced and left)."""
    arena = Arena.restore(SPEC, [bot("a"), bot("b"), bot("c"), bot("d")], [], T0)
    arena.race_over(result("r1", T0 + 50, "a", "b", "c", "d"), T0 + 50)
    arena.leave("d")
    summary = arena.summary(T0 + 60)
    assert summary["players"] == len(arena.standings()) == 4
    assert summary["joined"] == 3
    arena.join(bot("e"), T0 + 70)  # joined, no race yet: on the standings with nothing
    assert arena.summary(T0 + 70)["players"] == len(arena.standings()) == 5


def test_the_summary_counts_everyone_in_the_standings_even_who_left() -> None:
    arena = Arena.restore(SPEC, [bot("a"), bot("b"), bot("c"), bot("d")], [], T0)
    arena.race_over(result("r1", T0 + 50, "a", "b", "c", "d"), T0 + 50)
    arena.leave("d")  # d raced once and left: still in the standings, so still counted
    arena.join(bot("e"), T0 + 60)  # e joined and has not raced yet: in the standings too
    summary = arena.summary(T0 + 70)
    assert summary["players"] == len(arena.standings()) == 5


def test_a_race_over_after_the_end_counts_but_pairs_nobody() -> None:
    arena = Arena.restore(SPEC, [bot("a"), bot("b")], [], SPEC.ends_ms + 1)
    assert arena.race_over(result("r1", SPEC.ends_ms + 1, "a", "b"), SPEC.ends_ms + 1) == [
        Changed("finished")
    ]
    assert [r["points"] for r in arena.standings()] == [1, 0]


def test_a_race_counts_once() -> None:
    arena = Arena.restore(SPEC, [bot("a"), bot("b")], [], T0)
    arena.race_over(result("r1", T0 + 1, "a", "b"), T0 + 1)
    assert arena.race_over(result("r1", T0 + 1, "a", "b"), T0 + 2) == []
    assert arena.standings()[0]["points"] == 1


def test_points_are_players_beaten() -> None:
    table = standings([result("r1", 1, "a", "b", "c", "d")])
    assert [(r["player"]["id"], r["points"], r["rank"]) for r in table] == [
        ("a", 3, 1),
        ("b", 2, 2),
        ("c", 1, 3),
        ("d", 0, 4),
    ]


def test_ties_share_a_place_and_its_points() -> None:
    table = standings([result("r1", 1, "a", "b", "c", places=[1, 1, 3])])
    points = {r["player"]["id"]: r["points"] for r in table}
    assert points == {"a": 2, "b": 2, "c": 0}
    assert [r["rank"] for r in table] == [1, 1, 3]


def test_the_third_win_in_a_row_scores_double_and_a_loss_ends_the_streak() -> None:
    races = [
        result("r1", 1, "a", "b"),  # a: 1
        result("r2", 2, "a", "b"),  # a: 1 (streak 2 from now on)
        result("r3", 3, "a", "b"),  # a: 2 (doubled)
        result("r4", 4, "b", "a"),  # a: 0, streak over; b: 1
        result("r5", 5, "a", "b"),  # a: 1 (not doubled)
    ]
    table = {r["player"]["id"]: r for r in standings(races)}
    assert table["a"]["points"] == 5
    assert table["a"]["wins"] == 4
    assert table["a"]["streak"] == 1
    assert table["a"]["places"] == [1, 1, 1, 2, 1]
    assert table["b"]["points"] == 1


def test_standings_read_races_in_the_order_they_ended_not_the_order_given() -> None:
    shuffled = [result("r3", 3, "a", "b"), result("r1", 1, "a", "b"), result("r2", 2, "a", "b")]
    assert standings(shuffled)[0]["points"] == 4  # 1 + 1 + 2: the last one is the doubled one


def test_joined_players_without_races_are_listed_with_nothing() -> None:
    table = standings([result("r1", 1, "a", "b")], [bot("z")])
    z = next(r for r in table if r["player"]["id"] == "z")
    assert z["races"] == 0 and z["points"] == 0 and z["places"] == []
    assert len(table) == 3


def record_of(race: str, ended: int, *order: str) -> dict[str, Any]:
    rows = [{"player": bot(p), "place": i + 1} for i, p in enumerate(order)]
    return {"id": race, "ended_at": ended, "results": rows}


def test_race_result_keeps_id_end_and_places_of_a_record() -> None:
    assert race_result(record_of("r9", 77, "a", "b")) == {
        "race": "r9",
        "ended": 77,
        "rows": [
            {"id": "a", "name": "A", "kind": "bot", "place": 1},
            {"id": "b", "name": "B", "kind": "bot", "place": 2},
        ],
    }
    assert race_result(record_of("r9", 77, "a", "b"), {"b": "voided"})["rows"][1]["held"] == "voided"


def test_published_standings_check_against_the_races_and_a_forged_one_does_not() -> None:
    records = [record_of("r1", 1, "a", "b", "c"), record_of("r2", 2, "b", "a")]
    arena = Arena.restore(SPEC, [], [race_result(r) for r in records], T0)
    details = arena.details(T0)
    assert details["race_ids"] == ["r1", "r2"]
    assert check_standings(details, records) == []
    forged = {**details, "standings": [{**details["standings"][0], "points": 99}, *details["standings"][1:]]}
    assert "99 points published" in check_standings(forged, records)[0]
    assert check_standings(details, records[:1])[0] == "races missing: r2"


def test_a_held_result_earns_nothing_and_ends_the_streak_while_the_others_keep_their_places() -> None:
    held = result("r3", 3, "a", "b", "c")
    held["rows"][0]["held"] = "inhuman_pace"
    races = [
        result("r1", 1, "a", "b", "c"),
        result("r2", 2, "a", "b", "c"),
        held,
        result("r4", 4, "a", "b", "c"),
    ]
    table = {r["player"]["id"]: r for r in standings(races)}
    # a: 2 + 2, nothing for r3 (which would have been doubled), then 2 (its streak began again)
    assert (table["a"]["points"], table["a"]["wins"], table["a"]["held"]) == (6, 3, 1)
    assert table["a"]["races"] == 4 and table["a"]["places"] == [1, 1, 1, 1]
    assert (table["b"]["points"], table["c"]["points"]) == (4, 0)  # b still beat c in r3
    assert table["b"]["held"] == 0


def person(pid: str, move_times: list[int]) -> dict[str, Any]:
    return {"player": {"id": pid, "name": pid.upper(), "kind": "human"}, "move_times": move_times}


def test_published_holds_are_checked_against_the_races_move_times() -> None:
    fast, slow = list(range(0, 600, 40)), list(range(0, 15_000, 1_000))  # 15 moves each
    records = [
        {
            "id": "r1",
            "ended_at": 1,
            "results": [{**person("a", fast), "place": 1}, {**person("b", slow), "place": 2}],
        }
    ]
    arena = Arena.restore(SPEC, [], [race_result(records[0], {"a": "inhuman_pace"})], T0)
    details = arena.details(T0)
    assert details["held"] == held_of(arena.results) == {"r1": {"a": "inhuman_pace"}}
    assert [r["points"] for r in details["standings"]] == [0, 0]
    assert check_standings(details, records) == []
    # a hold the record does not bear out, and a published table that ignored a hold
    wrong = {**details, "held": {"r1": {"b": "inhuman_pace"}}}
    assert "B: race r1 held back for its pace, but its moves came at a person's pace" in check_standings(
        wrong, records
    )
    ignored = {**details, "held": {}}
    assert check_standings(ignored, records) == ["A: 0 points published, 1 from the races"]


def test_schedule_makes_the_same_arena_for_every_node_within_a_slot() -> None:
    schedule = Schedule.parse("terrace bots 30m every 60m")
    hour = 3_600_000
    base = 500_000 * hour
    running = schedule.next_spec(base + 10 * 60_000)
    assert running == schedule.next_spec(base + 29 * 60_000)
    assert running.starts_ms == base and running.ends_ms == base + 30 * 60_000
    assert running.id == f"terrace-bots-{base // 60_000}"
    later = schedule.next_spec(base + 30 * 60_000)  # this one is over: the next slot's
    assert later.starts_ms == base + hour


def test_bad_schedules_are_refused() -> None:
    for text in (
        "terrace bots 30m",
        "chess bots 30m every 60m",
        "terrace bots 90m every 60m",
        "terrace x 3m every 5m",
    ):
        with pytest.raises(ValueError):
            Schedule.parse(text)
    assert parse_schedules("") == []
    assert len(parse_schedules("terrace bots 3m every 5m; louis all 10m every 60m")) == 2
