"""What a race asks the world to do: the effects its methods return, in the order they must happen.

The race core never sends, stores or sleeps; each of its methods returns a list of
these plain values and the server's driver applies them one by one, in order. So
"a player reads their move's answer before the ``finished`` it caused" is a property
of the list: the :class:`Reply` comes first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from terrace.rules.game import Game
from terrace.wire.messages import Record, Summary

Message = Mapping[str, object]  # an answer or a push: one of terrace.wire.messages' types
LogEntry = dict[str, Any]  # one line of a race's move log (terrace.race.restore says what it holds)


@dataclass(frozen=True)
class Reply:
    """The answer to the request being handled (the driver adds ``re``). ``frame``, when given,
    is the message's msgpack frame already made (``terrace.wire.protocol.pack``): a move's
    answer is encoded once, when it is made, and kept that way for resends."""

    message: Message
    frame: bytes | None = None


@dataclass(frozen=True)
class Send:
    """A push to one seated player (``started`` on the first view or on coming back)."""

    player: str
    message: Message


@dataclass(frozen=True)
class Broadcast:
    """A push to everyone who follows the race: its players, its spectators, lobby subscribers;
    to its players alone when ``players_only`` (a private race)."""

    message: Message
    players_only: bool = False


@dataclass(frozen=True)
class Changed:
    """The race's summary changed (seats, state): tell the lobby, or its players alone when
    ``players_only`` (a private race)."""

    summary: Summary
    players_only: bool = False


@dataclass(frozen=True)
class Log:
    """Append ``entry`` to the race's move log, best effort (a finish by the clock or by absence).

    Moves and resignations are logged *before* they are applied, by the two-step
    ``check_*``/``apply_*`` methods, not through this effect."""

    entry: LogEntry


@dataclass(frozen=True)
class SaveMeta:
    """Save what a restarted server needs to rebuild the race, then call ``Race.meta_saved``."""

    meta: dict[str, Any]


@dataclass(frozen=True)
class Search:
    """``player``'s game needs the long lost search: run it off the event loop on ``game`` (a
    copy), then call ``Race.settled(player, status, now, path)`` with what ``game.found()`` gives.
    ``key`` is the position's key, so one
    search can serve every seat waiting on the same position."""

    player: str
    game: Game = field(repr=False)
    key: str


@dataclass(frozen=True)
class Freed:
    """``player`` has finished: free to queue or join another race while this one goes on."""

    player: str


@dataclass(frozen=True)
class Over:
    """The race is over. ``record`` is the finished race's record (None when it was cancelled)."""

    record: Record | None


@dataclass(frozen=True)
class Wake:
    """Call ``Race.tick`` at ``at`` (ms, the race's clock); None: nothing is due any more."""

    at: int | None


Effect = Reply | Send | Broadcast | Changed | Log | SaveMeta | Search | Freed | Over | Wake
