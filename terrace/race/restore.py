"""Rebuilding a race from the store, after a restart or on another node: a running race from
its meta and move log (:func:`restore`), a waiting one from its last saved state
(:func:`restore_waiting`).

The meta is what :meth:`Race.meta <terrace.race.core.Race.meta>` saved as the race
started; the log holds, in append order, each accepted move (``{"p": player id,
"seq", "m": canonical move, "t": race time ms, "x"?: the text sent}``) and each
finish the race wrote (``{"p", "f": finish, "t"}``).

Each player's moves are replayed in seq order from the deal. When one seq was
logged twice the last entry wins (an append that answered "store down" may have
reached the log all the same, and the player then sent that seq again); a finish
logged before one of the player's moves was never applied; entries at or past
the time limit were logged as the clock ran out and never applied. Seqs, scores,
last-home times, finishes and the answers to the last ``KEEP_ANSWERS`` moves (for
resends) come back as they were.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from terrace.rules.versions import UNVERSIONED
from terrace.wire.messages import PlayerInfo

from ..errors import IllegalMove
from .core import Race
from .effects import Changed, Effect, LogEntry, Search
from .ghosts import Recorded
from .rules import KEEP_ANSWERS, RaceOptions, RaceRules, Timing
from .seat import Pending, Seat

log = logging.getLogger("terrace.race")


def restore_waiting(
    race_id: str, meta: Mapping[str, Any], *, now: int, timing: Timing
) -> tuple[Race, list[Effect]]:
    """A race that was still waiting (open, or counting down) when its server died, from the meta
    saved as it last changed, and the effects that run it on: its seats are kept for players to
    come back to (nobody is unseated for a connection the old server lost), and a race that was
    counting down, or is full with ``start: full``, counts down again from ``now``."""
    race = _race(race_id, meta, timing)
    for player in meta["players"]:
        race.seats[player["id"]] = Seat(_info(player), connected=False)
    full = race.rules.start == "full" and len(race.seats) >= race.rules.seats
    if race.seats and (meta.get("starts_at") is not None or full):
        return race, race.begin(now)
    return race, [Changed(race.summary(), players_only=race.options.private)]


def _race(race_id: str, meta: Mapping[str, Any], timing: Timing) -> Race:
    rules = RaceRules(**{"rules_version": UNVERSIONED, **meta["rules"]})  # older metas: the first rules
    return Race(
        race_id,
        rules,
        seed=bytes.fromhex(meta["seed"]),
        now=int(meta["created_at"]),
        timing=timing,
        creator=meta.get("creator"),
        durable=True,
        solution=meta.get("solution"),
        options=RaceOptions(**meta.get("options", {})),
        ghosts=[Recorded.of(g) for g in meta.get("ghosts", [])],
    )


def _info(player: Mapping[str, Any]) -> PlayerInfo:
    return {"id": player["id"], "name": player["name"], "kind": player["kind"], "guest": player["guest"]}


def restore(
    race_id: str, meta: Mapping[str, Any], entries: list[LogEntry], *, timing: Timing
) -> tuple[Race, list[Effect]]:
    """The race of ``meta`` with its log replayed, and the :class:`Search` effects its last
    positions still need. Settle those (``Race.settled``), then call ``Race.go_on(now)``."""
    race = _race(race_id, meta, timing)
    rules = race.rules
    race.starts_ms = meta["starts_at"]
    race.started_ms = int(meta["started_at"])
    race.machine.fire("restore")  # straight from the log: open and countdown happened elsewhere
    for player in meta["players"]:
        race.seats[player["id"]] = Seat(_info(player), connected=False)
    race._deal_games()
    limit = rules.time_limit * 1000
    moves: dict[str, dict[int, LogEntry]] = {pid: {} for pid in race.seats}
    finishes: dict[str, LogEntry] = {}
    for entry in entries:
        pid = entry.get("p")
        if pid not in race.seats or entry["t"] >= limit:
            continue
        if "f" in entry:
            finishes[pid] = entry
        else:
            moves[pid][entry["seq"]] = entry
            finishes.pop(pid, None)
    effects: list[Effect] = []
    for seat in race.seats.values():
        search = _replay(race, seat, moves[seat.id])
        if search is not None:
            effects.append(search)
        finish = finishes.get(seat.id)
        if seat.finish is None and seat.pending is None and finish is not None:
            seat.end(finish["f"], finish["t"])
    return race, effects


def _replay(race: Race, seat: Seat, moves: dict[int, LogEntry]) -> Search | None:
    game = seat.game
    assert game is not None
    keep_from = max(moves, default=0) - KEEP_ANSWERS
    while seat.seq + 1 in moves:
        entry = moves[seat.seq + 1]
        try:
            game.play(entry["m"])
        except IllegalMove:
            log.error("race %s: %s's logged move %s is illegal; replay stops", race.id, seat.id, entry)
            break
        seat.seq += 1
        seat.move_times.append(int(entry["t"]))
        if seat.went_home():
            seat.last_home_ms = entry["t"]
        text = str(entry.get("x") or entry["m"])
        last = seat.seq + 1 not in moves
        if game.quick_status() is None:
            if last:  # the player's position now: its status needs the long search
                seat.fire("searching")
                seat.pending = Pending(text, entry["t"], reply=False)
                return Search(seat.id, game.copy(), game.position_key())
            game.settle("playing")  # the player moved on from it, so it was still playing
        seat.fire("moved")
        if seat.seq > keep_from:
            seat.answer(race.id, race.rules.goal, text)
        if last:
            race.mark_reached(seat, entry["t"])
    return None
