"""Rebuilding a running race from its meta and move log, with a fake clock."""

from __future__ import annotations

from typing import Any

from terrace.race import Race, Seat, restore, restore_waiting
from terrace.race.effects import SaveMeta, Search
from terrace.race.restore import _replay
from tests.terrace.positions import slow_search_position

from .test_core import ALICE, BOB, T0, TIMING, new_race

START = T0 + TIMING.countdown


def saved(*players: dict[str, Any], **rules: Any) -> tuple[Race, dict[str, Any]]:
    """A durable race with ``players`` started at START, and the meta it saved."""
    race = new_race(len(players), durable=True, **rules)
    for p in players:
        race.seat(p, T0)
    race.start(ALICE["id"], T0)
    save = race.tick(START)[0]
    assert isinstance(save, SaveMeta)
    race.meta_saved(save.meta, START)
    return race, save.meta


def log_of(race: Race, who: dict[str, Any], moves: list[str], t0: int = 1_000) -> list[dict[str, Any]]:
    entries = []
    for i, move in enumerate(moves, 1):
        entry = race.check_move(who["id"], i, move, START + t0 + i)
        assert isinstance(entry, dict)
        race.apply_move(entry, START + t0 + i)
        entries.append(entry)
    return entries


def test_a_rebuilt_race_has_every_logged_move_its_answers_and_fresh_grace() -> None:
    race, meta = saved(ALICE, BOB)
    entries = log_of(race, ALICE, ["1f", "S-W", "S-W"])
    rebuilt, searches = restore("r1", meta, entries, timing=TIMING)
    assert searches == []
    seat = rebuilt.seats["g-alice"]
    assert (seat.seq, seat.game.moves) == (3, race.seats["g-alice"].game.moves)  # type: ignore[union-attr]
    assert seat.answers[1][1] == race.seats["g-alice"].answers[1][1]  # a resend gets the same answer
    effects = rebuilt.go_on(START + 5_000)
    assert rebuilt.state == "running" and all(
        s.grace_until == START + 5_000 + TIMING.grace for s in rebuilt.seats.values()
    )
    assert effects[-1].at == START + 5_000 + TIMING.grace  # type: ignore[union-attr]


def test_the_last_entry_of_a_seq_wins_and_a_finish_before_later_moves_is_forgotten() -> None:
    race, meta = saved(ALICE)
    entries = log_of(race, ALICE, ["1f"])
    legal = sorted(race.seats["g-alice"].game.legal_moves())  # type: ignore[union-attr]
    entries += [
        {
            "p": "g-alice",
            "seq": 2,
            "m": legal[0],
            "t": 2_000,
        },  # its answer was lost: sent again as another move
        {"p": "g-alice", "f": "resigned", "t": 2_500},  # refused (store down), then the player played on
        {"p": "g-alice", "seq": 2, "m": legal[-1], "t": 3_000},
    ]
    rebuilt, _ = restore("r1", meta, entries, timing=TIMING)
    seat = rebuilt.seats["g-alice"]
    assert seat.game.moves == ["1-F1", legal[-1]] and seat.finish is None  # type: ignore[union-attr]


def test_entries_at_or_past_the_time_limit_were_never_applied() -> None:
    race, meta = saved(ALICE)
    entries = log_of(race, ALICE, ["1f"])
    entries.append({"p": "g-alice", "seq": 2, "m": "S-W", "t": 600_000})
    rebuilt, _ = restore("r1", meta, entries, timing=TIMING)
    assert rebuilt.seats["g-alice"].seq == 1


def test_a_race_whose_time_ran_out_while_nobody_ran_it_ends_by_time_at_once() -> None:
    race, meta = saved(ALICE, BOB)
    entries = log_of(race, ALICE, ["1f"])
    rebuilt, _ = restore("r1", meta, entries, timing=TIMING)
    effects = rebuilt.go_on(START + 600_000 + 1)
    assert rebuilt.state == "finished"
    finished = next(e.message for e in effects if getattr(e, "message", {}).get("type") == "finished")  # type: ignore[attr-defined]
    assert [r["finish"] for r in finished["results"]] == ["time", "time"]


