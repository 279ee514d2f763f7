"""A race made unrated (two accounts of one address in a created race) says so in its summary,
its ``started`` push and its record, and stays unrated when rebuilt from its meta on a restart."""

from __future__ import annotations

from dataclasses import replace

from terrace.race import Race, RaceOptions, RaceRules, Timing
from terrace.race.effects import Send
from terrace.race.restore import restore_waiting
from terrace.race.rules import PLAIN

RULES = RaceRules("terrace", "terrace", 2, 60, "all", "manual")
ALICE = {"id": "p-a", "name": "alice", "kind": "human", "guest": False}
BOB = {"id": "p-b", "name": "bob", "kind": "human", "guest": False}


def _race(options: RaceOptions = PLAIN) -> Race:
    race = Race(
        "r1", RULES, seed=bytes(32), now=0, timing=Timing(countdown=0), creator=ALICE, options=options
    )  # type: ignore[arg-type]
    race.seat(ALICE, 0)  # type: ignore[arg-type]
    return race


def test_an_unrated_race_says_so_everywhere_and_a_rated_one_says_nothing() -> None:
    plain = _race()
    assert "unrated" not in plain.summary() and "rated" not in plain.summary()
    race = _race()
    race.options = replace(race.options, unrated="same_address")
    race.seat(BOB, 0)  # type: ignore[arg-type]
    assert race.summary()["unrated"] == "same_address"
    effects = race.start("p-a", 0) + race.tick(0)
    started = [e.message for e in effects if isinstance(e, Send) and e.message["type"] == "started"]
    assert len(started) == 2 and all(m["unrated"] == "same_address" for m in started)
    for pid in ("p-a", "p-b"):
        race.apply_resign(race.check_resign(pid, 10), 10)
    assert race.record()["unrated"] == "same_address"


def test_unrated_and_rated_only_survive_a_restart_from_the_meta() -> None:
    race = _race(RaceOptions(rated_only=True))
    assert race.summary()["rated"] is True
    race.options = replace(race.options, unrated="same_address")
    again, _ = restore_waiting("r1", race.meta(), now=5, timing=Timing(countdown=0))
    assert again.options == race.options
    assert again.summary()["unrated"] == "same_address" and again.summary()["rated"] is True
