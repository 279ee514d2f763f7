"""State machines as tables, like h11's: (state, event) -> next state, one table per machine.

Three machines run on the one mechanism, :class:`Machine`:

- a race (:data:`RACE`): ``open``, ``countdown``, ``running``, then ``finished``, or
  ``cancelled`` when nobody is left before the deal. The moment between the end of the
  countdown and the first view, while a durable race saves what a restarted server needs
  (its meta), is a state of its own here, ``saving``; players and the lobby see it as
  ``countdown`` (:data:`SHOWN`);
- a seat (:data:`SEAT`): ``waiting`` for the deal, ``playing``, ``searching`` while a
  move's long lost search runs, ``finished``. Whether the player's connection is up is not a
  state of the seat: it may come and go in any of them;
- an arena (:data:`ARENA`): ``upcoming``, ``running``, ``finished``, moved by its clock.

Every entry point of :class:`~terrace.race.core.Race` and :class:`~terrace.race.arena.Arena`
fires a named event; an event the table does not list for the current state raises
:class:`IllegalTransition`: a bug, never a player's mistake (players get protocol errors
before any event is fired). :func:`diagram` draws a table for the docs
(docs/architecture.md), so the picture there is the table itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Generic, Literal, TypeVar

from ..vocab import RaceState

S = TypeVar("S", bound=str)
E = TypeVar("E", bound=str)

Table = Mapping[S, Mapping[E, S]]


class IllegalTransition(RuntimeError):
    """An event the state table does not list for the machine's current state."""

    def __init__(self, machine: str, state: str, event: str) -> None:
        super().__init__(f"{machine}: {event!r} in state {state!r} is not in the state table")
        self.machine = machine
        self.state = state
        self.event = event


class Machine(Generic[S, E]):
    """One machine's current state, moved by events through its table."""

    __slots__ = ("name", "state", "table")

    def __init__(self, table: Table[S, E], state: S, name: str) -> None:
        self.table = table
        self.state = state
        self.name = name  # for IllegalTransition: "race r1", "seat g-alice", "arena evening"

    def fire(self, event: E) -> S:
        """Move on ``event``: the next state, or IllegalTransition (the state is unchanged)."""
        new = self.table[self.state].get(event)
        if new is None:
            raise IllegalTransition(self.name, self.state, event)
        self.state = new
        return new

    def allows(self, event: E) -> bool:
        return event in self.table[self.state]

    def __repr__(self) -> str:
        return f"<Machine {self.name} {self.state}>"


def _frozen(table: Mapping[S, Mapping[E, S]]) -> Table[S, E]:
    return MappingProxyType({s: MappingProxyType(dict(row)) for s, row in table.items()})


# ----- a race ---------------------------------------------------------------------------

RacePhase = Literal["open", "countdown", "saving", "running", "finished", "cancelled"]
RaceEvent = Literal[
    "join",  # a player takes a seat
    "leave",  # a player leaves before the deal, and someone is still seated
    "empty",  # the last player left before the deal (or the countdown ended with nobody)
    "begin",  # the creator started the countdown, or the last seat of a start: full race filled
    "expire",  # nobody started it within Timing.open_for
    "deal",  # the countdown is over: the first view goes out
    "save_meta",  # the countdown is over (or a player left while saving): save the meta first
    "meta_saved",  # the store holds the meta: the first view goes out
    "restore",  # rebuilt from its log on another server: open and countdown happened there
    "resume",  # a rebuilt race runs on here, every player given a grace period
    "reconnect",  # a seated player's connection is back
    "disconnect",  # a seated player's connection closed (before the deal: ``leave``)
    "move",  # a player's move is played
    "settle",  # a move's long lost search answered
    "resign",  # a player resigns or leaves a running race
    "grace_over",  # a player stayed away past the grace period
    "end",  # every player has finished
    "time_up",  # the time limit ran out
]

