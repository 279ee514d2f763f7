"""What a race is (its rules) and the server's race settings (its timing), as plain values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from terrace.rules.versions import RULES_VERSION

from ..vocab import Entry, Goal, Kind, StartMode, Unrated

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
class RaceOptions:
    """What a race does beyond its rules, for the features built on races (a daily attempt,
    a challenge's): the core honours them, and they are kept in the race's meta, so a race
    rebuilt from its log on another node is the same race."""

    private: bool = False  # heard by its players only: never listed, watched or shared with other nodes
    seed_kept: bool = False  # its ``finished`` keeps the seed back: the deal is raced again later
    owner: dict[str, Any] | None = None  # who takes the race at its end (opaque to the core)
    # a created race seating two registered players of one address goes ahead unrated (why it is
    # not rated, said in its summary and record); one created ``rated`` refuses the second instead
    unrated: Unrated | None = None
    rated_only: bool = False

    def stored(self) -> dict[str, Any]:
        out: dict[str, Any] = {"private": self.private, "seed_kept": self.seed_kept, "owner": self.owner}
        if self.unrated is not None:
            out["unrated"] = self.unrated
        if self.rated_only:
            out["rated_only"] = True
        return out


PLAIN = RaceOptions()  # a race like any other


@dataclass(frozen=True)
class Timing:
    """The server's race settings, in milliseconds."""

    countdown: int = 3_000
    grace: int = 60_000  # a player who is away this long finishes ``disconnected``
    standings: int = 100  # standings pushes are gathered over this window
    open_for: int | None = None  # an unstarted race is cancelled this long after its creation
