"""The race's state table: every step it lists is allowed, every other one raises."""

from __future__ import annotations

import pytest

from terrace.race import TRANSITIONS, IllegalTransition, Race, RaceRules
from terrace.race.states import OVER, step
from terrace.vocab import RACE_STATES


def test_the_table_names_every_race_state_and_nothing_leaves_an_ended_race() -> None:
    assert set(TRANSITIONS) == set(RACE_STATES)
    assert all(not TRANSITIONS[s] for s in OVER)


@pytest.mark.parametrize("old,new", [(o, n) for o in TRANSITIONS for n in sorted(TRANSITIONS[o])])
def test_every_listed_step_is_allowed(old: str, new: str) -> None:
    assert step("r", old, new) == new  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "old,new",
    [(o, n) for o in TRANSITIONS for n in RACE_STATES if n not in TRANSITIONS[o]],
)
def test_every_other_step_raises_illegal_transition(old: str, new: str) -> None:
    with pytest.raises(IllegalTransition, match=f"{old} -> {new}"):
        step("r", old, new)  # type: ignore[arg-type]


def test_a_race_cannot_jump_from_open_to_running() -> None:
    race = Race("r", RaceRules("terrace", "terrace", 2, 60), seed=bytes(32), now=0)
    with pytest.raises(IllegalTransition):
        race._to("running")
    assert race.state == "open"
