"""When the server's garbage collector runs: its thresholds, and young collections on a timer.

CPython collects its youngest generation once allocations outnumber deallocations by
``threshold0``. With many players whose messages come a second or two apart, what each
connection waits with (a coroutine, a future, a frame) and the views it was sent live that long:
old objects die as fast as new ones are made, the count hardly grows, and the young generation
swells to tens of thousands of objects between collections, each collection then holding the
event loop for 5-30 ms (README "Server"). Collecting it on a timer keeps each collection to what
the last interval made; the older generations follow CPython's own counts and thresholds.
"""

from __future__ import annotations

import asyncio
import gc


def generation_due() -> int:
    """The oldest generation whose count is past its threshold (0 when none is): what CPython
    would collect next. (CPython also waits with a full collection until a quarter of the objects
    it would scan are new since the last one; a large third threshold spaces them out instead.)"""
    count, threshold = gc.get_count(), gc.get_threshold()
    for generation in (2, 1):
        if count[generation] > threshold[generation]:
            return generation
    return 0


async def collect_young(every: float) -> None:
    """Every ``every`` seconds, collect the youngest generation (or an older one when its count
    is due), for ever."""
    while True:
        await asyncio.sleep(every)
        gc.collect(generation_due())
