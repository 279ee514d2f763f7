"""Arenas: timed tournaments where joined players are paired into race after race (sans-I/O).

An arena has a start, an end, a variant and a pool (``all``, ``humans`` or ``bots``). Its
life is a state table (:data:`terrace.race.states.ARENA`, run like a race's): ``upcoming``
until its start, ``running`` until its end, then ``finished``. While it runs, every joined player is put back in the arena's queue as
soon as a race of theirs is over (the :class:`Pair` effect); no pairing happens after the end,
but races paired before it finish and count.

Scoring, in one sentence: **a race earns one point per player you beat (players in the race
minus your place), doubled once you have won your two previous arena races in a row** (the
streak lasts until a race you do not win). Ties share a place (the race's placing rule), so
they share points too. A result held back for fair play (moves faster than a person plays, a
voided account: the server's ``fairplay``) earns nothing and ends the streak; the others keep
the places the race gave them. :func:`standings` computes the table from the race results
alone, in the order the races ended, so anyone holding the arena's race records and its
published holds can recompute it (:func:`check_standings`).

:class:`Arena` holds one arena's spec, players and results; the caller passes the time in
and applies the effects it returns. Several nodes share an arena by keeping these three in
the store and rebuilding an :class:`Arena` from them.

Kept as one module (about 400 lines): the spec, the scoring rule (and its check), the state
machine and the schedules that make specs are one idea, read together when checking what an
arena does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from terrace.errors import ProtocolError
from terrace.race.held import PACE
from terrace.race.pace import inhuman
from terrace.race.rules import admits
from terrace.race.states import ARENA, ArenaEvent, ArenaState, Machine
from terrace.rules.variants import VARIANTS
from terrace.vocab import ENTRIES
from terrace.wire.messages import ArenaDetails, ArenaRow, ArenaSummary

STREAK = 2  # firsts in a row after which races score double
MAX_MINUTES = 24 * 60
ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")


@dataclass(frozen=True)
class ArenaSpec:
    """What an arena is: fixed when it is created."""

    id: str
    variant: str
    goal: str
    pool: str  # who may join: all, humans, bots
    starts_ms: int  # unix ms
    ends_ms: int
    name: str = ""

    def state_at(self, now_ms: int) -> ArenaState:
        if now_ms < self.starts_ms:
            return "upcoming"
        return "running" if now_ms < self.ends_ms else "finished"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArenaSpec:
        return cls(
            str(data["id"]),
            str(data["variant"]),
            str(data["goal"]),
            str(data["pool"]),
            int(data["starts_ms"]),
            int(data["ends_ms"]),
            str(data.get("name", "")),
        )


def make_spec(
    arena_id: str,
    variant: str,
    pool: str,
    starts_ms: int,
    minutes: float,
    goal: str | None = None,
    name: str = "",
) -> ArenaSpec:
    """A checked spec; ``ValueError`` with a sentence for a bad one (operators type these)."""
    if not ID.match(arena_id):
        raise ValueError(f"arena id {arena_id!r} must be 1-48 lower-case letters, digits or dashes")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
    if pool not in ENTRIES:
        raise ValueError(f"unknown pool {pool!r}; one of {', '.join(ENTRIES)}")
    goal = goal or VARIANTS[variant].default_goal
    if goal not in VARIANTS[variant].goals:
        raise ValueError(f"variant {variant} has no goal {goal!r}")
    if not 0 < minutes <= MAX_MINUTES:
        raise ValueError(f"an arena lasts more than 0 and at most {MAX_MINUTES} minutes")
    return ArenaSpec(
        arena_id, variant, goal, pool, starts_ms, starts_ms + round(minutes * 60_000), name or arena_id
    )


# ----- effects -------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """Put these players in the arena's queue now (if they are free and connected)."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class Unpair:
    """The arena is over: take these players out of its queue."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class Changed:
    """The standings or the state changed: tell the arena's watchers."""

    state: ArenaState


Effect = Pair | Unpair | Changed


# ----- scoring -------------------------------------------------------------------


