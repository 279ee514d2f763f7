#!/usr/bin/env python3
"""Benchmark the rules engine: random playouts and a greedy baseline, per variant.

Two measurements over a set of public numbered deals (seeds/README.md):

- random playouts: a random legal move each turn until the game ends (or
  ``MOVE_CAP`` moves). A *move* is what a server does per player move: one
  ``legal_moves()`` call, one ``play()`` and a look at ``status``. The rates
  reported are the median of ``REPEATS`` identical repeats.
- a greedy baseline (not a bot, just a yardstick for bots): average score,
  how often the terrace is cleared, win rate, mean moves and games per second.

And the solver's playout (``terrace.solve.playout``, what the sampler bot runs
thousands of times a game) from each deal's start, base chosen, stock known:
playouts per CPU second, beside the reference dive it must equal
(``terrace.solve.search.dive``: every position's full key kept) in the same run.

    python benchmarks/engine.py                      # everything: ~15 s on 2 cores
    python benchmarks/engine.py --deals 1-200 --variants louis --json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import terrace  # noqa: E402
from benchmarks.common import run_info  # noqa: E402
from bots.arena.deals import load_deals  # noqa: E402
from terrace import Game  # noqa: E402
from terrace.rules.moves import Move  # noqa: E402

MOVE_CAP = 3000  # moves per game, for both policies
REPEATS = 3  # random playouts: report the median of this many runs
SHUFFLE_CAP = 50  # greedy: pile-to-pile moves allowed between two progress moves
DEFAULT_DEALS = ROOT / "seeds" / "bench-1000.txt"

# ----- random playouts ---------------------------------------------------------------------


def random_playouts(variant: str, deals: list[int], count: int, seed: int) -> dict[str, Any]:
    """``count`` random games on ``deals`` (cycled); timing covers new_game too."""
    rng = random.Random(seed)
    moves = 0
    outcomes = {"won": 0, "lost": 0, "capped": 0}
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(count):
        g = terrace.new_game(variant, deal=deals[i % len(deals)])
        n = 0
        status = "playing"
        while n < MOVE_CAP:
            legal = g.legal_moves()
            if not legal:
                break
            g.play(rng.choice(legal))
            n += 1
            status = g.status
            if status != "playing":
                break
        moves += n
        outcomes[status if status != "playing" else "capped"] += 1
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "cpu_seconds": time.process_time() - cpu_start, "moves": moves, **outcomes}


def bench_random(variant: str, deals: list[int], count: int, seed: int) -> dict[str, Any]:
    runs = [random_playouts(variant, deals, count, seed) for _ in range(REPEATS)]
    secs = statistics.median(r["seconds"] for r in runs)
    cpu = statistics.median(r["cpu_seconds"] for r in runs)
    first = runs[0]  # every repeat plays the very same games
    return {
        "playouts": count,
        "moves": first["moves"],
        "mean_moves": first["moves"] / count,
        "won": first["won"],
        "lost": first["lost"],
        "capped": first["capped"],
        "seconds_median": secs,
        "playouts_per_s": count / secs,
        "moves_per_s": first["moves"] / secs,
        # per second of this process's CPU: what a shared machine's other work changes far less
        "moves_per_cpu_s": first["moves"] / cpu,
    }


# ----- the lost search -----------------------------------------------------------------------


def bench_lost_search(repeats: int = 5) -> dict[str, Any]:
    """The worst position we know for the lost search (tests/terrace/positions.py: a Signora
    position whose shuffle space is larger than the search's limit, so the search runs to it):
    seconds to decide its status, median of ``repeats``."""
    from tests.terrace.positions import SLOW_MOVE, slow_search_position

    times = []
    searched = 0
    status = ""
    for _ in range(repeats):
        g = slow_search_position()
        g.play(SLOW_MOVE)
        t = time.process_time()  # CPU seconds: the wall clock on a shared machine counts the neighbours
        status = g.status
        times.append(time.process_time() - t)
        searched = g.searched
    return {"positions": searched, "status": status, "seconds_median": statistics.median(times)}


# ----- the solver's playout ----------------------------------------------------------------

PLAYOUT_STEPS = 300  # the sampler bot's playout length


def bench_playouts(variant: str, deals: list[int]) -> dict[str, Any]:
    """``terrace.solve.playout`` against the reference dive on the same games (the family's
    with the first base chosen, Louis's from the deal): playouts per CPU second, each the
    median of ``REPEATS``, and whether every end agrees."""
    from terrace.solve import adapter_for, playout
    from terrace.solve.search import dive

    games = []
    for deal in deals:
        g = terrace.new_game(variant, deal=deal)
        if terrace.VARIANTS[variant].family != "louis":
            g.play(sorted(g.legal_moves())[0])
        games.append(g)

    def timed(run: Callable[[Game], Game]) -> tuple[float, list[Game]]:
        times, ends = [], []
        for _ in range(REPEATS):
            t = time.process_time()
            ends = [run(g) for g in games]
            times.append(time.process_time() - t)
        return statistics.median(times), ends

    fast, ours = timed(lambda g: playout(g, PLAYOUT_STEPS))
    slow, theirs = timed(lambda g: dive(g, adapter_for(g, hasty=True), PLAYOUT_STEPS))
    return {
        "playouts": len(games),
        "won": sum(g.won() for g in ours),
        "playouts_per_cpu_s": len(games) / fast,
        "reference_per_cpu_s": len(games) / slow,
        "same_ends": all(a.places == b.places for a, b in zip(ours, theirs, strict=True)),
    }


# ----- greedy baseline ---------------------------------------------------------------------


def _split(move: str) -> tuple[str, str]:
    m = Move.parse(move)
    return m.source, m.target


def _frees_home(g: Game, move: str, is_home: Callable[[str], bool]) -> bool:
    """After ``move``, can the card it uncovered go home at once?"""
    src = _split(move)[0]
    after = g.copy()
    after.play(move)
    return any(m.startswith(src + "-") and is_home(m) for m in after.legal_moves())


def _undoes(move: str, history: list[str]) -> bool:
    return bool(history) and _split(move) == _split(history[-1])[::-1]


def greedy_family(g: Game, legal: list[str], history: list[str], shuffles: int = 0) -> str | None:
    """Terrace-family baseline. ``shuffles``: pile-to-pile moves since the last progress move."""
    view = g.view()
    if view["phase"] == "choose-base":
        terrace_ranks = [c[0] for c in view["terrace"]]
        piles = view["piles"]
        return min(legal, key=lambda m: (terrace_ranks.count(piles[_split(m)[0]][-1][0]), m))

    def is_home(m: str) -> bool:
        return Move.parse(m).home

    for source in ("T", "W", None):  # foundation moves: terrace, waste, then piles
        for m in legal:
            if is_home(m) and (source is None or _split(m)[0] == source):
                return m
    for m in legal:  # waste (or a freed terrace top) onto the tableau
        if _split(m)[0] in ("W", "T"):
            return m
    if shuffles < SHUFFLE_CAP:
        piles = view["piles"]
        for m in legal:
            src, dst = _split(m)
            if not (src.isdigit() and dst.isdigit()) or _undoes(m, history):
                continue
            empties = len(piles[src]) == 1 and bool(piles[dst])  # not a lone card into a gap
            if empties or _frees_home(g, m, is_home):
                return m
    for wanted in ("S-W", "W-S"):
        if wanted in legal:
            return wanted
    return None


def greedy_louis(g: Game, legal: list[str], history: list[str], shuffles: int = 0) -> str | None:
    """Louis baseline: abeyance first, foundations, freeing heap moves, deal, redeal."""

    def is_home(m: str) -> bool:
        return _split(m)[1][:1] in ("A", "K") and len(_split(m)[1]) == 2

    abeyance = [m for m in legal if _split(m)[1].startswith("X")]
    if abeyance:  # a card that fits both foundations waits in its cell
        return abeyance[0]
    for m in legal:
        if is_home(m) and not _split(m)[0].startswith("X"):
            return m
    if shuffles < SHUFFLE_CAP:
        for m in legal:
            src, dst = _split(m)
            heap_to_heap = len(src) == len(dst) == 1 and src != "S"
            if heap_to_heap and not _undoes(m, history) and _frees_home(g, m, is_home):
                return m
    for m in legal:
        if m.startswith("S-"):
            return m
    for m in legal:  # release abeyance cards only when nothing else goes
        if is_home(m):
            return m
    return "redeal" if "redeal" in legal else None


def greedy_game(variant: str, deal: int) -> Game:
    g = terrace.new_game(variant, deal=deal)
    policy = greedy_louis if terrace.VARIANTS[variant].family == "louis" else greedy_family
    history: list[str] = []
    shuffles = 0
    while len(history) < MOVE_CAP and g.status == "playing":
        legal = g.legal_moves()
        move = policy(g, legal, history, shuffles) if legal else None
        if move is None:
            break
        src, dst = _split(move)
        pile_to_pile = len(src) == len(dst) == 1 and src not in ("S", "T", "W") and dst not in ("S", "W")
        shuffles = shuffles + 1 if pile_to_pile else 0
        history.append(g.play(move))
    return g


def bench_greedy(variant: str, deals: list[int]) -> dict[str, Any]:
    start = time.perf_counter()
    games = [greedy_game(variant, d) for d in deals]
    secs = time.perf_counter() - start
    n = len(games)
    has_terrace = terrace.VARIANTS[variant].has_terrace
    return {
        "games": n,
        "avg_score": sum(g.score for g in games) / n,
        "terrace_cleared_rate": sum(g.terrace_left == 0 for g in games) / n if has_terrace else None,
        "win_rate": sum(g.status == "won" for g in games) / n,
        "gave_up_rate": sum(g.status == "playing" for g in games) / n,  # policy out of ideas, not lost
        "mean_moves": sum(len(g.moves) for g in games) / n,
        "seconds": secs,
        "games_per_s": n / secs,
    }


# ----- report ------------------------------------------------------------------------------


def print_table(report: dict[str, Any]) -> None:
    a = report["args"]
    print(f"machine: {report['machine']}")
    print(f"command: {report['command']}")
    print(f"deals:   {a['deals']} ({a['deal_count']} deals)")
    print()
    print(
        f"Random playouts: {a['playouts']} per variant, policy seed {a['seed']}, "
        f"cap {MOVE_CAP} moves, median of {REPEATS} repeats"
    )
    print(f"{'variant':<16}{'playouts/s':>12}{'moves/s':>11}{'moves/CPU s':>13}{'mean moves':>12}", end="")
    print(f"{'won':>6}{'lost':>6}{'capped':>8}")
    for v, r in report["random"].items():
        print(
            f"{v:<16}{r['playouts_per_s']:>12.1f}{r['moves_per_s']:>11,.0f}{r['moves_per_cpu_s']:>13,.0f}"
            f"{r['mean_moves']:>12.1f}"
            f"{r['won']:>6}{r['lost']:>6}{r['capped']:>8}"
        )
    print()
    ls = report["lost_search"]
    print(
        f"Lost search, the worst position we know: {ls['positions']:,} positions in "
        f"{ls['seconds_median']:.3f} CPU s (median of 5; status {ls['status']})"
    )
    print()
    print(f"Solver playouts (terrace.solve.playout): first {min(a['playout_deals'], a['deal_count'])} deals")
    print(
        f"{'variant':<16}{'playouts/CPU s':>16}{'reference dive':>16}{'ratio':>7}{'won':>6}{'same ends':>11}"
    )
    for v, r in report["playouts"].items():
        ratio = r["playouts_per_cpu_s"] / r["reference_per_cpu_s"]
        print(
            f"{v:<16}{r['playouts_per_cpu_s']:>16,.0f}{r['reference_per_cpu_s']:>16,.0f}{ratio:>7.2f}"
            f"{r['won']:>6}{'yes' if r['same_ends'] else 'NO':>11}"
        )
    print()
    print(f"Greedy baseline: first {min(a['greedy_deals'], a['deal_count'])} deals of the set per variant")
    print(f"{'variant':<16}{'avg score':>10}{'terrace cleared':>17}{'win rate':>10}", end="")
    print(f"{'gave up':>9}{'mean moves':>12}{'games/s':>9}")
    for v, r in report["greedy"].items():
        cleared = "-" if r["terrace_cleared_rate"] is None else f"{r['terrace_cleared_rate']:.1%}"
        print(
            f"{v:<16}{r['avg_score']:>10.1f}{cleared:>17}{r['win_rate']:>10.1%}"
            f"{r['gave_up_rate']:>9.1%}{r['mean_moves']:>12.1f}{r['games_per_s']:>9.1f}"
        )
    print("(gave up: the policy found no move it wanted while the game was not yet lost)")
    print()
    print(f"total time: {report['seconds']:.1f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--deals",
        default=str(DEFAULT_DEALS.relative_to(ROOT)),
        help="deal-set file (one number per line) or a range like 1-500 (default: %(default)s)",
    )
    p.add_argument(
        "--variants",
        nargs="+",
        default=list(terrace.VARIANTS),
        choices=list(terrace.VARIANTS),
        metavar="VARIANT",
        help=f"variants to run (default: all: {' '.join(terrace.VARIANTS)})",
    )
    p.add_argument(
        "--playouts", type=int, default=300, help="random playouts per variant (default: %(default)s)"
    )
    p.add_argument(
        "--greedy-deals",
        type=int,
        default=None,
        help="greedy games per variant: the first N deals of the set (default: the whole set)",
    )
    p.add_argument(
        "--playout-deals",
        type=int,
        default=100,
        help="solver playouts per variant: the first N deals of the set (default: %(default)s)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the random policy (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    args = p.parse_args(argv)
    if (
        args.playouts < 1
        or args.playout_deals < 1
        or (args.greedy_deals is not None and args.greedy_deals < 1)
    ):
        p.error("--playouts, --playout-deals and --greedy-deals must be at least 1")

    spec = args.deals
    if not Path(spec).exists() and (ROOT / spec).exists():
        spec = str(ROOT / spec)  # the default works from any directory
    try:
        deals = load_deals(spec)
    except (OSError, ValueError) as e:
        p.error(str(e))

    if args.greedy_deals is None:
        args.greedy_deals = len(deals)
    start = time.perf_counter()
    report: dict[str, Any] = {
        **run_info(argv),
        "args": {**vars(args), "deal_count": len(deals), "move_cap": MOVE_CAP, "repeats": REPEATS},
        "random": {v: bench_random(v, deals, args.playouts, args.seed) for v in args.variants},
        "lost_search": bench_lost_search(),
        "playouts": {v: bench_playouts(v, deals[: args.playout_deals]) for v in args.variants},
        "greedy": {v: bench_greedy(v, deals[: args.greedy_deals]) for v in args.variants},
    }
    report["seconds"] = time.perf_counter() - start
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
