"""Per-connection and per-address limits: a token bucket and an address counter."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; each message takes one."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self._clock = clock
        self._last = self._clock()

    def take(self) -> float:
        """0.0 if a token was taken, else the seconds until one is free."""
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + (now - self._last) * self.rate)
        self._last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class AddressCounter:
    """Open connections per remote address."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def full(self, address: str) -> bool:
        return self._open[address] >= self.limit

    def add(self, address: str) -> bool:
        """Count one more from ``address``; False (and not counted) past the limit."""
        if self.full(address):
            return False
        self._open[address] += 1
        return True

    def remove(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]
