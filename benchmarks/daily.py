#!/usr/bin/env python3
"""Benchmark the daily deal's drawing: how long it takes to find a day's deal the solver proves winnable.

For each variant and each of ``--days`` consecutive days from ``--start``, draws the day's
deal as the server does (``terrace.race.daily.draw``: candidates HMAC(secret, variant|day|n) in
counter order, each solved with the fixed node budget, until one is proven winnable), in this
process, one after another, and reports per variant the median and largest number of
candidates tried and of seconds spent (one core). The secret is fixed, so runs are repeatable.

    python benchmarks/daily.py                                   # 10 days of terrace, queen-of-italy, louis
    python benchmarks/daily.py --variant signora --days 2 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from benchmarks.common import run_info  # noqa: E402
from terrace.race.daily import draw, shift  # noqa: E402
from terrace.rules.versions import RULES_VERSION  # noqa: E402

SECRET = bytes(range(32))


def measure(variant: str, start: str, days: int, nodes: int | None = None) -> dict[str, Any]:
    counters: list[int] = []
    seconds: list[float] = []
    for i in range(days):
        t0 = time.perf_counter()
        deal = draw(SECRET, variant, shift(start, i), RULES_VERSION, **({"nodes": nodes} if nodes else {}))
        seconds.append(time.perf_counter() - t0)
        counters.append(deal.counter + 1)
    return {
        "days": days,
        "candidates_median": statistics.median(counters),
        "candidates_max": max(counters),
        "seconds_median": round(statistics.median(seconds), 3),
        "seconds_max": round(max(seconds), 3),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument(
        "--variant", action="append", help="a variant (repeatable; default terrace, queen-of-italy, louis)"
    )
    p.add_argument("--days", type=int, default=10)
    p.add_argument("--start", default="2026-11-18", help="first day (YYYY-MM-DD)")
    p.add_argument("--nodes", type=int, help="the solver's budget per candidate (default: the server's)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    variants = args.variant or ["terrace", "queen-of-italy", "louis"]
    report = {
        **run_info(argv),
        "variants": {v: measure(v, args.start, args.days, args.nodes) for v in variants},
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{'variant':16} {'days':>4} {'candidates p50':>15} {'max':>4} {'seconds p50':>12} {'max':>7}")
    for v, r in report["variants"].items():
        print(
            f"{v:16} {r['days']:>4} {r['candidates_median']:>15} {r['candidates_max']:>4}"
            f" {r['seconds_median']:>12.2f} {r['seconds_max']:>7.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
