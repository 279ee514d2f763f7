"""Splitting typed moves into a source token and a target token.

Canonical notation is ``SOURCE-TARGET`` (docs/rulebook.md, "Moves"). People and bots
may also type ``W3``, ``4f``, ``10h`` or ``Th F``; without a separator we
cannot know where the source ends, so :func:`candidates` lists every split
and the game keeps the ones whose tokens name real places or cards.
"""

from __future__ import annotations

import re

from terrace.rules.cards import normalise_symbols

_SEPARATOR = re.compile(r"\s*(?:->|→|-|\s)\s*")

# Whole-word moves every engine understands, mapped to a canonical word.
WORDS = {
    "redeal": "redeal",
    "recycle": "recycle",
    "deal": "deal",
    "stock": "deal",
}


def candidates(text: str) -> list[tuple[str, str | None]]:
    """Every way to read ``text`` as (source token, target token or None).

    An explicit separator gives one reading; otherwise the whole text as a
    source with no target comes first, then each split point in order.
    """
    t = normalise_symbols(text).strip()
    if not t:
        return []
    if _SEPARATOR.search(t):
        parts = _SEPARATOR.split(t)
        return [(parts[0], parts[1])] if len(parts) == 2 and all(parts) else []
    return [(t, None)] + [(t[:i], t[i:]) for i in range(1, len(t))]
