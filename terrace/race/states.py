"""A race's states and the steps allowed between them, in one table (like h11's).

    open ──start / full──▶ countdown ──deal──▶ running ──everyone finished / time──▶ finished
      │                        │
      └──last player leaves, or nobody started it in time──▶ cancelled ◀──everyone left before the deal

``countdown`` also covers the moment between the end of the countdown and the first
view, while a durable race saves what a restarted server needs (its meta). A step
the table does not allow raises :class:`IllegalTransition`: a bug, never a player's
mistake (players get protocol errors before any step is tried).
"""

from __future__ import annotations

from types import MappingProxyType

from ..vocab import RaceState

TRANSITIONS: MappingProxyType[RaceState, frozenset[RaceState]] = MappingProxyType(
    {
        "open": frozenset({"countdown", "cancelled"}),
        "countdown": frozenset({"running", "cancelled"}),
        "running": frozenset({"finished"}),
        "finished": frozenset(),
        "cancelled": frozenset(),
    }
)

OVER: frozenset[RaceState] = frozenset({"finished", "cancelled"})
"""States a race never leaves."""


class IllegalTransition(RuntimeError):
    """A step the state table does not allow."""

    def __init__(self, race: str, old: RaceState, new: RaceState) -> None:
        super().__init__(f"race {race}: {old} -> {new} is not a step the state table allows")
        self.old = old
        self.new = new


def step(race: str, old: RaceState, new: RaceState) -> RaceState:
    """``new`` if the table allows ``old -> new``; raises IllegalTransition otherwise."""
    if new not in TRANSITIONS[old]:
        raise IllegalTransition(race, old, new)
    return new
