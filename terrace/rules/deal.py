"""DEAL-V1: the exact, language-neutral shuffle of docs/rulebook.md, "Deals: DEAL-V1".

A deal is fixed by a seed (bytes). Public numbered deals use the seed
``b"terrace-deal:" + str(n).encode()``; races use 32 secret random bytes and
publish only :func:`commitment` until the race ends.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

Deal = int | bytes

_TWO64 = 2**64


def seed_of(deal: Deal) -> bytes:
    """The seed bytes of a numbered deal (int) or a raw seed (bytes)."""
    if isinstance(deal, bool):
        raise TypeError("a deal is an int (numbered deal) or bytes (seed), not a bool")
    if isinstance(deal, int):
        if deal < 0:
            raise ValueError("numbered deals are non-negative")
        return b"terrace-deal:" + str(deal).encode()
    if isinstance(deal, (bytes, bytearray)):
        return bytes(deal)
    raise TypeError(f"a deal is an int (numbered deal) or bytes (seed), not {type(deal).__name__}")


def _words(seed: bytes) -> Iterator[int]:
    k = 0
    while True:
        block = hashlib.sha256(seed + k.to_bytes(8, "big")).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i : i + 8], "big")
        k += 1


def shuffle(cards: Sequence[int], deal: Deal) -> list[int]:
    """Fisher-Yates over ``cards`` driven by the DEAL-V1 byte stream of ``deal``.

    The result's element 0 is the first card dealt.
    """
    words = _words(seed_of(deal))
    a = list(cards)
    for i in range(len(a) - 1, 0, -1):
        n = i + 1
        limit = (_TWO64 // n) * n
        x = next(words)
        while x >= limit:  # rejection keeps randbelow unbiased
            x = next(words)
        j = x % n
        a[i], a[j] = a[j], a[i]
    return a


def commitment(seed: bytes) -> str:
    """Hex SHA-256 commitment to a race seed, published before the seed is."""
    return hashlib.sha256(b"terrace-commit:" + seed).hexdigest()
