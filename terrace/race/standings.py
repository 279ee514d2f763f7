"""Standings rows and final results of a race's seats, in place order (the rule is :mod:`.places`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from terrace.wire.messages import PlayerInfo, Result, Row

from ..vocab import Status
from .places import places
from .seat import Seat


def ordered(seats: Iterable[Seat]) -> list[tuple[Seat, int]]:
    """Every seat with its place, best first; tied seats keep their joining order."""
    listed = list(seats)
    placed = places([s.standing() for s in listed])
    order = sorted(range(len(listed)), key=lambda i: (placed[i], i))
    return [(listed[i], placed[i]) for i in order]


def rows(seats: Iterable[Seat], final: bool) -> list[Row]:
    """Live standings rows: a goal place is final the moment it is reached, the others only at the
    end; until then each row's ``live`` says the place it would have if the race ended now."""
    return [s.row(p if final or s.finish == "goal" else None, live=p) for s, p in ordered(seats)]


def unstarted_rows(players: Iterable[PlayerInfo]) -> list[Row]:
    """The rows of a race not dealt yet, from its summary's players: what its owner's
    :func:`rows` says then (no game: nothing home, nothing moved), for a node that only has
    the summary."""
    return [
        {
            "player": p,
            "score": 0,
            "terrace_left": 0,
            "moves": 0,
            "finished": False,
            "finish": None,
            "time": None,
            "place": None,
            "connected": True,
        }
        for p in players
    ]


def results(seats: Iterable[Seat]) -> list[Result]:
    """The final rows, with each game's status and the race time of its last card home (the last
    tie-break of places, so anyone can check them)."""
    return [
        {**s.row(p), "status": cast(Status, s.game.status) if s.game else None, "last_home": s.last_home_ms}
        for s, p in ordered(seats)
    ]
