#!/usr/bin/env python3
"""How long a restart takes to replay a race's move log (``terrace.race.restore``).

A race of ``--seats`` seats is dealt from a fixed seed; each seat's game takes random
legal moves (cards may go back and forth) until it has ``--moves`` of them (at most
the engine's 5,000-move ceiling) or none is left. The log is then replayed
``--runs`` times; the median is reported, per race and per move. This is the work
``--restore-budget`` bounds when a server starts on races that were running.

    python benchmarks/replay.py                    # one seat, 5,000 moves
    python benchmarks/replay.py --seats 8 --json   # the largest race there can be
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from benchmarks.common import run_info  # noqa: E402
from terrace.race.restore import restore  # noqa: E402
from terrace.race.rules import Timing  # noqa: E402
from terrace.rules.game import MAX_MOVES  # noqa: E402

TIMING = Timing(countdown=0, grace=60_000, standings=100, open_for=1_800_000)


def race_log(seats: int, moves: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The meta of a running race and a log of random legal moves for each of its seats."""
    meta: dict[str, Any] = {
        "rules": {"variant": "terrace", "goal": "terrace", "seats": seats, "time_limit": 7_200},
        "seed": "5e" * 32,
        "created_at": 0,
        "starts_at": 0,
        "started_at": 0,
        "players": [{"id": f"p{i}", "name": f"p{i}", "kind": "bot", "guest": True} for i in range(seats)],
    }
    race, _ = restore("bench", meta, [], timing=TIMING)
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = []
    for pid, seat in race.seats.items():
        assert seat.game is not None
        game = seat.game.copy()
        for seq in range(1, moves + 1):
            legal = game.legal_moves()
            if not legal:
                break
            entries.append({"p": pid, "seq": seq, "m": game.play(rng.choice(legal)), "t": seq})
    return meta, entries


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seats", type=int, default=1, help="seats in the race (default 1)")
    p.add_argument("--moves", type=int, default=MAX_MOVES, help=f"moves per seat (default {MAX_MOVES})")
    p.add_argument("--runs", type=int, default=3, help="replays timed (default 3)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random moves (default 1)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    if not 1 <= args.seats <= 8 or not 1 <= args.moves <= MAX_MOVES or args.runs < 1:
        p.error(f"--seats must be 1..8, --moves 1..{MAX_MOVES}, --runs at least 1")
    meta, entries = race_log(args.seats, args.moves, args.seed)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        restore("bench", meta, entries, timing=TIMING)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    report = {
        **run_info(argv),
        "seats": args.seats,
        "moves": len(entries),
        "replay_s": median,
        "per_move_us": median / max(1, len(entries)) * 1e6,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(report["machine"])
        print(
            f"replay of {report['moves']} moves ({args.seats} seats): {median:.2f} s, "
            f"{report['per_move_us']:.0f} us per move (median of {args.runs})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
