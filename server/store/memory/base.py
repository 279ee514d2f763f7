"""The memory store's clock and lifecycle: what every part of it shares."""

from __future__ import annotations

from collections.abc import Callable


class MemoryBase:
    """``_clock`` (seconds, monotonic) decides when what has a ttl expires; tests inject one."""

    _clock: Callable[[], float]

    async def ping(self) -> None:
        return None

    async def close(self) -> None:
        return None
