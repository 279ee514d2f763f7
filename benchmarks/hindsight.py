#!/usr/bin/env python3
"""Benchmark hindsight (``analysis``): what it finds in real games, and what one game's analysis costs.

A sample bot (greedy by default) plays numbered deals offline, each game to its end
(no move left, or the bot resigns, or ``--max-moves``); then each game is analysed
with :func:`terrace.solve.hindsight.analyse_game` at the server's default budget
(``--nodes`` per position asked about, at most ``--probes`` positions). One process,
one game after another: the time is what the server's one analysis worker spends
per player. Reported: how often each verdict comes out (the losing move proven,
undecided, the game won, ...), for the games not won the moves between the last
position proven winnable and the first proven lost (or the end), where the losing
move lies (median), and the analysis time per game (p50, p99, max; wall and CPU).

    python benchmarks/hindsight.py --deals 1-30                   # terrace, greedy
    python benchmarks/hindsight.py --variant queen-of-italy --deals 1-20 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import terrace  # noqa: E402
from benchmarks.common import percentile, run_info  # noqa: E402
from bots.bot import load_bot  # noqa: E402
from terrace.solve.hindsight import NODES, PROBES, analyse_game  # noqa: E402


def play(bot_name: str, variant: str, deal: int, max_moves: int) -> list[str]:
    """The bot's moves on ``deal`` until the game ends or the bot gives up."""
    bot = load_bot(bot_name)()
    bot.start({"race": f"bench-{deal}", "variant": variant, "goal": "clear"})
    game = terrace.new_game(variant, deal)
    while game.status == "playing" and len(game.moves) < max_moves:
        legal = game.legal_moves()
        choice = bot.choose(game.view(), legal)
        if choice is None or not isinstance(choice, str):
            break
        game.play(choice)
    return game.moves


def measure(
    variant: str, deals: list[int], bot: str, nodes: int, probes: int, max_moves: int
) -> dict[str, Any]:
    verdicts: Counter[str] = Counter()
    spans: list[int] = []  # games not won: how many moves the losing move may be (1: it is known)
    walls: list[float] = []
    cpus: list[float] = []
    for deal in deals:
        moves = play(bot, variant, deal, max_moves)
        w0, c0 = time.perf_counter(), time.process_time()
        h = analyse_game(variant, deal, moves, nodes=nodes, probes=probes)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        verdicts[h.verdict] += 1
        if not h.won:
            start = h.last_winnable or 0
            spans.append((len(moves) if h.first_lost is None else h.first_lost) - start)
    walls.sort()
    cpus.sort()
    return {
        "games": len(deals),
        "verdicts": dict(verdicts),
        "undecided_moves_median": statistics.median(spans) if spans else None,
        "wall_p50_s": percentile(walls, 50),
        "wall_p99_s": percentile(walls, 99),
        "wall_max_s": walls[-1],
        "cpu_p50_s": percentile(cpus, 50),
        "cpu_max_s": cpus[-1],
        "cpu_mean_s": statistics.mean(cpus),
    }


def deal_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="terrace")
    p.add_argument("--deals", default="1-30", type=deal_range, help="numbered deals, e.g. 1-30")
    p.add_argument("--bot", default="greedy", help="the sample bot that plays (default greedy)")
    p.add_argument("--nodes", type=int, default=NODES)
    p.add_argument("--probes", type=int, default=PROBES)
    p.add_argument("--max-moves", type=int, default=1000)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    figures = measure(args.variant, args.deals, args.bot, args.nodes, args.probes, args.max_moves)
    report = {
        **run_info(None),
        "variant": args.variant,
        "nodes": args.nodes,
        "probes": args.probes,
        **figures,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(report["machine"])
    print(f"{args.variant}, {figures['games']} games of {args.bot}: {figures['verdicts']}")
    print(f"games not won: median moves the losing move may be among: {figures['undecided_moves_median']}")
    print(
        f"analysis per game: wall p50 {figures['wall_p50_s']:.2f} s, p99 {figures['wall_p99_s']:.2f} s, "
        f"max {figures['wall_max_s']:.2f} s; cpu p50 {figures['cpu_p50_s']:.2f} s, max {figures['cpu_max_s']:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
