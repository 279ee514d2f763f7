"""The state tables, written out here as a specification, and the events each entry point fires.

The rows below are the specification: the tables in ``terrace.race.states`` must be exactly
these, so a wrong row in the code fails here rather than being read back as expected.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from terrace.race import IllegalTransition, Race, RaceRules, Timing, restore
from terrace.race.arena import Arena, make_spec
from terrace.race.effects import SaveMeta
from terrace.race.seat import Seat
from terrace.race.states import ARENA, RACE, SEAT, SHOWN, Machine, diagram
from tests.terrace.positions import slow_search_position

ROOT = Path(__file__).resolve().parents[3]

RACE_SPEC = {
    ("open", "join", "open"),
    ("open", "leave", "open"),
    ("open", "reconnect", "open"),
    ("open", "begin", "countdown"),
    ("open", "empty", "cancelled"),
    ("open", "expire", "cancelled"),
    ("open", "restore", "running"),
    ("countdown", "leave", "countdown"),
    ("countdown", "reconnect", "countdown"),
    ("countdown", "disconnect", "countdown"),
    ("countdown", "deal", "running"),
    ("countdown", "save_meta", "saving"),
    ("countdown", "empty", "cancelled"),
    ("saving", "leave", "saving"),
    ("saving", "reconnect", "saving"),
    ("saving", "disconnect", "saving"),
    ("saving", "save_meta", "saving"),
    ("saving", "meta_saved", "running"),
    ("saving", "empty", "cancelled"),
    ("running", "move", "running"),
    ("running", "settle", "running"),
    ("running", "resign", "running"),
    ("running", "reconnect", "running"),
    ("running", "disconnect", "running"),
    ("running", "grace_over", "running"),
    ("running", "resume", "running"),
    ("running", "end", "finished"),
    ("running", "time_up", "finished"),
    ("finished", "settle", "finished"),
}
RACE_PHASES = ["open", "countdown", "saving", "running", "finished", "cancelled"]
RACE_EVENTS = [
    "join", "leave", "empty", "begin", "expire", "deal", "save_meta", "meta_saved", "restore",
    "resume", "reconnect", "disconnect", "move", "settle", "resign", "grace_over", "end", "time_up",
]  # fmt: skip

SEAT_SPEC = {
    ("waiting", "dealt", "playing"),
    ("playing", "moved", "playing"),
    ("playing", "searching", "searching"),
    ("playing", "finished", "finished"),
    ("searching", "settled", "playing"),
    ("searching", "finished", "finished"),
    ("finished", "settled", "finished"),
}
SEAT_STATES = ["waiting", "playing", "searching", "finished"]
SEAT_EVENTS = ["dealt", "moved", "searching", "settled", "finished"]

ARENA_SPEC = {
    ("upcoming", "join", "upcoming"),
    ("upcoming", "leave", "upcoming"),
    ("upcoming", "start", "running"),
    ("upcoming", "end", "finished"),
    ("running", "join", "running"),
    ("running", "leave", "running"),
    ("running", "race_over", "running"),
    ("running", "end", "finished"),
    ("finished", "leave", "finished"),
    ("finished", "race_over", "finished"),
}
ARENA_STATES = ["upcoming", "running", "finished"]
ARENA_EVENTS = ["join", "leave", "start", "end", "race_over"]

MACHINES = [
    ("race", RACE, RACE_SPEC, RACE_PHASES, RACE_EVENTS),
    ("seat", SEAT, SEAT_SPEC, SEAT_STATES, SEAT_EVENTS),
    ("arena", ARENA, ARENA_SPEC, ARENA_STATES, ARENA_EVENTS),
]


def _rows(table: Any) -> set[tuple[str, str, str]]:
    return {(state, event, new) for state, row in table.items() for event, new in row.items()}


@pytest.mark.parametrize("name,table,spec,states,events", MACHINES, ids=[m[0] for m in MACHINES])
def test_the_table_is_exactly_the_specification(
    name: str, table: Any, spec: set[tuple[str, str, str]], states: list[str], events: list[str]
) -> None:
    assert list(table) == states
    assert _rows(table) == spec


def _cases(spec: set[tuple[str, str, str]], states: list[str], events: list[str], listed: bool) -> list[Any]:
    given = {(s, e): n for s, e, n in spec}
    if listed:
        return sorted((s, e, n) for (s, e), n in given.items())
    return [(s, e, None) for s in states for e in events if (s, e) not in given]


@pytest.mark.parametrize(
    "table,state,event,new",
    [(m[1], *c) for m in MACHINES for c in _cases(m[2], m[3], m[4], listed=True)],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_listed_event_moves_the_machine_to_its_next_state(
    table: Any, state: str, event: str, new: str
) -> None:
    machine = Machine(table, state, "m")
    assert machine.allows(event) and machine.fire(event) == new and machine.state == new


@pytest.mark.parametrize(
    "table,state,event,new",
    [(m[1], *c) for m in MACHINES for c in _cases(m[2], m[3], m[4], listed=False)],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_other_event_raises_illegal_transition_and_changes_nothing(
    table: Any, state: str, event: str, new: None
) -> None:
    machine = Machine(table, state, "race r9")
    assert not machine.allows(event)
    with pytest.raises(IllegalTransition, match=f"race r9: '{event}' in state '{state}'") as e:
        machine.fire(event)
    assert (e.value.state, e.value.event) == (state, event) and machine.state == state


def test_the_race_saving_its_meta_is_shown_as_counting_down_and_every_other_state_as_itself() -> None:
    assert dict(SHOWN) == {
        "open": "open",
        "countdown": "countdown",
        "saving": "countdown",
        "running": "running",
        "finished": "finished",
        "cancelled": "cancelled",
    }


# ----- the events each entry point fires ---------------------------------------------------


class Recorder(Machine[Any, Any]):
    """A machine that also notes every event fired."""

    def __init__(self, machine: Machine[Any, Any]) -> None:
        super().__init__(machine.table, machine.state, machine.name)
        self.fired: list[str] = []

    def fire(self, event: Any) -> Any:
        self.fired.append(event)
        return super().fire(event)


TIMING = Timing(countdown=3_000, grace=10_000, standings=100, open_for=60_000)
T0 = 1_000_000
ALICE = {"id": "a", "name": "alice", "kind": "human", "guest": True}
BOB = {"id": "b", "name": "bob", "kind": "human", "guest": True}


def race(
    durable: bool = False, seats: int = 2, start: str = "manual", **rules: Any
) -> tuple[Race, list[str]]:
    r = RaceRules(rules.get("variant", "terrace"), rules.get("goal", "terrace"), seats, 60, "all", start)  # type: ignore[arg-type]
    made = Race("r1", r, seed=bytes(range(32)), now=T0, timing=TIMING, creator=ALICE, durable=durable)
    recorder = made.machine = Recorder(made.machine)
    return made, recorder.fired


def dealt(**rules: Any) -> tuple[Race, list[str]]:
    made, fired = race(**rules)
    made.seat(ALICE, T0)
    made.seat(BOB, T0)
    made.start("a", T0)
    made.tick(T0 + TIMING.countdown)
    fired.clear()
    return made, fired


def move(made: Race, who: str, seq: int, text: str, now: int) -> Any:
    checked = made.check_move(who, seq, text, now)
    assert isinstance(checked, dict)
    return made.apply_move(checked, now)


RUNNING = T0 + TIMING.countdown + 500


def test_seating_joins_and_the_seat_that_fills_a_start_full_race_begins_it() -> None:
    made, fired = race(start="full")
    made.seat(ALICE, T0)
    assert fired == ["join"] and made.phase == "open"
    made.seat(BOB, T0)
    assert fired == ["join", "join", "begin"] and made.phase == "countdown"


def test_the_creator_starting_begins_and_the_countdown_ending_deals() -> None:
    made, fired = race()
    made.seat(ALICE, T0)
    made.start("a", T0)
    made.tick(T0 + TIMING.countdown)
    assert fired == ["join", "begin", "deal"] and made.phase == "running"


def test_leaving_before_the_deal_leaves_and_the_last_to_go_empties_the_race() -> None:
    made, fired = race()
    made.seat(ALICE, T0)
    made.seat(BOB, T0)
    made.unseat("a", T0)
    made.disconnected("b", T0)  # before the deal a lost connection is a leave
    assert fired == ["join", "join", "leave", "empty"] and made.phase == "cancelled"


def test_nobody_starting_the_race_in_time_expires_it() -> None:
    made, fired = race()
    made.seat(ALICE, T0)
    made.tick(T0 + TIMING.open_for)  # type: ignore[operator]
    assert fired == ["join", "expire"] and made.state == "cancelled"


def test_a_durable_race_is_saving_its_meta_between_the_countdown_and_the_first_view() -> None:
    made, fired = race(durable=True)
    made.seat(ALICE, T0)
    made.seat(BOB, T0)
    made.start("a", T0)
    save = made.tick(T0 + TIMING.countdown)[0]
    assert isinstance(save, SaveMeta)
    assert made.phase == "saving" and made.state == "countdown" and made.summary()["state"] == "countdown"
    assert made.next_wake() is None  # nothing is due while the store saves
    made.unseat("b", T0 + TIMING.countdown + 1)
    again = made.meta_saved(save.meta, T0 + TIMING.countdown + 2)[0]  # saved with bob: save again
    assert isinstance(again, SaveMeta)
    made.meta_saved(again.meta, T0 + TIMING.countdown + 3)
    assert fired[-4:] == ["save_meta", "leave", "save_meta", "meta_saved"] and made.phase == "running"


def test_the_last_player_leaving_while_saving_empties_the_race_and_the_save_changes_nothing() -> None:
    made, fired = race(durable=True, seats=1)
    made.seat(ALICE, T0)
    made.start("a", T0)
    save = made.tick(T0 + TIMING.countdown)[0]
    made.unseat("a", T0 + TIMING.countdown + 1)
    assert made.meta_saved(save.meta, T0 + TIMING.countdown + 2) == []  # type: ignore[attr-defined]
    assert fired[-2:] == ["save_meta", "empty"] and made.phase == "cancelled"


def test_moves_resignations_and_the_last_finish_fire_move_resign_and_end() -> None:
    made, fired = dealt()
    move(made, "a", 1, "1f", RUNNING)
    made.apply_resign(made.check_resign("a", RUNNING), RUNNING)
    made.apply_resign(made.check_resign("b", RUNNING, "left"), RUNNING)
    assert fired == ["move", "resign", "resign", "end"] and made.phase == "finished"
    assert [made.seats[p].state for p in "ab"] == ["finished", "finished"]


def test_connections_coming_and_going_and_the_grace_running_out_fire_their_events() -> None:
    made, fired = dealt()
    made.disconnected("b", RUNNING)
    made.reconnected("b", RUNNING + 1)
    made.disconnected("b", RUNNING + 2)
    made.tick(RUNNING + 2 + TIMING.grace)
    assert fired == ["disconnect", "reconnect", "disconnect", "grace_over"]
    assert made.seats["b"].finish == "disconnected" and made.phase == "running"


def test_the_time_limit_fires_time_up() -> None:
    made, fired = dealt()
    made.tick(T0 + TIMING.countdown + 60_000)
    assert fired == ["time_up"] and made.phase == "finished"


def test_a_long_search_takes_the_seat_to_searching_and_settling_back_to_playing() -> None:
    made, fired = dealt(variant="signora", goal="clear")
    made.seats["a"].game = slow_search_position()
    move(made, "a", 1, "7-9", RUNNING)
    assert made.seats["a"].state == "searching"
    made.settled("a", "playing", RUNNING + 1)
    assert fired == ["move", "settle"] and made.seats["a"].state == "playing"


def test_a_search_that_answers_after_the_time_ran_out_answers_the_move_and_finishes_nobody_again() -> None:
    made, fired = dealt(variant="signora", goal="clear")
    made.seats["a"].game = slow_search_position()
    move(made, "a", 1, "7-9", RUNNING)
    made.tick(T0 + TIMING.countdown + 60_000)  # the search is still running
    effects = made.settled("a", "lost", T0 + TIMING.countdown + 60_100)
    assert [type(e).__name__ for e in effects] == ["Reply"]
    assert effects[0].message["move"] == "7-9"  # type: ignore[union-attr]
    assert made.seats["a"].finish == "time" and made.phase == "finished"
    assert fired == ["move", "time_up", "settle"]


def test_a_race_rebuilt_from_its_log_is_restored_then_resumed() -> None:
    made, _ = dealt()
    move(made, "a", 1, "1f", RUNNING)
    meta = made.meta()
    log = [{"p": "a", "seq": 1, "m": "1-F1", "t": 500}]
    rebuilt, searches = restore("r1", meta, log, timing=TIMING)  # type: ignore[arg-type]
    assert searches == [] and rebuilt.phase == "running"
    assert [s.state for s in rebuilt.seats.values()] == ["playing", "playing"]
    recorder = rebuilt.machine = Recorder(rebuilt.machine)
    rebuilt.go_on(RUNNING + 10)
    assert recorder.fired == ["resume"]


def test_a_seat_made_with_its_game_plays_at_once_and_finishes_only_once() -> None:
    seat = Seat(ALICE, game=slow_search_position())  # type: ignore[arg-type]
    assert seat.state == "playing"
    seat.end("goal", 10)
    with pytest.raises(IllegalTransition, match="seat a: 'finished' in state 'finished'"):
        seat.end("time", 20)
    assert (seat.finish, seat.finish_ms) == ("goal", 10)


# ----- the arena ---------------------------------------------------------------------------

SPEC = make_spec("evening", "terrace", "bots", T0, 3)
BOT = {"id": "x", "name": "X", "kind": "bot"}


def test_the_arena_clock_starts_and_ends_it_and_a_late_tick_goes_straight_to_the_end() -> None:
    arena = Arena.restore(SPEC, [], [], T0 - 1)
    recorder = arena.machine = Recorder(arena.machine)
    arena.join(BOT, T0 - 1)
    arena.tick(T0)
    arena.race_over({"race": "r", "ended": T0 + 1, "rows": []}, T0 + 1)
    arena.tick(SPEC.ends_ms)
    arena.leave("x")
    assert recorder.fired == ["join", "start", "race_over", "end", "leave"] and arena.state == "finished"
    late = Arena.restore(SPEC, [], [], T0 - 1)
    late.tick(SPEC.ends_ms + 1)
    assert late.state == "finished"


def test_a_finished_arena_cannot_start_again() -> None:
    arena = Arena.restore(SPEC, [], [], SPEC.ends_ms)
    with pytest.raises(IllegalTransition, match="arena evening: 'start' in state 'finished'"):
        arena.machine.fire("start")
    assert arena.state == "finished"


# ----- the docs' diagram -------------------------------------------------------------------


def test_the_diagram_draws_one_arrow_per_step_naming_its_events() -> None:
    table = {"a": {"go": "b", "stay": "a", "jump": "b"}, "b": {}}
    assert diagram(table, "a", {"a": "a", "b": "shown b"}) == (
        "stateDiagram-v2\n"
        "    [*] --> a\n"
        "    a --> b: go, jump\n"
        "    a --> a: stay\n"
        "    b: b (shown as shown b)\n"
        "    b --> [*]"
    )


@pytest.mark.parametrize(
    "name,drawn",
    [
        ("race", diagram(RACE, "open", SHOWN)),
        ("seat", diagram(SEAT, "waiting")),
        ("arena", diagram(ARENA, "upcoming")),
    ],
)
def test_the_architecture_page_draws_each_table_as_it_is(name: str, drawn: str) -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    block = re.search(rf"<!-- {name} states: .*? -->\n```mermaid\n(.*?)\n```", doc, re.S)
    assert block is not None, f"docs/architecture.md has no '<!-- {name} states: ... -->' block"
    assert block.group(1) == drawn, (
        f"docs/architecture.md's {name} diagram is stale; it should read:\n{drawn}"
    )