def race_result(record: Mapping[str, Any], held: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What an arena keeps of a finished race's record: its id, end and each player's place, and
    for a player whose result is held back (``held``: player id -> why, fair play), why."""
    rows = []
    for r in record["results"]:
        row = {
            "id": r["player"]["id"],
            "name": r["player"]["name"],
            "kind": r["player"].get("kind", ""),
            "place": r["place"],
        }
        if held and str(r["player"]["id"]) in held:
            row["held"] = held[str(r["player"]["id"])]
        rows.append(row)
    return {"race": record["id"], "ended": int(record.get("ended_at") or 0), "rows": rows}


def ordered(results: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Results in the order their races ended (race id breaks ties): the order scoring reads."""
    return sorted(results, key=lambda r: (r["ended"], r["race"]))


def standings(
    results: Iterable[Mapping[str, Any]], players: Iterable[Mapping[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The arena table: one row per player (joined players with no race yet score 0), best first.

    Each row: ``player`` ({id, name, kind}), ``points``, ``races``, ``wins``, ``streak`` (firsts
    in a row now), ``places`` (in race order, for the curious), ``held`` (races held back: no
    points) and ``rank`` (1-based; equal points share a rank)."""
    rows: dict[str, dict[str, Any]] = {}
    for p in players:
        rows.setdefault(str(p["id"]), _row(p))
    for result in ordered(results):
        seats = len(result["rows"])
        for r in result["rows"]:
            row = rows.setdefault(str(r["id"]), _row(r))
            row["races"] += 1
            row["places"].append(int(r["place"]))
            if r.get("held"):  # fair play: nothing earned, the streak over
                row["held"] += 1
                row["streak"] = 0
                continue
            points = seats - int(r["place"])
            if row["streak"] >= STREAK:
                points *= 2
            row["points"] += points
            if r["place"] == 1:
                row["wins"] += 1
                row["streak"] += 1
            else:
                row["streak"] = 0
    table = sorted(rows.values(), key=lambda r: (-r["points"], -r["wins"], r["races"], r["player"]["name"]))
    for i, row in enumerate(table):
        same = i > 0 and table[i - 1]["points"] == row["points"]
        row["rank"] = table[i - 1]["rank"] if same else i + 1
    return table


def _row(p: Mapping[str, Any]) -> dict[str, Any]:
    player = {"id": str(p["id"]), "name": str(p["name"]), "kind": str(p.get("kind", ""))}
    return {"player": player, "points": 0, "races": 0, "wins": 0, "streak": 0, "places": [], "held": 0}


# ----- the arena -----------------------------------------------------------------


@dataclass
class Arena:
    """One arena as the store holds it: spec, joined players (id -> public player), race results.
    Its state is its :data:`~terrace.race.states.ARENA` machine's, which each entry point moves
    by a named event."""

    spec: ArenaSpec
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    machine: Machine[ArenaState, ArenaEvent] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.machine = Machine(ARENA, "upcoming", f"arena {self.spec.id}")

    @property
    def state(self) -> ArenaState:
        return self.machine.state

    @classmethod
    def restore(
        cls,
        spec: ArenaSpec,
        players: Iterable[Mapping[str, Any]],
        results: Iterable[Mapping[str, Any]],
        now_ms: int,
    ) -> Arena:
        arena = cls(spec, {str(p["id"]): dict(p) for p in players}, [dict(r) for r in results])
        arena.machine.state = spec.state_at(now_ms)  # the store keeps no state: the clock says it
        return arena

    def next_at(self) -> int | None:
        """When :meth:`tick` has something to do next (unix ms); None once finished."""
        return {"upcoming": self.spec.starts_ms, "running": self.spec.ends_ms}.get(self.state)

    def tick(self, now_ms: int) -> list[Effect]:
        """Move with the clock: at the start everyone joined is paired, at the end nobody waits."""
        due = self.spec.state_at(now_ms)
        if due == self.state:
            return []
        self.machine.fire("start" if due == "running" else "end")
        ids = tuple(self.players)
        if due == "running":
            return [Changed(due), Pair(ids)]
        return [Changed(due), Unpair(ids)]

    def join(self, player: Mapping[str, Any], now_ms: int) -> list[Effect]:
        """A player joins (again: a player who left comes back with their points)."""
        state = self.spec.state_at(now_ms)
        if state == "finished":
            raise ProtocolError("arena_over", arena=self.spec.id)
        kind = str(player.get("kind", "human"))
        if not admits(self.spec.pool, kind):  # type: ignore[arg-type]
            raise ProtocolError("arena_pool", arena=self.spec.id, pool=self.spec.pool)
        self.machine.fire("join")
        pid = str(player["id"])
        self.players[pid] = {"id": pid, "name": player["name"], "kind": kind}
        effects: list[Effect] = [Changed(self.state)]
        return [*effects, Pair((pid,))] if state == "running" else effects

    def leave(self, player_id: str) -> list[Effect]:
        """A player leaves: not paired again; their races so far still count."""
        if player_id not in self.players:
            raise ProtocolError("not_in_arena", arena=self.spec.id)
        self.machine.fire("leave")
        del self.players[player_id]
        return [Unpair((player_id,)), Changed(self.state)]

    def race_over(self, result: Mapping[str, Any], now_ms: int) -> list[Effect]:
        """A race of the arena ended: it counts (once), and its players still joined are paired
        again while the arena runs."""
        if any(r["race"] == result["race"] for r in self.results):
            return []
        self.machine.fire("race_over")
        self.results.append(dict(result))
        again = tuple(str(r["id"]) for r in result["rows"] if str(r["id"]) in self.players)
        effects: list[Effect] = [Changed(self.state)]
        if self.spec.state_at(now_ms) == "running" and again:
            effects.append(Pair(again))
        return effects

    def standings(self) -> list[ArenaRow]:
        return cast(list[ArenaRow], standings(self.results, self.players.values()))

    def summary(self, now_ms: int) -> ArenaSummary:
        """The arena for lists: spec, state, players and races so far."""
        s = self.spec
        return {
            "id": s.id,
            "variant": s.variant,
            "goal": s.goal,
            "pool": s.pool,
            "starts_ms": s.starts_ms,
            "ends_ms": s.ends_ms,
            "name": s.name,
            "state": s.state_at(now_ms),
            # everyone on its standings (joined now, or raced and left), so a list and the
            # standings give one count; ``joined`` is who is still paired
            "players": len(self.players.keys() | {str(r["id"]) for res in self.results for r in res["rows"]}),
            "joined": len(self.players),
            "races": len(self.results),
        }

    def details(self, now_ms: int) -> ArenaDetails:
        """The arena with its standings and its races' ids (each verifiable on its own)."""
        return {
            **self.summary(now_ms),
            "standings": self.standings(),
            "race_ids": [r["race"] for r in ordered(self.results)],
            "held": held_of(self.results),
        }


def held_of(results: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """The results held back, as an arena's details publish them: race id -> player id -> why."""
    out: dict[str, dict[str, str]] = {}
    for result in results:
        for r in result["rows"]:
            if r.get("held"):
                out.setdefault(str(result["race"]), {})[str(r["id"])] = str(r["held"])
    return out


def check_standings(details: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Problems found recomputing an arena's published standings from its races' records and its
    published holds ([]: they agree). The records must be the arena's races, every one of them. A
    hold for pace must show in the record's move times (a void is the operator's word)."""
    problems: list[str] = []
    ids = list(details.get("race_ids", []))
    got = {r["id"] for r in records}
    if missing := [i for i in ids if i not in got]:
        problems.append(f"races missing: {', '.join(missing)}")
    held: Mapping[str, Mapping[str, str]] = details.get("held", {})
    for record in records:
        for pid, why in held.get(str(record["id"]), {}).items():
            row = next((r for r in record["results"] if str(r["player"]["id"]) == pid), None)
            if row is None:
                problems.append(f"race {record['id']}: held back a player not in it ({pid})")
            elif why == PACE and not inhuman(row.get("move_times") or []):
                problems.append(
                    f"{row['player']['name']}: race {record['id']} held back for its pace, "
                    "but its moves came at a person's pace"
                )
    recomputed = standings([race_result(r, held.get(str(r["id"]))) for r in records])
    mine = {row["player"]["id"]: row["points"] for row in recomputed}
    for row in details.get("standings", []):
        expected = mine.get(row["player"]["id"], 0)
        if row["points"] != expected:
            problems.append(
                f"{row['player']['name']}: {row['points']} points published, {expected} from the races"
            )
    return problems


# ----- schedules -----------------------------------------------------------------

SCHEDULE = re.compile(
    r"^\s*(?P<variant>[a-z-]+)\s+(?P<pool>all|humans|bots)\s+(?P<length>\d+)m\s+every\s+(?P<every>\d+)m\s*$"
)


@dataclass(frozen=True)
class Schedule:
    """``VARIANT POOL LENGTHm every PERIODm``: an arena of LENGTH minutes starting at every multiple
    of PERIOD minutes since the epoch (``terrace bots 30m every 60m``: on the hour, for half an hour)."""

    variant: str
    pool: str
    minutes: int
    every: int

    @classmethod
    def parse(cls, text: str) -> Schedule:
        m = SCHEDULE.match(text)
        if m is None:
            raise ValueError(f"arena schedule {text!r} is not 'VARIANT POOL LENGTHm every PERIODm'")
        variant, pool = m["variant"], m["pool"]
        if variant not in VARIANTS:
            raise ValueError(f"arena schedule {text!r}: unknown variant {variant!r}")
        minutes, every = int(m["length"]), int(m["every"])
        if not 0 < minutes <= every:
            raise ValueError(f"arena schedule {text!r}: the length must be positive and at most the period")
        return cls(variant, pool, minutes, every)

    def next_spec(self, now_ms: int) -> ArenaSpec:
        """The arena running now, or else the next one: its id names its slot, so every node that
        asks makes the same arena."""
        period = self.every * 60_000
        start = now_ms - now_ms % period
        if now_ms >= start + self.minutes * 60_000:
            start += period
        arena_id = f"{self.variant}-{self.pool}-{start // 60_000}"
        return make_spec(
            arena_id, self.variant, self.pool, start, self.minutes, name=f"{self.variant} {self.pool}"
        )


def parse_schedules(text: str) -> list[Schedule]:
    """``;``-separated schedules (the ``arena_schedule`` setting); empty: none."""
    return [Schedule.parse(part) for part in text.split(";") if part.strip()]
