"""Ghosts, and the races the features built on races use: an attempt is a private race that keeps
its seed back, with earlier attempts replayed beside its player at their recorded race times."""

from __future__ import annotations

import terrace
from terrace.race import Race, RaceOptions, RaceRules, Timing, restore
from terrace.race.daily import candidate
from terrace.race.effects import Broadcast, Changed, Send
from terrace.race.ghosts import Ghost, Recorded, recorded
from terrace.rules.deal import commitment

SECRET = bytes(range(32))


def _recorded(seed: bytes, moves: int, gap: int) -> Recorded:
    game = terrace.new_game("terrace", seed)
    played: list[tuple[int, str]] = []
    for i in range(moves):
        move = sorted(game.legal_moves())[0]
        game.play(move)
        played.append(((i + 1) * gap, game.moves[-1]))
    return Recorded(
        {"id": "p1", "name": "Pacer", "kind": "human", "guest": False}, played, "resigned", (moves + 1) * gap
    )


def test_a_ghost_plays_each_move_at_its_recorded_time_and_finishes_as_recorded() -> None:
    seed = candidate(SECRET, "terrace", "2026-11-18", 0)
    ghost = Ghost(_recorded(seed, 3, 1_000), "terrace", seed, terrace.RULES_VERSION, "terrace")
    assert ghost.seat.player["id"] == "ghost:p1" and ghost.seat.player.get("ghost") is True
    assert ghost.next_at() == 1_000 and not ghost.advance(999) and ghost.seat.move_count == 0
    assert ghost.advance(2_500) and ghost.seat.move_count == 2 and ghost.next_at() == 3_000
    assert ghost.advance(3_999) and ghost.seat.move_count == 3 and ghost.seat.finish is None
    assert ghost.advance(4_000) and ghost.seat.finish == "resigned" and ghost.seat.finish_ms == 4_000
    assert ghost.next_at() is None and not ghost.advance(10_000)


def _attempt(seed: bytes, ghosts: list[Recorded]) -> Race:
    rules = RaceRules("terrace", "terrace", 1, 60, "all", "full")
    options = RaceOptions(private=True, seed_kept=True, owner={"kind": "daily"})
    return Race(
        "d1",
        rules,
        seed=seed,
        now=0,
        timing=Timing(countdown=0, standings=10),
        options=options,
        ghosts=ghosts,
    )


def test_an_attempt_pushes_ghost_standings_at_their_pace_and_keeps_the_seed_back() -> None:
    seed = candidate(SECRET, "terrace", "2026-11-18", 0)
    race = _attempt(seed, [_recorded(seed, 2, 500)])
    race.seat({"id": "me", "name": "Me", "kind": "human", "guest": False}, 0)
    effects = race.tick(0)
    assert any(isinstance(e, Send) and e.message["type"] == "started" for e in effects)
    assert race.next_wake() == 500  # the ghost's first move is due
    race.tick(500)
    standings = [e.message for e in race.tick(510) if isinstance(e, Broadcast)]
    ghost_rows = [r for r in standings[-1]["rows"] if r["player"].get("ghost")]
    assert ghost_rows[0]["moves"] == 1 and "view" not in ghost_rows[0]
    entry = race.check_resign("me", 600)
    ended = race.apply_resign(entry, 600)
    finished = [e.message for e in ended if isinstance(e, Broadcast) and e.message["type"] == "finished"]
    assert finished and "seed" not in finished[0] and finished[0]["commitment"] == commitment(seed)
    final = [e.message for e in ended if isinstance(e, Broadcast) and e.message["type"] == "standings"]
    assert [r["player"]["name"] for r in final[0]["rows"]] == [
        "Pacer",
        "Me",
    ]  # the ghost's whole attempt counts
    assert race.ghosts.place(race.seats.values()) == 2
    assert race.record()["seed"] == seed.hex()  # the record keeps it, for the reveal
    seat = race.seats["me"]
    again = recorded(seat)
    assert again is not None and [m for _, m in again.moves] == seat.game.moves  # type: ignore[union-attr]
    assert [t for t, _ in again.moves] == seat.move_times


def test_a_private_race_tells_its_players_alone() -> None:
    seed = candidate(SECRET, "terrace", "2026-11-18", 1)
    race = _attempt(seed, [])
    effects = race.seat({"id": "me", "name": "Me", "kind": "human", "guest": False}, 0) + race.tick(0)
    pushes = [e for e in effects if isinstance(e, Broadcast | Changed)]
    assert pushes and all(e.players_only for e in pushes)
    plain = Race("p1", RaceRules("terrace", "terrace", 1, 60, "all", "full"), seed=seed, now=0)
    effects = plain.seat({"id": "me", "name": "Me", "kind": "human", "guest": False}, 0)
    assert [e.players_only for e in effects if isinstance(e, Changed)] == [False]


def test_an_attempt_rebuilt_from_its_log_is_the_same_attempt() -> None:
    seed = candidate(SECRET, "terrace", "2026-11-18", 0)
    race = _attempt(seed, [_recorded(seed, 2, 500)])
    race.seat({"id": "me", "name": "Me", "kind": "human", "guest": False}, 0)
    race.tick(0)
    meta = race.meta()
    again, _ = restore("d1", meta, [], timing=Timing(countdown=0))
    assert again.options == race.options and again.ghosts.recorded == race.ghosts.recorded
    assert again.next_wake() == 500  # its ghost moves on the same clock
