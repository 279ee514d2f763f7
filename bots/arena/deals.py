"""Sets of public numbered deals (seeds/README.md): ranges such as ``1-500`` or files of numbers.

Used by the arena (``terrace-arena --deals``) and the engine benchmark; standard library only.

    >>> load_deals("3-5")
    [3, 4, 5]
    >>> load_deals("1-3,10,20-21")
    [1, 2, 3, 10, 20, 21]
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["load_deals"]

_PART = r"\s*[0-9]+\s*(?:-\s*[0-9]+\s*)?"
_RANGES = re.compile(rf"{_PART}(?:,{_PART})*")


def _parse_ranges(spec: str) -> list[int]:
    deals: list[int] = []
    for part in spec.split(","):
        lo_text, _, hi_text = part.partition("-")
        lo = int(lo_text)
        hi = int(hi_text) if hi_text else lo
        if lo > hi:
            raise ValueError(f"empty deal range {part.strip()!r}")
        deals.extend(range(lo, hi + 1))
    return deals


def load_deals(spec: str | Path) -> list[int]:
    """Numbered deals from a range ``"1-500"`` or a file of one number per line.

    A string may also be one number (``"7"``) or a comma list of numbers and
    ranges (``"1-10,15,20-25"``); any other string, and any :class:`~pathlib.Path`,
    names a file. In files, blank lines and ``#`` comments are ignored. Deals
    keep their order (and any repeats). Raises ValueError for an empty range or
    a bad line, OSError for a file that cannot be read.
    """
    if isinstance(spec, str) and _RANGES.fullmatch(spec):
        return _parse_ranges(spec)
    deals = []
    for n, line in enumerate(Path(spec).read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if text:
            if not (text.isascii() and text.isdigit()):
                raise ValueError(f"{spec}:{n}: not a deal number: {line!r}")
            deals.append(int(text))
    if not deals:
        raise ValueError(f"{spec}: no deals")
    return deals
