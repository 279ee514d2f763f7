"""When the server's garbage collector runs: its thresholds, and young collections on a timer.

CPython collects its youngest generation once allocations outnumber deallocations by
``threshold0``. With many players whose messages come a second or two apart, what each
connection waits with (a coroutine, a future, a frame) lives that long: old objects die as fast
as new ones are made, the count hardly grows, and the young generation swells to tens of
thousands of objects between collections, each then holding the event loop for 5-30 ms (README
"Server"). Collecting it on a timer keeps each collection to what the last interval made; the
middle generation follows CPython's count and threshold, and so does the full collection, with
CPython's own brake: none until the oldest generation has grown by a quarter since the last one.
"""

from __future__ import annotations

import gc

from server.periodic import repeat

GROWTH = 1.25  # a full collection waits until the oldest generation is this much larger


class Collector:
    """Decides each timed collection's generation; :meth:`run` collects every ``every`` seconds."""

    def __init__(self) -> None:
        self.full_size = 0  # objects in the oldest generation after the last full collection
        self.middles = 0  # middle collections since a full one was last considered

    def generation_due(self) -> int:
        """The generation to collect now: 0; 1 once the middle one's count is past its threshold;
        2 once, besides, ``threshold2`` middle ones have been, and the oldest generation has grown
        by GROWTH since the last full collection (CPython counts what was moved into it instead,
        which Python cannot read; its size is what a full collection would scan)."""
        count, threshold = gc.get_count(), gc.get_threshold()
        if count[1] <= threshold[1]:
            return 0
        self.middles += 1
        if self.middles < threshold[2]:
            return 1
        self.middles = 0
        return 2 if len(gc.get_objects(2)) > self.full_size * GROWTH else 1

    def collect(self) -> int:
        generation = self.generation_due()
        gc.collect(generation)
        if generation == 2:
            self.full_size = len(gc.get_objects(2))
        return generation

    async def run(self, every: float) -> None:
        """Collect every ``every`` seconds, for ever."""

        async def collect() -> None:
            self.collect()

        await repeat(collect, every, what="young collections")
