"""What the benchmarks share: the report's header, the one percentile, and the latency meter.

Every benchmark's ``--json`` report starts with :func:`run_info`: the machine, the command,
the date and the load average the run started at, which ``benchmarks/tables.py`` carries into
docs/BENCHMARKS.md beside the figures. :func:`percentile` is the nearest-rank percentile of
:mod:`bots.stats` (the bots' figures use it too, and may not import this package).
:class:`Meter` notes each answer received within a measured window and :func:`summarize` turns
it into rates and latencies, for every benchmark that times requests and answers.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import platform
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.stats import percentile

__all__ = ["BenchError", "Meter", "machine", "percentile", "run_info", "summarize"]


class BenchError(Exception):
    """The benchmark cannot go on; the message says why."""


def machine() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} | {platform.platform()} | {os.cpu_count()} CPUs"


def run_info(argv: Sequence[str] | None) -> dict[str, Any]:
    """The report's header fields; ``argv`` None means the script's own command line."""
    return {
        "machine": machine(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "command": shlex.join(["python", *sys.argv]) if argv is None else shlex.join(argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": round(os.getloadavg()[0], 2),
    }


@dataclass
class Meter:
    """Answers received within the window (``start`` to ``end``, ``time.perf_counter()``
    seconds): when each came, how long it took, how big request and answer were; and counts
    of anything else worth telling (``count``), within the window too."""

    start: float = math.inf
    end: float = math.inf
    times: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    request_sizes: list[int] = field(default_factory=list)
    answer_sizes: list[int] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)

    def within(self, t: float) -> bool:
        return self.start <= t <= self.end

    def answer(self, sent: float, received: float, request_size: int, answer_size: int) -> None:
        if self.within(received):
            self.times.append(received)
            self.latencies.append(received - sent)
            self.request_sizes.append(request_size)
            self.answer_sizes.append(answer_size)

    def count(self, what: str, n: int = 1) -> None:
        if self.within(time.perf_counter()):
            self.events[what] += n


def summarize(meter: Meter, seconds: float, what: str) -> dict[str, Any]:
    """Rates and latencies of a window of ``seconds``: the median of the per-second rates, and
    p50/p90/p99/max/mean latency in ms over every answer in it. Raises BenchError when none came."""
    n = len(meter.latencies)
    if n == 0:
        raise BenchError(f"{what}: no answers were received in the {seconds:g} s window")
    buckets = max(1, int(seconds))
    width = seconds / buckets
    per_bucket = Counter(min(buckets - 1, int((t - meter.start) / width)) for t in meter.times)
    rates = [per_bucket[i] / width for i in range(buckets)]
    lat = sorted(meter.latencies)
    return {
        "answers": n,
        "per_s": statistics.median(rates),
        "per_s_mean": n / seconds,
        "per_s_each_second": [round(r, 1) for r in rates],
        "p50_ms": percentile(lat, 50) * 1000,
        "p90_ms": percentile(lat, 90) * 1000,
        "p99_ms": percentile(lat, 99) * 1000,
        "max_ms": lat[-1] * 1000,
        "mean_ms": statistics.fmean(lat) * 1000,
        "request_bytes": int(statistics.median(meter.request_sizes)),
        "answer_bytes": int(statistics.median(meter.answer_sizes)),
    }
