"""What a race shows the world: its summary, standings, clock, first view, record and meta.

A mixin of :class:`~terrace.race.core.Race`, kept apart so the state machine's
module holds the transitions and this one the messages built from its state.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from terrace.rules.replay import new_game
from terrace.wire.messages import (
    Clock,
    PlayerInfo,
    RaceHead,
    Record,
    Result,
    Standings,
    Started,
    Summary,
    View,
)

from ..vocab import RaceState
from .ghosts import END, Ghosts
from .rules import META_VERSION, PLAIN, RaceOptions, RaceRules
from .seat import Seat
from .standings import rows
from .states import SHOWN, Machine, RaceEvent, RacePhase


class Reports:
    id: str
    rules: RaceRules
    machine: Machine[RacePhase, RaceEvent]
    creator: PlayerInfo | None
    seats: dict[str, Seat]
    created_ms: int
    starts_ms: int | None
    started_ms: int | None
    ended_ms: int | None
    commitment: str
    results: list[Result]
    solution: list[str] | None
    options: RaceOptions
    ghosts: Ghosts
    _seed: bytes

    # ----- reading ------------------------------------------------------------------

    @property
    def state(self) -> RaceState:
        """Where the race is, as everyone outside it sees it (``saving`` shows as ``countdown``)."""
        return SHOWN[self.machine.state]

    def _head(self) -> RaceHead:
        """What the summary and the record both say: the rules and where the race stands."""
        r = self.rules
        head: RaceHead = {
            "id": self.id,
            "variant": r.variant,
            "goal": r.goal,
            "seats": r.seats,
            "time_limit": r.time_limit,
            "entry": r.entry,
            "start": r.start,
            "rules_version": r.rules_version,
            "state": self.state,
            "creator": self.creator,
            "created_at": self.created_ms,
        }
        if self.starts_ms is not None:
            head["starts_at"] = self.starts_ms
        if self.solution is not None:
            head["deals"] = "winnable"  # said before the deal: the line itself stays secret until the end
        if self.options.unrated is not None:
            head["unrated"] = self.options.unrated  # said before it starts: nobody races it thinking it rated
        if self.options.rated_only:
            head["rated"] = True
        return head

    def summary(self) -> Summary:
        """The public description of the race (lobby lists, ``race`` pushes)."""
        # mypy's strict extra checks ask a ** literal to name every optional key; these are set below
        out: Summary = {**self._head(), "players": [s.player for s in self.seats.values()]}  # type: ignore[typeddict-item]
        if self.state in ("running", "finished"):
            out["commitment"] = self.commitment
        return out

    def standings(self) -> Standings:
        """Live standings: counts only, never a card (spectators see these and nothing else). A
        race with ghosts places them too; once it is over, by their whole recorded attempts."""
        final = self.state == "finished"
        seats: list[Seat] = list(self.seats.values())
        if self.ghosts.recorded:
            if final:
                self.ghosts.advance(END)
            seats += self.ghosts.seats()
        return {"type": "standings", "race": self.id, "state": self.state, "rows": rows(seats, final)}

    def record(self) -> Record:
        """The finished race, complete enough for anyone to recompute and check it."""
        moves = {s.id: (s.game.moves if s.game else []) for s in self.seats.values()}
        times = {s.id: s.move_times for s in self.seats.values()}
        r = self.rules
        record: Record = {
            **self._head(),  # type: ignore[typeddict-item]  # optional keys set below, as in summary()
            "commitment": self.commitment,
            "started_at": self.started_ms,
            "ended_at": self.ended_ms,
            "seed": self._seed.hex(),
            # what every player saw at the first view: anyone can check the seed deals it
            "first_view": new_game(r.variant, self._seed, rules_version=r.rules_version).view(),
            # each move with its race time (ms): how fast it was played is part of the record
            "results": [
                {
                    **row,
                    "move_list": moves[row["player"]["id"]],
                    "move_times": list(times[row["player"]["id"]]),
                }
                for row in self.results
            ],
        }
        if self.solution is not None:
            record["solution"] = list(self.solution)
        return record

    def meta(self) -> dict[str, Any]:
        """What a restarted server needs to rebuild the race (saved as it starts). The seed is in
        it: the store is trusted with the secret."""
        return {
            "v": META_VERSION,
            "rules": asdict(self.rules),
            "seed": self._seed.hex(),
            "commitment": self.commitment,
            "created_at": self.created_ms,
            "starts_at": self.starts_ms,
            "started_at": self.started_ms,
            "creator": self.creator,
            "players": [s.player for s in self.seats.values()],
            **({} if self.solution is None else {"solution": self.solution}),
            **({} if self.options == PLAIN else {"options": self.options.stored()}),
            **({"ghosts": [g.stored() for g in self.ghosts.recorded]} if self.ghosts.recorded else {}),
        }

    @property
    def ends_ms(self) -> int | None:
        """Clock time the race ends by, once it runs."""
        if self.started_ms is None:
            return None
        return self.started_ms + self.rules.time_limit * 1000

    def race_time(self, now: int) -> int:
        assert self.started_ms is not None
        return now - self.started_ms

    def clock(self, now: int) -> Clock:
        assert self.started_ms is not None and self.ends_ms is not None
        return {
            "started_at": self.started_ms,
            "time_limit": self.rules.time_limit,
            "ends_at": self.ends_ms,
            "now": now,
        }

    def _started(self, view: View, legal: list[str], seq: int, resumed: bool, now: int) -> Started:
        return {
            "type": "started",
            "race": self.id,
            "variant": self.rules.variant,
            "goal": self.rules.goal,
            "rules_version": self.rules.rules_version,
            "commitment": self.commitment,
            "view": view,
            "legal": legal,
            "seq": seq,
            "resumed": resumed,
            "clock": self.clock(now),
            "players": [s.player for s in self.seats.values()],
            **({"unrated": self.options.unrated} if self.options.unrated is not None else {}),  # type: ignore[typeddict-item]
        }
