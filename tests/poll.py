"""Waiting for a condition with a deadline, instead of sleeping "long enough".

On a loaded 2-core machine a fixed sleep is either too short (a flaky test) or too
long (a slow suite). :func:`eventually` polls a condition until it holds or the
deadline passes, then fails with what it was waiting for.

    await eventually(lambda: server.registry.drivers == {}, what="the race to be gone")
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

DEADLINE = 10.0  # seconds: generous, because a loaded machine is slow, and a pass returns at once
EVERY = 0.01


async def eventually(
    condition: Callable[[], T | Awaitable[T]],
    *,
    timeout: float = DEADLINE,
    every: float = EVERY,
    what: str = "the condition",
) -> T:
    """Poll ``condition()`` (sync or async) until it returns something truthy; return that.

    Raises AssertionError naming ``what`` and the last value seen after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}; last seen {value!r}")
        await asyncio.sleep(every)


def eventually_sync(
    condition: Callable[[], T],
    *,
    timeout: float = DEADLINE,
    every: float = EVERY,
    what: str = "the condition",
) -> T:
    """:func:`eventually` for code without an event loop (subprocesses, files)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}; last seen {value!r}")
        time.sleep(every)
