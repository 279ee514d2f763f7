"""When two names are the same name: case and look-alike characters aside.

Names are compared by their keys (:func:`keys`): two names clash when they share one.
The keys come from the Unicode confusable *skeleton* (UTS #39, as ICU computes it), so
``AIice`` (capital i) clashes with ``Alice``, ``B0b`` with ``Bob`` and ``rnary`` with
``mary``. Case must not matter either, but folding case first would hide a capital I
posing as an l, and the skeleton keeps case; so a name has two keys, the skeleton of
its case-folded form and the case-folded form of its skeleton.
"""

from __future__ import annotations

import functools

import icu

_SPOOF = icu.SpoofChecker()


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: look-alike characters mapped to one prototype."""
    return str(_SPOOF.getSkeleton(0, text))


@functools.lru_cache(maxsize=4_096)
def keys(name: str) -> tuple[str, ...]:
    """The keys of ``name``: names that share a key are one name (the first key is the main one)."""
    folded = skeleton(name.casefold()).casefold()
    return tuple(dict.fromkeys((folded, skeleton(name).casefold())))
