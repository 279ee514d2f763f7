"""What the play screen sits at: a race on a server or a practice game, behind one interface.

The screen (``client.screen``) draws a :class:`Table`'s state and sends the
player's typed moves to it; it never knows whether a server or the engine is
behind it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from terrace.wire.messages import Row

View = dict[str, Any]


@dataclass
class Outcome:
    """What became of a typed move: accepted (with its canonical form) or refused (with why)."""

    ok: bool
    move: str = ""  # canonical, when accepted
    message: str = ""  # the reason, when refused; news (e.g. "terrace cleared!"), when accepted
    events: list[dict[str, Any]] = field(default_factory=list)


class Table(Protocol):
    title: str  # e.g. "race 9f3a61c2 - terrace, goal terrace" or "practice - signora, deal 42"

    def view(self) -> View:
        """The player's current view (the engine's view schema)."""
        ...

    def legal(self) -> list[str]:
        """The legal moves now, canonical notation."""
        ...

    def standings(self) -> list[Row]:
        """Live standings rows of the race (empty offline)."""
        ...

    def clock(self) -> str | None:
        """Time left as text ("12:34"), or None without a clock."""
        ...

    def over(self) -> str | None:
        """None while the player may still move; else a sentence saying how it ended."""
        ...

    async def move(self, text: str) -> Outcome:
        """Send a typed move."""
        ...

    def commands(self) -> dict[str, Callable[[], Awaitable[str]]]:
        """Extra commands the screen offers (``undo``, ``hint``, ``resign``): name -> action giving a message."""
        ...
