"""Prometheus metrics of one server: connections, races, moves, errors, move latency, and what
stalls its event loop (garbage collection pauses, the loop's lag).

Each server has its own registry, so several servers in one process (tests) never clash.
Accepted moves and their handling times, counted on every move, are tallied in plain
numbers (:class:`MoveTally`) and read at scrape: a Prometheus counter and histogram take a
lock and several calls per observation, a measurable part of a move.
"""

from __future__ import annotations

import asyncio
import gc
import time
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

from server.periodic import repeat

# Move handling is sub-millisecond unless the lost search runs (up to ~0.5 s).
MOVE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
# A stall of the event loop holds every connection's next answer: most are well under a
# millisecond, a full garbage collection with many players tens to hundreds of milliseconds.
STALL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
LAG_EVERY = 0.25  # seconds between the loop lag monitor's wake-ups


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("terrace_connections", "Open websocket connections.", registry=r)
        self.races = Gauge("terrace_races", "Races by state.", ["state"], registry=r)
        self.messages = MessageTally()  # terrace_messages_total{type}
        r.register(self.messages)
        self.moves = MoveTally()  # terrace_moves_total and terrace_move_seconds
        r.register(self.moves)
        self.errors = Counter("terrace_errors_total", "Error answers sent, by code.", ["code"], registry=r)
        self.not_ready = Counter(
            "terrace_not_finished_total",
            "record requests for races not over yet: clients polling for a result, not errors.",
            registry=r,
        )
        self.races_finished = Counter("terrace_races_finished_total", "Races that ended.", registry=r)
        # holding under attack
        self.slow_readers = Counter(
            "terrace_slow_readers_total",
            "Connections cut off for not reading what the server sent them.",
            registry=r,
        )
        self.cut = Counter(
            "terrace_connections_cut_total",
            "Connections closed by a limit, by reason (control frames, handshake timeout...).",
            ["reason"],
            registry=r,
        )
        self.races_expired = Counter(
            "terrace_races_expired_total", "Unstarted races cancelled for waiting too long.", registry=r
        )

        self.gc_pauses = Histogram(
            "terrace_gc_pause_seconds",
            "Garbage collections of the server's process, by generation (2: full), and how long "
            "each held it (and its event loop).",
            ["generation"],
            buckets=STALL_BUCKETS,
            registry=r,
        )
        self._gc_by_generation = [self.gc_pauses.labels(str(g)) for g in range(3)]
        self._gc_started = 0.0
        self.loop_lag = Histogram(
            "terrace_event_loop_lag_seconds",
            f"How late the event loop ran a callback due every {LAG_EVERY:g} s: time every "
            "connection waited behind other work (a garbage collection, a long handler).",
            buckets=STALL_BUCKETS,
            registry=r,
        )

    def count_message(self, kind: str) -> None:
        """One more request of ``kind`` (a checked request type, so the labels stay few)."""
        counts = self.messages.counts
        counts[kind] = counts.get(kind, 0) + 1

    def text(self) -> bytes:
        return generate_latest(self.registry)

    # ----- what stalls the event loop

    def watch_gc(self) -> None:
        """Time this process's garbage collections from now on (until :meth:`unwatch_gc`)."""
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def unwatch_gc(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        # (called by the interpreter around every collection, dozens a second: kept small)
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started:
            self._gc_by_generation[info["generation"]].observe(time.perf_counter() - self._gc_started)

    async def watch_loop(self) -> None:
        """Observe how late the loop wakes a sleep of LAG_EVERY seconds, for ever: a stall
        (a long collection, a handler that did not yield) shows as lag."""
        loop = asyncio.get_running_loop()
        due = loop.time() + LAG_EVERY

        async def observe() -> None:
            nonlocal due
            self.loop_lag.observe(max(0.0, loop.time() - due))
            due = loop.time() + LAG_EVERY  # repeat's next wait starts now

        await repeat(observe, LAG_EVERY, what="loop lag")


class MessageTally:
    """Requests received by type (``terrace_messages_total{type}``), tallied in a plain dict and
    turned into the metric when scraped: a Prometheus counter's ``inc`` takes a lock and some
    calls on every request."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def collect(self) -> Iterator[Metric]:
        messages = CounterMetricFamily("terrace_messages", "Requests received, by type.", labels=["type"])
        for kind, n in sorted(self.counts.items()):
            messages.add_metric([kind], n)
        yield messages


class MoveTally:
    """Accepted moves (``terrace_moves_total``) and the seconds each took to handle
    (``terrace_move_seconds``, a histogram over :data:`MOVE_BUCKETS`), as a collector: the
    tally is plain numbers, turned into metrics when scraped."""

    def __init__(self) -> None:
        self.count = 0
        self.sum = 0.0
        self.buckets = [0] * (len(MOVE_BUCKETS) + 1)  # moves per bucket (not cumulative), +Inf last

    def observe(self, seconds: float) -> None:
        """One more accepted move that took ``seconds``."""
        self.count += 1
        self.sum += seconds
        self.buckets[bisect_left(MOVE_BUCKETS, seconds)] += 1  # a bucket holds what is <= its bound

    def collect(self) -> Iterator[Metric]:
        moves = CounterMetricFamily("terrace_moves", "Moves accepted.")
        moves.add_metric([], self.count)
        yield moves
        cumulative, running = [], 0
        for bound, n in zip((*MOVE_BUCKETS, float("inf")), self.buckets, strict=True):
            running += n
            cumulative.append((floatToGoString(bound), running))  # type: ignore[no-untyped-call]
        seconds = HistogramMetricFamily("terrace_move_seconds", "Time to handle an accepted move.")
        seconds.add_metric([], cumulative, self.sum)
        yield seconds
