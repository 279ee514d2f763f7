"""A move in canonical notation as a value: its source and target, read once, named once.

``legal_moves()`` and every answer carry moves as canonical strings (``W-3``,
``T-F1``, ``S-W``, Louis ``b-Kh``, ``redeal``). :class:`Move` reads one into its
parts so bots, clients and tools stop splitting strings by hand::

    >>> m = Move.parse("W-3")
    >>> m.source, m.target, m.home
    ('W', '3', False)
    >>> str(Move.parse("T-F1")), Move.parse("T-F1").home
    ('T-F1', True)
    >>> Move.parse("3-5").reversed()
    Move('5-3')

Lenient input (``w3``, ``4f``, ``10h``) is the engine's to read: ``Game.resolve``
turns it into the canonical string this class takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REDEAL = "redeal"
_CANONICAL = re.compile(r"([A-Za-z0-9]{1,2})-([A-Za-z0-9]{1,2})")
_FOUNDATION = re.compile(r"F[1-8]|[AK][cdhs]")  # Terrace family, Louis


@dataclass(frozen=True, slots=True)
class Move:
    """One canonical move: ``source`` to ``target`` (a place name each), or the word ``redeal``."""

    source: str
    target: str

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move ``text`` writes in canonical notation; ValueError if it is not canonical."""
        if text == REDEAL:
            return cls(REDEAL, "")
        m = _CANONICAL.fullmatch(text)
        if m is None:
            raise ValueError(f"not a move in canonical notation: {text!r} (e.g. W-3, T-F1, redeal)")
        return cls(m.group(1), m.group(2))

    @property
    def home(self) -> bool:
        """Whether it puts a card on a foundation."""
        return bool(_FOUNDATION.fullmatch(self.target))

    @property
    def redeal(self) -> bool:
        return self.source == REDEAL

    def reversed(self) -> Move:
        """The same card moved back (meaningful for moves between piles or heaps)."""
        return Move(self.target, self.source) if not self.redeal else self

    def __str__(self) -> str:
        return REDEAL if self.redeal else f"{self.source}-{self.target}"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"