RACE: Table[RacePhase, RaceEvent] = _frozen(
    {
        "open": {
            "join": "open",
            "leave": "open",
            "reconnect": "open",
            "begin": "countdown",
            "empty": "cancelled",
            "expire": "cancelled",
            "restore": "running",
        },
        "countdown": {
            "leave": "countdown",
            "reconnect": "countdown",
            "disconnect": "countdown",
            "deal": "running",
            "save_meta": "saving",
            "empty": "cancelled",
        },
        "saving": {
            "leave": "saving",
            "reconnect": "saving",
            "disconnect": "saving",
            "save_meta": "saving",
            "meta_saved": "running",
            "empty": "cancelled",
        },
        "running": {
            "move": "running",
            "settle": "running",
            "resign": "running",
            "reconnect": "running",
            "disconnect": "running",
            "grace_over": "running",
            "resume": "running",
            "end": "finished",
            "time_up": "finished",
        },
        # a move's search that ran on past the end still answers the move
        "finished": {"settle": "finished"},
        "cancelled": {},
    }
)

SHOWN: Mapping[RacePhase, RaceState] = MappingProxyType(
    {
        "open": "open",
        "countdown": "countdown",
        "saving": "countdown",  # nobody outside the race needs to know the meta is on its way
        "running": "running",
        "finished": "finished",
        "cancelled": "cancelled",
    }
)
"""The state players, spectators and the lobby see for each of the race's own."""

OVER: frozenset[RaceState] = frozenset({"finished", "cancelled"})
"""States a race never leaves."""


# ----- a seat ---------------------------------------------------------------------------

SeatState = Literal["waiting", "playing", "searching", "finished"]
SeatEvent = Literal[
    "dealt",  # the race dealt: the seat has its game
    "moved",  # a move played, its status known
    "searching",  # a move played whose status waits for a long lost search
    "settled",  # that search answered
    "finished",  # the player's race is over: goal, stuck, resigned, left, disconnected or time
]

SEAT: Table[SeatState, SeatEvent] = _frozen(
    {
        "waiting": {"dealt": "playing"},
        "playing": {"moved": "playing", "searching": "searching", "finished": "finished"},
        "searching": {"settled": "playing", "finished": "finished"},
        # time ran out, or the player resigned, while the search ran: the move is still answered
        "finished": {"settled": "finished"},
    }
)


# ----- an arena -------------------------------------------------------------------------

ArenaState = Literal["upcoming", "running", "finished"]
ArenaEvent = Literal[
    "join",  # a player joins (or comes back)
    "leave",  # a player leaves: not paired again
    "start",  # the clock reached the start: everyone joined is paired
    "end",  # the clock reached the end: nobody waits in its queue any more
    "race_over",  # a race of the arena ended and counts
]

ARENA: Table[ArenaState, ArenaEvent] = _frozen(
    {
        "upcoming": {
            "join": "upcoming",
            "leave": "upcoming",
            "start": "running",
            "end": "finished",  # a tick late past the end goes straight over
        },
        "running": {"join": "running", "leave": "running", "race_over": "running", "end": "finished"},
        # races paired before the end finish, and count, after it
        "finished": {"leave": "finished", "race_over": "finished"},
    }
)


# ----- the docs' diagram ----------------------------------------------------------------


def diagram(table: Table[S, E], first: S, shown: Mapping[S, str] | None = None) -> str:
    """``table`` as a Mermaid state diagram (GitHub draws it; as text it still reads): one
    arrow per (state, next state) naming the events that take it, in the table's order.
    ``shown``: a state's name outside the machine, where it differs."""
    lines = ["stateDiagram-v2", f"    [*] --> {first}"]
    for state, row in table.items():
        if shown is not None and shown[state] != state:
            lines.append(f"    {state}: {state} (shown as {shown[state]})")
        arrows: dict[str, list[str]] = {}
        for event, new in row.items():
            arrows.setdefault(new, []).append(event)
        lines += [f"    {state} --> {new}: {', '.join(events)}" for new, events in arrows.items()]
        if all(new == state for new in row.values()):  # it never leaves: an end
            lines.append(f"    {state} --> [*]")
    return "\n".join(lines)
