"""The race core driven with a fake clock: seats, countdown, moves, resends, grace, time, finishes.

Time is an int the test passes in; nothing sleeps. Each test reads the effects a call
returns, in order, as the server's driver would apply them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from terrace.errors import ProtocolError
from terrace.race import KEEP_ANSWERS, Race, RaceRules, Timing
from terrace.race.effects import (
    Broadcast,
    Changed,
    Effect,
    Log,
    Over,
    Reply,
    Search,
    Send,
    Wake,
)
from terrace.wire.protocol import pack
from terrace.wire.views import view_changes
from tests.terrace.positions import family_game, slow_search_position

TIMING = Timing(countdown=3_000, grace=10_000, standings=100)
T0 = 1_000_000  # the clock when the race is made


def player(name: str, kind: str = "human") -> dict[str, Any]:
    return {"id": f"g-{name}", "name": name, "kind": kind, "guest": True}


ALICE, BOB, CAROL = player("alice"), player("bob"), player("carol")


def new_race(seats: int = 2, durable: bool = False, **rules: Any) -> Race:
    r = RaceRules(
        rules.get("variant", "terrace"),
        rules.get("goal", "terrace"),
        seats,
        rules.get("time_limit", 600),
        rules.get("entry", "all"),
        rules.get("start", "manual"),
    )
    return Race("r1", r, seed=bytes(range(32)), now=T0, timing=TIMING, creator=ALICE, durable=durable)


def running(*players: dict[str, Any], **rules: Any) -> Race:
    """A started race with ``players`` seated (not durable), its first view out at T0 + countdown."""
    race = new_race(len(players), **rules)
    for p in players:
        race.seat(p, T0)
    race.start(ALICE["id"], T0)
    race.tick(T0 + TIMING.countdown)
    assert race.state == "running"
    return race


def kinds(effects: list[Effect]) -> list[str]:
    return [type(e).__name__ for e in effects]


def messages(effects: list[Effect]) -> list[str]:
    return [e.message["type"] for e in effects if isinstance(e, (Reply, Send, Broadcast))]


def play(race: Race, who: dict[str, Any], seq: int, move: str, now: int) -> list[Effect]:
    checked = race.check_move(who["id"], seq, move, now)
    assert isinstance(checked, dict), checked
    return race.apply_move(checked, now)


NOW = T0 + TIMING.countdown + 1_000  # a moment in the running race


# ----- seats and the countdown -------------------------------------------------------


def test_seating_tells_the_lobby_and_a_full_race_of_mode_full_starts_counting_down() -> None:
    race = new_race(2, start="full")
    assert kinds(race.seat(ALICE, T0)) == ["Changed"]
    effects = race.seat(BOB, T0 + 5)
    assert race.state == "countdown" and race.starts_ms == T0 + 5 + TIMING.countdown
    assert effects == [Changed(race.summary()), Wake(T0 + 5 + TIMING.countdown)]


@pytest.mark.parametrize(
    "setup,code",
    [
        (lambda r: (r.seat(ALICE, T0), r.seat(BOB, T0)), "race_full"),
        (lambda r: (r.seat(ALICE, T0), r.start(ALICE["id"], T0)), "race_started"),
    ],
)
def test_a_seat_is_refused_when_the_race_is_full_or_started(setup: Any, code: str) -> None:
    race = new_race(2)
    setup(race)
    if code == "race_full":
        race.rules = RaceRules("terrace", "terrace", 2, 600)
    with pytest.raises(ProtocolError) as e:
        race.seat(CAROL, T0)
    assert e.value.code == code
    assert "g-carol" not in race.seats


def test_entry_bots_refuses_a_human_and_seats_a_bot() -> None:
    race = new_race(2, entry="bots")
    with pytest.raises(ProtocolError) as e:
        race.seat(ALICE, T0)
    assert (e.value.code, e.value.fields["entry"]) == ("entry_refused", "bots")
    race.seat(player("robo", "bot"), T0)
    assert list(race.seats) == ["g-robo"]


def test_only_the_creator_starts_the_race() -> None:
    race = new_race(2)
    race.seat(ALICE, T0)
    race.seat(BOB, T0)
    with pytest.raises(ProtocolError) as e:
        race.start(BOB["id"], T0)
    assert e.value.code == "not_creator" and race.state == "open"
    race.start(ALICE["id"], T0)
    assert race.state == "countdown"


def test_the_creator_leaving_passes_the_role_and_the_last_leaving_cancels() -> None:
    race = new_race(2)
    race.seat(ALICE, T0)
    race.seat(BOB, T0)
    assert kinds(race.unseat(ALICE["id"], T0)) == ["Freed", "Changed"]
    assert race.creator == BOB
    effects = race.unseat(BOB["id"], T0)
    assert race.state == "cancelled"
    assert kinds(effects) == ["Freed", "Changed", "Over"] and effects[-1] == Over(None)


def test_a_race_nobody_starts_in_time_is_cancelled_and_frees_its_players() -> None:
    timing = Timing(countdown=3_000, grace=10_000, standings=100, open_for=60_000)
    rules = RaceRules("terrace", "terrace", 3, 600)
    race = Race("r1", rules, seed=bytes(32), now=T0, timing=timing, creator=ALICE)
    assert kinds(race.opened()) == ["Changed", "Wake"] and race.next_wake() == T0 + 60_000
    race.seat(ALICE, T0 + 10)
    race.seat(BOB, T0 + 20)
    assert race.tick(T0 + 59_999) == [] and race.state == "open"
    effects = race.tick(T0 + 60_000)
    assert race.state == "cancelled"
    assert kinds(effects) == ["Freed", "Freed", "Changed", "Over", "Wake"]
    assert effects[3] == Over(None) and effects[-1] == Wake(None)


def test_a_race_started_in_time_does_not_expire() -> None:
    timing = Timing(countdown=3_000, grace=10_000, standings=100, open_for=60_000)
    race = Race(
        "r1", RaceRules("terrace", "terrace", 1, 600), seed=bytes(32), now=T0, timing=timing, creator=ALICE
    )
    race.seat(ALICE, T0)
    race.start(ALICE["id"], T0 + 59_000)
    assert race.next_wake() == T0 + 62_000  # the countdown's end, no expiry
    race.tick(T0 + 62_000)
    assert race.state == "running"


def test_the_countdown_ends_by_the_clock_and_every_player_gets_the_same_first_view() -> None:
    race = new_race(2)
    race.seat(ALICE, T0)
    race.seat(BOB, T0)
    race.start(ALICE["id"], T0)
    assert race.tick(T0 + TIMING.countdown - 1) == []  # not yet
    effects = race.tick(T0 + TIMING.countdown)
    assert kinds(effects) == ["Send", "Send", "Changed", "Broadcast", "Wake"]
    first, second = effects[0], effects[1]
    assert isinstance(first, Send) and isinstance(second, Send)
    assert (first.player, second.player) == ("g-alice", "g-bob")
    assert first.message["view"] == second.message["view"] and first.message["legal"] == [
        "1-F1",
        "2-F1",
        "3-F1",
        "4-F1",
    ]
    assert first.message["clock"]["ends_at"] == T0 + TIMING.countdown + 600_000
    assert effects[-1] == Wake(T0 + TIMING.countdown + 600_000)


def test_a_durable_race_saves_its_meta_before_the_first_view() -> None:
    race = new_race(2, durable=True)
    race.seat(ALICE, T0)
    race.seat(BOB, T0)
    race.start(ALICE["id"], T0)
    effects = race.tick(T0 + TIMING.countdown)
    assert kinds(effects) == ["SaveMeta", "Wake"] and race.state == "countdown"
    meta = effects[0].meta  # type: ignore[union-attr]
    assert meta["seed"] == bytes(range(32)).hex() and [p["id"] for p in meta["players"]] == [
        "g-alice",
        "g-bob",
    ]
    assert messages(race.meta_saved(meta, T0 + 3_500)) == ["started", "started", "standings"]
    assert race.started_ms == T0 + TIMING.countdown  # the clock started before the save


def test_a_player_leaving_while_the_meta_is_saved_makes_the_race_save_it_again_without_them() -> None:
    race = new_race(2, durable=True)
    race.seat(ALICE, T0)
    race.seat(BOB, T0)
    race.start(ALICE["id"], T0)
    (save, _) = race.tick(T0 + TIMING.countdown)
    race.unseat(BOB["id"], T0 + 3_100)
    again = race.meta_saved(save.meta, T0 + 3_200)  # type: ignore[attr-defined]
    assert kinds(again) == ["SaveMeta"] and [p["id"] for p in again[0].meta["players"]] == ["g-alice"]  # type: ignore[attr-defined]
    assert messages(race.meta_saved(again[0].meta, T0 + 3_300)) == ["started", "standings"]  # type: ignore[attr-defined]


def test_everyone_leaving_during_the_countdown_cancels_the_race_when_it_ends() -> None:
    race = new_race(1)
    race.seat(ALICE, T0)
    race.start(ALICE["id"], T0)
    race.disconnected(ALICE["id"], T0)  # in the countdown a drop does not unseat
    assert "g-alice" in race.seats
    race.unseat(ALICE["id"], T0 + 1)
    assert race.state == "cancelled"


# ----- moves ---------------------------------------------------------------------------


def test_a_move_is_checked_then_applied_and_answered_with_its_canonical_form() -> None:
    race = running(ALICE, BOB)
    entry = race.check_move("g-alice", 1, "1f", NOW)
    assert entry == {"p": "g-alice", "seq": 1, "m": "1-F1", "t": 1_000, "x": "1f"}
    effects = race.apply_move(entry, NOW)  # type: ignore[arg-type]
    assert kinds(effects) == ["Reply", "Wake"]
    answer = effects[0].message  # type: ignore[union-attr]
    assert (answer["type"], answer["seq"], answer["move"]) == ("moved", 1, "1-F1")
    assert race.seats["g-alice"].last_home_ms == 1_000  # the base card counts as a card home


def test_a_resent_seq_gets_its_first_answer_and_is_not_applied_twice() -> None:
    race = running(ALICE, BOB)
    first = play(race, ALICE, 1, "1f", NOW)[0]
    again = race.check_move("g-alice", 1, "1f", NOW + 5)
    assert again == first and race.seats["g-alice"].seq == 1
    assert race.check_move("g-alice", 1, "1-F1", NOW + 5) == first  # the canonical form matches too


def test_a_resent_seq_with_another_move_is_a_seq_conflict() -> None:
    race = running(ALICE, BOB)
    play(race, ALICE, 1, "1f", NOW)
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-alice", 1, "2f", NOW)
    assert (e.value.code, e.value.fields) == ("seq_conflict", {"seq": 1, "move": "1f"})


def test_a_gap_in_seq_is_bad_seq_naming_the_expected_one_and_older_seqs_are_forgotten() -> None:
    race = running(ALICE, BOB)
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-alice", 2, "1f", NOW)
    assert (e.value.code, e.value.fields) == ("bad_seq", {"expected": 1, "seq": 2})
    seat = race.seats["g-alice"]
    play(race, ALICE, 1, "1f", NOW)
    for seq in range(2, KEEP_ANSWERS + 3):
        play(race, ALICE, seq, "S-W", NOW + seq)
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-alice", 1, "1f", NOW + 100)  # older than the kept answers
    assert e.value.code == "bad_seq" and len(seat.answers) == KEEP_ANSWERS


def test_kept_answers_are_bytes_and_resend_and_change_as_they_were() -> None:
    """Kept answers are bytes (the garbage collector never scans those); every kept one is
    resent as first given, and its changes are those of the views it was played between."""
    race = running(ALICE, BOB)
    seat = race.seats["g-alice"]
    given: dict[int, tuple[Any, Any]] = {}  # seq -> (the view before, the answer)
    start_view = copy.deepcopy(seat.view)
    for seq in range(1, KEEP_ANSWERS + 4):
        before = copy.deepcopy(given[seq - 1][1]["view"]) if seq > 1 else copy.deepcopy(start_view)
        legal = seat.game.legal_moves() if seat.game else []
        effects = play(race, ALICE, seq, "S-W" if "S-W" in legal else sorted(legal)[0], NOW + seq)
        reply = effects[0]
        assert isinstance(reply, Reply)
        given[seq] = (before, copy.deepcopy(reply.message))
    last = seat.seq
    assert all(isinstance(a, bytes) for _, a in seat.answers.values())
    assert len(seat.answers) == KEEP_ANSWERS
    for seq in seat.answers:
        before, answer = given[seq]
        resent = race.check_move("g-alice", seq, answer["move"], NOW + 100)
        assert resent == Reply(answer, pack(answer))  # the very frame first sent
        assert race.view_changes("g-alice", seq) == view_changes(before, answer["view"])
    assert seat.kept(last - KEEP_ANSWERS) is None and seat.changes(last - KEEP_ANSWERS) is None


def test_an_illegal_move_is_refused_with_the_engine_reason_and_changes_nothing() -> None:
    race = running(ALICE, BOB)
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-alice", 1, "S-W", NOW)
    assert (e.value.code, e.value.fields["reason"], e.value.fields["move"]) == (
        "illegal_move",
        "choose_base_first",
        "S-W",
    )
    assert race.seats["g-alice"].seq == 0 and race.seats["g-alice"].move_count == 0


def test_moves_at_the_time_limit_are_race_not_running_even_before_the_clock_ticks() -> None:
    race = running(ALICE, BOB, time_limit=60)
    end = T0 + TIMING.countdown + 60_000
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-alice", 1, "1f", end)
    assert e.value.code == "race_not_running"


def test_a_player_not_seated_is_not_in_race() -> None:
    race = running(ALICE, BOB)
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-carol", 1, "1f", NOW)
    assert e.value.code == "not_in_race"


def test_emptying_the_terrace_answers_first_then_frees_the_player_then_pushes_their_final_place() -> None:
    race = running(ALICE, BOB)
    race.seats["g-alice"].game = family_game(terrace_cards=["Ad"], foundations={1: ["Kc"]}, piles={1: ["5h"]})
    effects = play(race, ALICE, 1, "T-F1", NOW)
    assert kinds(effects) == ["Reply", "Freed", "Broadcast"]
    assert effects[0].message["finish"] == "goal"  # type: ignore[union-attr]
    rows = effects[2].message["rows"]  # type: ignore[union-attr]
    assert [(r["player"]["name"], r["place"], r["finish"]) for r in rows] == [
        ("alice", 1, "goal"),
        ("bob", None, None),
    ]
    with pytest.raises(ProtocolError) as e:
        race.check_move("g-alice", 2, "S-W", NOW + 1)
    assert e.value.code == "player_finished"


def test_the_last_finish_answers_then_ends_the_race_with_the_revealed_seed_and_the_record() -> None:
    race = running(ALICE)
    race.seats["g-alice"].game = family_game(terrace_cards=["Ad"], foundations={1: ["Kc"]}, piles={1: ["5h"]})
    effects = play(race, ALICE, 1, "T-F1", NOW)
    assert kinds(effects) == ["Reply", "Freed", "Broadcast", "Changed", "Over", "Wake"]
    finished = effects[2].message  # type: ignore[union-attr]
    assert finished["type"] == "finished" and finished["seed"] == bytes(range(32)).hex()
    record = effects[4].record  # type: ignore[union-attr]
    assert record["results"][0]["move_list"] == ["T-F1"] and record["state"] == "finished"
    assert effects[-1] == Wake(None) and race.state == "finished"


def test_a_move_whose_lost_search_is_long_asks_for_it_and_answers_once_settled() -> None:
    race = running(ALICE, BOB, variant="signora", goal="clear")
    race.seats["g-alice"].game = slow_search_position()
    effects = play(race, ALICE, 1, "7-9", NOW)
    assert kinds(effects) == ["Search"]
    search = effects[0]
    assert isinstance(search, Search) and search.player == "g-alice"
    with pytest.raises(ProtocolError):  # nothing else for that player until it settles
        race.check_move("g-alice", 2, "1-9", NOW)
    settled = race.settled("g-alice", "playing", NOW + 400)
    assert kinds(settled) == ["Reply", "Wake"] and settled[0].message["status"] == "playing"  # type: ignore[union-attr]


def test_a_search_that_finds_the_game_lost_finishes_the_player_stuck_at_the_moves_time() -> None:
    race = running(ALICE, BOB, variant="signora", goal="clear")
    race.seats["g-alice"].game = slow_search_position()
    play(race, ALICE, 1, "7-9", NOW)
    settled = race.settled("g-alice", "lost", NOW + 400)
    assert kinds(settled)[:3] == ["Reply", "Freed", "Broadcast"]
    assert settled[0].message["finish"] == "stuck"  # type: ignore[union-attr]
    assert race.seats["g-alice"].finish_ms == 1_000


def test_moves_within_the_standings_window_make_one_push_when_the_clock_reaches_it() -> None:
    race = running(ALICE, BOB)
    a = play(race, ALICE, 1, "1f", NOW)
    b = play(race, BOB, 1, "2f", NOW + 20)
    assert Wake(NOW + TIMING.standings) in a and not any(isinstance(e, Broadcast) for e in a + b)
    assert race.tick(NOW + TIMING.standings - 1) == []
    pushed = race.tick(NOW + TIMING.standings)
    assert messages(pushed) == ["standings"]
    assert [r["moves"] for r in pushed[0].message["rows"]] == [1, 1]  # type: ignore[union-attr]


def test_a_live_push_gives_each_row_its_place_now_ties_shared_and_the_results_do_not() -> None:
    race = running(ALICE, BOB, CAROL)
    play(race, ALICE, 1, "1f", NOW)  # alice's base: a card home; bob and carol tied behind
    rows = race.tick(NOW + TIMING.standings)[0].message["rows"]  # type: ignore[union-attr]
    assert [(r["player"]["name"], r["live"], r["place"]) for r in rows] == [
        ("alice", 1, None),
        ("bob", 2, None),
        ("carol", 2, None),
    ]
    for who in (ALICE, BOB, CAROL):
        ended = race.apply_resign(race.check_resign(who["id"], NOW + 500), NOW + 500)
    finished = next(e.message for e in ended if isinstance(e, Broadcast) and e.message["type"] == "finished")
    assert all("live" not in r for r in finished["results"])  # a record says places only


def test_resign_is_checked_logged_then_applied() -> None:
    race = running(ALICE, BOB)
    entry = race.check_resign("g-alice", NOW)
    assert entry == {"p": "g-alice", "f": "resigned", "t": 1_000}
    assert kinds(race.apply_resign(entry, NOW)) == ["Freed", "Broadcast"]
    with pytest.raises(ProtocolError) as e:
        race.check_resign("g-alice", NOW)
    assert e.value.code == "player_finished"


# ----- coming and going, the clock ----------------------------------------------------------


def test_a_player_away_past_the_grace_period_finishes_disconnected_and_it_is_logged_first() -> None:
    race = running(ALICE, BOB)
    race.durable = True
    assert race.disconnected("g-bob", NOW) == [Wake(NOW + TIMING.standings)]
    pushed = race.tick(NOW + TIMING.standings)  # the others see bob away
    assert kinds(pushed) == ["Broadcast", "Wake"] and pushed[-1] == Wake(NOW + TIMING.grace)
    assert [r["connected"] for r in pushed[0].message["rows"]] == [True, False]  # type: ignore[union-attr]
    assert race.tick(NOW + TIMING.grace - 1) == []
    effects = race.tick(NOW + TIMING.grace)
    assert kinds(effects)[:3] == ["Log", "Freed", "Broadcast"]
    assert effects[0] == Log({"p": "g-bob", "f": "disconnected", "t": 1_000 + TIMING.grace})
    assert race.seats["g-bob"].finish == "disconnected"


def test_coming_back_within_the_grace_period_resumes_with_the_view_and_standings() -> None:
    race = running(ALICE, BOB)
    play(race, BOB, 1, "2f", NOW)
    race.disconnected("g-bob", NOW + 10)
    effects = race.reconnected("g-bob", NOW + 20)
    sent = [e for e in effects if isinstance(e, Send)]
    assert [s.message["type"] for s in sent] == ["started", "standings"]
    assert sent[0].message["resumed"] is True and sent[0].message["seq"] == 1
    assert race.seats["g-bob"].grace_until is None
    assert race.tick(NOW + 20 + TIMING.grace) == [] or race.seats["g-bob"].finish is None


def test_coming_back_during_the_countdown_gets_the_race_summary() -> None:
    race = new_race(1)
    race.seat(ALICE, T0)
    race.start(ALICE["id"], T0)
    race.disconnected("g-alice", T0 + 1)
    effects = race.reconnected("g-alice", T0 + 2)
    assert effects == [Send("g-alice", {"type": "race", "race": race.summary()})]


def test_the_time_limit_ends_the_race_and_everyone_left_finishes_on_time() -> None:
    race = running(ALICE, BOB, time_limit=60)
    play(race, ALICE, 1, "1f", NOW)
    end = T0 + TIMING.countdown + 60_000
    effects = race.tick(end)
    assert kinds(effects) == ["Freed", "Freed", "Broadcast", "Changed", "Over", "Wake"]
    results = effects[2].message["results"]  # type: ignore[union-attr]
    assert [(r["player"]["name"], r["finish"], r["time"], r["place"]) for r in results] == [
        ("alice", "time", 60_000, 1),
        ("bob", "time", 60_000, 2),
    ]


def test_no_message_before_finished_carries_the_seed() -> None:
    race = running(ALICE, BOB)
    seen: list[Effect] = []
    seen += play(race, ALICE, 1, "1f", NOW)
    seen += race.tick(NOW + TIMING.standings)
    seen += race.disconnected("g-bob", NOW + 200)
    seen += race.reconnected("g-bob", NOW + 300)
    seed = bytes(range(32)).hex()
    assert all(seed not in repr(e) for e in seen)
    assert seed not in repr(race.summary()) and seed not in repr(race.standings())


def test_leaving_a_running_race_is_a_finish_of_its_own_and_frees_the_player_at_once() -> None:
    race = running(ALICE, BOB)
    entry = race.check_resign("g-alice", NOW, "left")
    assert entry == {"p": "g-alice", "f": "left", "t": 1_000}
    effects = race.apply_resign(entry, NOW)
    assert kinds(effects) == ["Freed", "Broadcast"]
    assert race.seats["g-alice"].finish == "left" and race.state == "running"
