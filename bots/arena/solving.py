"""``terrace-arena solve``: the solver's figures over a set of numbered deals, stock known.

    terrace-arena solve --deals 1-200 --variant terrace --seconds 1
    terrace-arena solve --deals seeds/bench-1000.txt --variant queen-of-italy --nodes 30000 --json
    terrace-arena solve --deals 1-200 --variant terrace --seconds 1 --clock cpu --nodes 10000000

Each deal is decided from its start (``terrace.solve.decided``) in a pool of
``spawn`` worker processes (``--jobs``), with a node budget (``--nodes``,
deterministic) and optionally a time budget (``--seconds``, per deal, which
makes "unknown" depend on the machine's load; "won" and "lost" never do;
``--clock cpu`` counts the worker's own CPU time, so a busy machine slows the
run but not the figures).
Figures per variant: deals proven winnable and proven lost, the rest
undecided; the median time of a decided deal; positions visited per second.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import terrace
from bots.arena.deals import load_deals
from terrace.solve import NODES, decided
from terrace.solve.decide import DEAL_SHARES

PROG = "terrace-arena solve"
LEGEND = """\
winnable: a winning line found and replayed to a won game; lost: proven that no line
wins; unknown: the budget ran out first. median s: seconds per decided deal; nodes/s:
positions searched per second of the budget's clock."""


@dataclass(frozen=True)
class Solved:
    """One deal's answer."""

    variant: str
    deal: int
    verdict: str
    nodes: int
    seconds: float
    moves: int


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def solve_deal(variant: str, deal: int, nodes: int, seconds: float | None, clock: str = "wall") -> Solved:
    """Solve one numbered deal from its start (run in a worker process)."""
    s = decided(
        terrace.new_game(variant, deal), nodes=nodes, seconds=seconds, clock=CLOCKS[clock], shares=DEAL_SHARES
    )
    return Solved(variant, deal, s.verdict, s.nodes, s.seconds, len(s.moves))


def solve_deals(
    variants: Sequence[str],
    deals: Sequence[int],
    nodes: int,
    seconds: float | None,
    jobs: int,
    clock: str = "wall",
) -> list[Solved]:
    """Every deal of every variant, in variant then deal order."""
    work = [(v, d) for v in variants for d in deals]
    if jobs <= 1:
        return [solve_deal(v, d, nodes, seconds, clock) for v, d in work]
    with cf.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(solve_deal, v, d, nodes, seconds, clock) for v, d in work]
        return [f.result() for f in futures]


def figures(results: Sequence[Solved]) -> dict[str, Any]:
    """The figures of one variant's results."""
    n = len(results)
    decided = [r.seconds for r in results if r.verdict != "unknown"]
    busy = sum(r.seconds for r in results)
    return {
        "deals": n,
        "won": sum(r.verdict == "won" for r in results) / n,
        "lost": sum(r.verdict == "lost" for r in results) / n,
        "unknown": sum(r.verdict == "unknown" for r in results) / n,
        "median_decided_seconds": statistics.median(decided) if decided else None,
        "nodes_per_second": sum(r.nodes for r in results) / busy if busy else None,
    }


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Solve numbered deals with the stock known: the solver's figures.",
        epilog=LEGEND,
    )
    p.add_argument("--variant", action="append", metavar="V", help="a variant (repeat; default all four)")
    p.add_argument("--deals", default="1-100", help="a range, a list or a file of deal numbers")
    p.add_argument("--nodes", type=int, default=NODES, help=f"positions per deal at most (default {NODES})")
    p.add_argument("--seconds", type=float, default=None, help="seconds per deal at most (default none)")
    p.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="what --seconds counts: wall time, or the worker's own CPU time (fair on a busy machine)",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print a JSON document")
    return p


def main(argv: Sequence[str]) -> int:
    """The ``terrace-arena solve`` command; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    variants = args.variant or list(terrace.VARIANTS)
    unknown = [v for v in variants if v not in terrace.VARIANTS]
    try:
        if unknown:
            raise ValueError(f"unknown variant {unknown[0]!r}")
        if args.nodes < 1 or args.jobs < 1 or (args.seconds is not None and args.seconds <= 0):
            raise ValueError("--nodes, --jobs and --seconds must be positive")
        deals = load_deals(args.deals)
    except (ValueError, OSError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    results = solve_deals(variants, deals, args.nodes, args.seconds, args.jobs, args.clock)
    report = {
        "nodes": args.nodes,
        "seconds": args.seconds,
        "clock": args.clock,
        "variants": {v: figures([r for r in results if r.variant == v]) for v in variants},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    budget = f"{args.nodes} positions" + (f", {args.seconds:g} s ({args.clock})" if args.seconds else "")
    print(f"{len(deals)} deals, at most {budget} each, stock known")
    print(f"{'variant':<16}{'winnable':>10}{'lost':>8}{'unknown':>9}{'median s':>10}{'nodes/s':>9}")
    for v, f in report["variants"].items():
        median = "-" if f["median_decided_seconds"] is None else f"{f['median_decided_seconds']:.3f}"
        rate = "-" if f["nodes_per_second"] is None else f"{f['nodes_per_second']:.0f}"
        print(
            f"{v:<16}{f['won']:>10.1%}{f['lost']:>8.1%}{f['unknown']:>9.1%}{median:>10}{rate:>9}",
        )
    print(LEGEND)
    return 0