def test_a_logged_finish_comes_back_and_a_race_everyone_finished_ends() -> None:
    race, meta = saved(ALICE)
    entries = [*log_of(race, ALICE, ["1f"]), {"p": "g-alice", "f": "resigned", "t": 4_000}]
    rebuilt, _ = restore("r1", meta, entries, timing=TIMING)
    assert rebuilt.seats["g-alice"].finish == "resigned"
    rebuilt.go_on(START + 10_000)
    assert rebuilt.state == "finished" and rebuilt.results[0]["time"] == 4_000


def test_a_last_position_that_needs_the_long_search_asks_for_it_before_the_race_goes_on() -> None:
    race, meta = saved(ALICE, variant="signora", goal="clear")
    race.seats["g-alice"].game = slow_search_position()
    entry = race.check_move("g-alice", 1, "7-9", START + 100)
    assert isinstance(entry, dict)
    # the rebuilt race deals from the seed, so give it the same hand-built position
    rebuilt = restore("r1", meta, [], timing=TIMING)[0]
    rebuilt.seats["g-alice"].game = slow_search_position()
    search = _replay(rebuilt, rebuilt.seats["g-alice"], {1: entry})
    assert isinstance(search, Search)
    assert rebuilt.settled("g-alice", "lost", START + 200) == []  # nobody waits for an answer
    assert rebuilt.seats["g-alice"].finish == "stuck" and 1 in rebuilt.seats["g-alice"].answers


def test_a_winnable_race_keeps_its_solution_through_the_meta_and_a_restore() -> None:
    race = Race(
        "r1",
        new_race(1).rules,
        seed=bytes(range(32)),
        now=T0,
        timing=TIMING,
        creator=ALICE,
        durable=True,
        solution=["x"],
    )
    race.seat(ALICE, T0)
    race.start(ALICE["id"], T0)
    save = race.tick(START)[0]
    assert isinstance(save, SaveMeta) and save.meta["solution"] == ["x"]
    race.meta_saved(save.meta, START)
    rebuilt, _ = restore("r1", save.meta, [], timing=TIMING)
    assert rebuilt.solution == ["x"]
    rebuilt.apply_resign(rebuilt.check_resign(ALICE["id"], START + 10), START + 10)
    assert rebuilt.record()["solution"] == ["x"]
    assert "solution" not in new_race(1).record()


def test_a_waiting_race_comes_back_open_with_its_seats_its_seed_and_nobody_unseated() -> None:
    race = new_race(seats=3, durable=True)
    race.seat(ALICE, T0)
    back, effects = restore_waiting(race.id, race.meta(), now=T0 + 5_000, timing=TIMING)
    assert (back.state, list(back.seats), back.commitment) == ("open", [ALICE["id"]], race.commitment)
    assert [type(e).__name__ for e in effects] == ["Changed"]
    assert back.seats[ALICE["id"]].connected is False  # its connection died with the old server
    back.seat(BOB, T0 + 6_000)  # her seat waits for her while others join
    assert list(back.seats) == [ALICE["id"], BOB["id"]]
    back.reconnected(ALICE["id"], T0 + 7_000)
    assert back.seats[ALICE["id"]].connected is True


def test_a_race_that_was_counting_down_or_is_full_counts_down_again() -> None:
    counting = new_race(seats=3, durable=True)
    counting.seat(ALICE, T0)
    counting.start(ALICE["id"], T0)
    back, _ = restore_waiting(counting.id, counting.meta(), now=T0 + 9_000, timing=TIMING)
    assert (back.state, back.starts_ms) == ("countdown", T0 + 9_000 + TIMING.countdown)
    full = new_race(seats=2, durable=True, start="full")
    full.seats[ALICE["id"]] = Seat(ALICE)
    full.seats[BOB["id"]] = Seat(BOB)
    back, _ = restore_waiting(full.id, full.meta(), now=T0, timing=TIMING)
    assert back.state == "countdown"
