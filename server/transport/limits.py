"""Per-connection and per-address limits: token buckets and an address counter.

A message costs tokens by its size (see :func:`cost`), so one large frame costs what
the work of decoding it does. Each connection has its own bucket, and every
connection from one address also draws on the address's bucket, which outlives
them: reconnecting gives no fresh tokens.
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter
from collections.abc import Callable

from server.config import Networks


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; a message takes its cost (one for a small one)."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self._clock = clock
        self._last = self._clock()

    def take(self, cost: float = 1.0) -> float:
        """0.0 if ``cost`` tokens were taken, else the seconds until they are there (none taken)."""
        wait = self.wait(cost)
        if not wait:
            self.tokens -= cost
        return wait

    def wait(self, cost: float = 1.0) -> float:
        """The seconds until ``cost`` tokens are there (0.0: now); takes none. A cost over the
        burst is charged as the whole burst, so it waits for a full bucket, never for ever."""
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + (now - self._last) * self.rate)
        self._last = now
        cost = min(cost, self.burst)
        if self.tokens >= cost:
            return 0.0
        return (cost - self.tokens) / self.rate

    def charge(self, cost: float) -> None:
        """Take ``cost`` whether it is there or not: the bucket may owe up to a whole burst."""
        self.wait(cost)  # refills first
        self.tokens = max(self.tokens - cost, -float(self.burst))

    def spend(self, cost: float, owing: bool = False) -> None:
        """Take ``cost`` right after :meth:`wait` refilled the bucket (no second refill: one clock
        read per message); with ``owing``, as :meth:`charge` does, whether it is there or not."""
        self.tokens = max(self.tokens - cost, -float(self.burst)) if owing else self.tokens - cost

    def full(self) -> bool:
        """Whether the bucket has refilled: forgetting it then loses nothing."""
        return self.wait(self.burst) == 0.0


def address_key(ip: str) -> str:
    """The "address" per-address limits count: an IPv4 address as it is, an IPv6 one as its /64
    (one household or host gets a whole /64, and could otherwise hop within it), an IPv4 address
    mapped into IPv6 as the IPv4 address."""
    try:
        parsed = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return ip


def client_address(peer: str, forwarded: str | None, proxies: Networks) -> str:
    """The address the per-address limits count for a connection from ``peer``.

    Behind a proxy every connection comes from the proxy, so every player would share one
    address's limits (one rated seat a race, 20 registrations an hour, one token bucket).
    When ``peer`` is a trusted proxy, the client is the last address in ``X-Forwarded-For``
    (``forwarded``, every such header joined by commas) that is not a trusted proxy itself:
    each proxy appends the address it saw, so what stands to the right of the first untrusted
    address was written by proxies we trust, and anything to its left may be made up by the
    client. A hop that is not an address means a proxy we do not understand: the peer counts.
    """

    def trusted(ip: str) -> bool:
        try:
            parsed = ipaddress.ip_address(ip)
        except ValueError:
            return False
        if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
            parsed = parsed.ipv4_mapped
        return any(parsed in net for net in proxies)

    if not proxies or not forwarded or not trusted(peer):
        return address_key(peer)
    client = peer
    for hop in reversed([h.strip().strip("[]") for h in forwarded.split(",")]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return address_key(peer)
        client = hop
        if not trusted(hop):
            break
    return address_key(client)


def cost(size: int, bytes_per_token: int) -> float:
    """The tokens a message of ``size`` bytes costs: one, plus one per ``bytes_per_token``."""
    return 1.0 + size // bytes_per_token


class AddressBuckets:
    """One token bucket per remote address, kept while it is not full (so an address that
    reconnects finds the bucket it emptied), forgotten once refilled."""

    PRUNE_AT = 4_096  # addresses tracked before the full buckets are dropped

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def __getitem__(self, address: str) -> TokenBucket:
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self.PRUNE_AT:
                self._buckets = {a: b for a, b in self._buckets.items() if not b.full()}
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst, self._clock)
        return bucket

    def __len__(self) -> int:
        return len(self._buckets)


class AddressCounter:
    """Open connections per remote address."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def full(self, address: str) -> bool:
        return self._open[address] >= self.limit

    def count(self, address: str) -> int:
        return self._open[address]

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
