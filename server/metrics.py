"""Prometheus metrics of one server: connections, races, moves, errors, move latency.

Each server has its own registry, so several servers in one process (tests) never clash.
Accepted moves and their handling times, counted on every move, are tallied in plain
numbers (:class:`MoveTally`) and read at scrape: a Prometheus counter and histogram take a
lock and several calls per observation, a measurable part of a move.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

# Move handling is sub-millisecond unless the lost search runs (up to ~0.5 s).
MOVE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("terrace_connections", "Open websocket connections.", registry=r)
        self.races = Gauge("terrace_races", "Races by state.", ["state"], registry=r)
        self.messages = Counter("terrace_messages_total", "Requests received, by type.", ["type"], registry=r)
        self._message_counts: dict[str, Callable[[], None]] = {}  # type -> its counter's inc (labels() costs)
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

    def count_message(self, kind: str) -> None:
        """One more request of ``kind`` (a checked request type, so the labels stay few)."""
        inc = self._message_counts.get(kind)
        if inc is None:
            inc = self._message_counts[kind] = self.messages.labels(kind).inc
        inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)


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
