"""Prometheus metrics of one server: connections, races, moves, errors, move latency.

Each server has its own registry, so several servers in one process (tests) never clash.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

# Move handling is sub-millisecond unless the lost search runs (up to ~0.5 s).
MOVE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("terrace_connections", "Open websocket connections.", registry=r)
        self.races = Gauge("terrace_races", "Races by state.", ["state"], registry=r)
        self.messages = Counter("terrace_messages_total", "Requests received, by type.", ["type"], registry=r)
        self._message_counts: dict[str, Counter] = {}  # type -> its labelled counter (labels() costs)
        self.moves = Counter("terrace_moves_total", "Moves accepted.", registry=r)
        self.errors = Counter("terrace_errors_total", "Error answers sent, by code.", ["code"], registry=r)
        self.not_ready = Counter(
            "terrace_not_finished_total",
            "record requests for races not over yet: clients polling for a result, not errors.",
            registry=r,
        )
        self.races_finished = Counter("terrace_races_finished_total", "Races that ended.", registry=r)
        self.move_seconds = Histogram(
            "terrace_move_seconds", "Time to handle an accepted move.", buckets=MOVE_BUCKETS, registry=r
        )
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
        child = self._message_counts.get(kind)
        if child is None:
            child = self._message_counts[kind] = self.messages.labels(kind)
        child.inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)
