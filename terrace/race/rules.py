"""What a race is (its rules) and the server's race settings (its timing), as plain values."""

from __future__ import annotations

from dataclasses import dataclass

from terrace.rules.versions import RULES_VERSION

from ..vocab import Entry, Goal, Kind, StartMode

KEEP_ANSWERS = 8
"""Answers kept per player for resent seqs: enough for a client that pipelines a few moves."""

META_VERSION = 1


@dataclass(frozen=True)
class RaceRules:
    """What a race is, as its creator (or matchmaking) asked for it."""

    variant: str
    goal: Goal
    seats: int
    time_limit: int  # seconds from the first view
    entry: Entry = "all"
    start: StartMode = "manual"
    rules_version: int = RULES_VERSION  # the rules the race is played under (terrace.rules.versions)

    def admits(self, kind: Kind) -> bool:
        return admits(self.entry, kind)


def admits(entry: Entry, kind: Kind) -> bool:
    """Whether a race's entry (or a queue's pool) ``entry`` lets a player of ``kind`` in."""
    return entry == "all" or (entry == "humans") == (kind == "human")


@dataclass(frozen=True)
class Timing:
    """The server's race settings, in milliseconds."""

    countdown: int = 3_000
    grace: int = 60_000  # a player who is away this long finishes ``disconnected``
    standings: int = 100  # standings pushes are gathered over this window
    open_for: int | None = None  # an unstarted race is cancelled this long after its creation
