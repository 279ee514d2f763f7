"""When two names are the same name: case, look-alike characters, separators and doubled letters aside.

Names are compared by their keys (:func:`keys`): two names clash when they share one.
The keys come from the Unicode confusable *skeleton* (UTS #39, as ICU computes it), so
``AIice`` (capital i) clashes with ``Alice``, ``B0b`` with ``Bob`` and ``rnary`` with
``mary``. Case must not matter either, but folding case first would hide a capital I
posing as an l, and the skeleton keeps case; so a name has two look-alike keys, the
skeleton of its case-folded form and the case-folded form of its skeleton.

Each of those also has a *folded* key: separators (``-``, ``_``, ``.``, spaces) dropped and
a letter written twice or more in a row written once, so ``robo_ladder``, ``roboladder``,
``robo-lader`` and ``Robo.Ladder`` are all ``robo-ladder``. Digits are not letters: ``player11``
stays another name than ``player1`` (numbered names are common, and the house numbers its
bots), though a digit that looks like the letter beside it still folds into it (``bi1l``).

:data:`KEYS_VERSION` changes whenever the keys do: a store made with older keys indexes its
accounts under the new ones once (``Store.index_names``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import icu

_SPOOF = icu.SpoofChecker()
SEPARATORS = frozenset("-_. ")
KEYS_VERSION = 2  # 1: look-alike keys only; 2: with the folded keys
HOUSE = "house"  # names whose folded key starts with this are the operator's house (reserved)


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: look-alike characters mapped to one prototype."""
    return str(_SPOOF.getSkeleton(0, text))


def _lower_skeleton(c: str) -> str:
    return skeleton(c.casefold()).casefold()


def _skeleton_lower(c: str) -> str:
    return skeleton(c).casefold()


def _folded(name: str, form: Callable[[str], str]) -> str:
    """``name`` character by character through ``form`` (the skeleton maps each character on its
    own), separators dropped, and a character equal to the one before dropped unless both came
    from digits."""
    out: list[tuple[str, bool]] = []  # (character, came from a digit)
    for c in name:
        if c in SEPARATORS:
            continue
        digit = c.isdigit()
        for ch in form(c):
            if ch in SEPARATORS:
                continue
            if out and out[-1][0] == ch and not (out[-1][1] and digit):
                continue
            out.append((ch, digit))
    return "".join(ch for ch, _ in out)


@functools.lru_cache(maxsize=4_096)
def keys(name: str) -> tuple[str, ...]:
    """The keys of ``name``: names that share a key are one name (the first key is the main one)."""
    folded = skeleton(name.casefold()).casefold()
    looks = (folded, skeleton(name).casefold())
    return tuple(dict.fromkeys((*looks, _folded(name, _lower_skeleton), _folded(name, _skeleton_lower))))


def reserved(name: str) -> bool:
    """Whether ``name`` is one of the operator's house names (``house-greedy-1``, ``House_bot``,
    ``h0use``...): any name whose folded form begins with ``house``."""
    return any(_folded(name, form).startswith(HOUSE) for form in (_lower_skeleton, _skeleton_lower))


@functools.cache
def _guest_pattern() -> re.Pattern[str]:
    """What the server names a guest who gives no name (``guest-`` and six hex digits), folded as
    names are: a hex digit by its look-alike too (``1`` folds into ``l``, ``0`` into ``o``)."""
    hex_looks = {
        ch for c in "0123456789abcdef" for form in (_lower_skeleton, _skeleton_lower) for ch in form(c)
    }
    return re.compile("guest[" + re.escape("".join(sorted(hex_looks))) + "]*")


def guest_like(name: str) -> bool:
    """Whether ``name`` reads as a name the server gives a nameless guest (``guest-3fa9c1``,
    ``Guest_ABC``, ``guest``): an account so named would pass for a passing guest."""
    pattern = _guest_pattern()
    return any(pattern.fullmatch(_folded(name, form)) for form in (_lower_skeleton, _skeleton_lower))
