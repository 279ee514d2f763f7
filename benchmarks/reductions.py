#!/usr/bin/env python3
"""Benchmark what each of the decider's reductions buys: positions searched and verdicts gained.

The positions: the greedy bot's lost terrace games on ``--deals``, each position of a game's
last ``--tail`` moves (where hindsight must prove losses). Each is given to the complete
search (:func:`terrace.solve.decide.prove`) with ``--nodes`` positions, with the reductions
added one at a time: none (every legal move but alike targets, each position searched
afresh), then safe moves home played alone, then the terrace bound (the terrace's cards split
into rising runs, one per foundation), then one table of positions proven lost shared along
each game, walked from its end back (as hindsight does).
Reported per step: positions searched in all, positions decided (won or lost), CPU seconds.

    python benchmarks/reductions.py --deals 1-12 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from benchmarks.common import run_info  # noqa: E402
from benchmarks.hindsight import play  # noqa: E402
from terrace.rules.family import FamilyGame  # noqa: E402
from terrace.rules.game import Game  # noqa: E402
from terrace.solve.decide import Table, prove  # noqa: E402
from terrace.solve.family import FamilyAdapter  # noqa: E402
from terrace.solve.hindsight import _positions  # noqa: E402
from terrace.solve.search import UNKNOWN  # noqa: E402

STEPS = (
    ("none (alike targets once, canonical keys)", dict(safe=False, bound=False), False),
    ("+ safe moves home played alone", dict(safe=True, bound=False), False),
    ("+ terrace bound (runs per foundation, best fit)", dict(safe=True, bound=True), False),
    ("+ one table of positions proven lost per game", dict(safe=True, bound=True), True),
)


def games(deals: list[int], tail: int) -> list[list[Game]]:
    """Per lost greedy game, its last ``tail`` positions, the end first."""
    out = []
    for deal in deals:
        moves = play("greedy", "terrace", deal, 2000)
        positions = _positions("terrace", deal, moves, 1)
        if positions[-1].won():
            continue
        out.append(positions[-1 : -tail - 2 : -1])
    return out


def measure(found: list[list[Game]], nodes: int) -> list[dict[str, Any]]:
    rows = []
    for name, options, shared in STEPS:
        searched = decided = 0
        start = time.process_time()
        for walk in found:
            table = Table()
            for g in walk:
                assert isinstance(g, FamilyGame)
                answer = prove(g, FamilyAdapter(g, **options), nodes, table if shared else Table())
                searched += answer.nodes
                decided += answer.verdict != UNKNOWN
        rows.append(
            {
                "reduction": name,
                "positions_asked": sum(map(len, found)),
                "positions_searched": searched,
                "decided": decided,
                "cpu_s": round(time.process_time() - start, 1),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", default="1-12", help="numbered deals, a-b (default: %(default)s)")
    p.add_argument(
        "--tail", type=int, default=40, help="positions per game from its end (default: %(default)s)"
    )
    p.add_argument("--nodes", type=int, default=40_000, help="positions per search (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    a, _, b = args.deals.partition("-")
    deals = list(range(int(a), int(b or a) + 1))
    found = games(deals, args.tail)
    rows = measure(found, args.nodes)
    report = {**run_info(argv), "deals": args.deals, "lost_games": len(found), "tail": args.tail,
              "nodes": args.nodes, "steps": rows}  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for r in rows:
            print(f"{r['reduction']:50} searched {r['positions_searched']:>9}  decided {r['decided']:>4}"
                  f"/{r['positions_asked']}  {r['cpu_s']} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
