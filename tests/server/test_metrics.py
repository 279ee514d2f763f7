"""The move tally (server.metrics.MoveTally) exposes what a Prometheus counter and histogram
fed the same moves would: same series, same buckets, same counts."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.metrics import MOVE_BUCKETS, Metrics

# on a bound, between bounds, past the last one, and zero
SECONDS = [0.0, 0.0001, 0.00011, 0.00025, 0.003, 0.5, 0.75, 1.0, 2.5, 0.0001]


def _samples(text: bytes, prefix: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.decode().splitlines():
        if line.startswith(prefix) and "_created" not in line:
            name, _, value = line.rpartition(" ")
            out[name] = value
    return out


def test_the_tally_reads_as_a_prometheus_counter_and_histogram_would() -> None:
    metrics = Metrics()
    reference = CollectorRegistry()
    moves = Counter("terrace_moves_total", "Moves accepted.", registry=reference)
    seconds = Histogram(
        "terrace_move_seconds", "Time to handle an accepted move.", buckets=MOVE_BUCKETS, registry=reference
    )
    for s in SECONDS:
        metrics.moves.observe(s)
        moves.inc()
        seconds.observe(s)
    ours, theirs = metrics.text(), generate_latest(reference)
    for prefix in ("terrace_moves_total", "terrace_move_seconds"):
        assert _samples(ours, prefix) == _samples(theirs, prefix), prefix
    assert _samples(ours, 'terrace_move_seconds_bucket{le="0.0001"}') == {
        'terrace_move_seconds_bucket{le="0.0001"}': "3.0"
    }
    assert b"# TYPE terrace_moves_total counter\n" in ours
    assert b"# TYPE terrace_move_seconds histogram\n" in ours


def test_an_empty_tally_reads_zero() -> None:
    text = Metrics().text()
    assert _samples(text, "terrace_moves_total") == {"terrace_moves_total": "0.0"}
    assert _samples(text, "terrace_move_seconds_count") == {"terrace_move_seconds_count": "0.0"}
