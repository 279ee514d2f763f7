#!/usr/bin/env python3
"""Benchmark the race server: moves per second, move-answer latency and CPU per answer, under load.

One command measures every target of the server's speed, each scenario after the other in
the same run (so ratios compare like with like on a shared machine), each over a window
after a warm-up:

- game, memory store: ``--players`` websocket clients (100) race over loopback against a
  real ``terrace-server`` in its own process. Races are formed the way people form them: a
  free player creates a race (``start: "full"``, ``--seats`` seats) and the next free players
  join it. Each player plays a simple view-only policy (a foundation move, else the stock,
  else any legal move that does not undo the last one) as fast as the answers come, one move
  in flight, and goes straight into a new race when its race is over for it (goal, stuck, or
  ``--race-moves`` moves and it resigns). Latency is from sending a ``move`` to receiving the
  ``moved`` that answers it (``id``/``re``); pushes arriving in between are read and skipped.
- echo: the same number of clients doing request/answer round trips with a bare websockets
  server in its own process (same transport settings, codec and event loop, no game), with
  frames of the median sizes of the game's ``move`` request and ``moved`` answer.
- game, Redis store: the game again, on a private ``redis-server`` (free port, append-only
  file, ``appendfsync everysec``). Afterwards Redis is shut down and its append-only file
  read back: every move the players got a ``moved`` for must be in a race log there.

``--repeat 3`` runs those three rounds three times and reports the medians of the ratios.
Flags add the long scenarios: ``--idle 10000`` (that many connections say hello and stay
idle; the server's memory, and ``--idle-players`` racing meanwhile), ``--human 1000``
(players making a move every 1-2 s each), ``--nodes`` (one node on Redis, then two nodes
sharing it with the clients spread over both).

Throughput is the median of the per-second rates over the window; latencies are over every
answer received in the window. This process's garbage collector is held off during the window
(the clients' connections frozen out of its scans, then no collection until the window is over):
its pauses (a full one took 0.1-0.3 s with 1,000 clients) held every client's reading and were
counted as the server's latency. Each long scenario and round 1's game print a "stalls" line:
the server's collections and loop lag over the window (from /metrics), and this process's own
loop lag (a 10 ms sleep's lateness) and collections, the floor of what the clients can measure. CPU is a share of one core (server process, its search
workers, and this process, whose clients share one event loop); "us/ans" is the server's CPU
microseconds per answer, which a loaded machine changes far less than the throughput. Servers
get their limits raised for the load (every client comes from one address) and a zero
countdown so the load stays steady.

    python benchmarks/server.py                          # 100 players, 10 s windows: ~1 min
    python benchmarks/server.py --repeat 3 --idle 10000 --human 1000 --nodes   # every target: ~6 min
    python benchmarks/server.py --players 4 --seconds 1 --no-redis --json
    python benchmarks/server.py --profile-server /tmp/server.prof   # cProfile round 1's game server
    python benchmarks/server.py --repeat 0 --human 1000 --server-args '--gc-young-every 0'  # one setting

This script is the command; the parts are beside it: its clients (``server_client.py``, and
``server_idle.py`` for the idle connections), the processes it runs and reads
(``server_processes.py``), its scenarios (``server_scenarios.py``) and its report
(``server_report.py``); the latency meter is ``common.py``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import terrace  # noqa: E402
from benchmarks.common import BenchError, run_info  # noqa: E402
from benchmarks.server_client import SUBPROTOCOL_NAMES  # noqa: E402
from benchmarks.server_report import print_profile, print_table, ratios  # noqa: E402
from benchmarks.server_scenarios import bench, serve_echo  # noqa: E402


def event_loop_runner(name: str) -> asyncio.Runner:
    if name == "uvloop":
        import uvloop

        return asyncio.Runner(loop_factory=uvloop.new_event_loop)
    return asyncio.Runner()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=100, help="concurrent clients (default: %(default)s)")
    p.add_argument("--seats", type=int, default=4, help="players per race, at most 8 (default: %(default)s)")
    p.add_argument("--seconds", type=float, default=10.0, help="measured window (default: %(default)s)")
    p.add_argument(
        "--warmup", type=float, default=1.0, help="seconds before the window (default: %(default)s)"
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of the base scenarios; medians over them (0: only the long scenarios asked for)",
    )
    p.add_argument(
        "--variant", default="terrace", choices=list(terrace.VARIANTS), help="(default: %(default)s)"
    )
    p.add_argument(
        "--subprotocol", default="msgpack", choices=list(SUBPROTOCOL_NAMES), help="(default: %(default)s)"
    )
    p.add_argument(
        "--views", default="full", choices=["full", "changes"], help="what the players' hello asks for"
    )
    p.add_argument(
        "--event-loop",
        default="asyncio",
        choices=["asyncio", "uvloop"],
        help="the game servers' and the echo server's event loop (default: %(default)s)",
    )
    p.add_argument(
        "--race-moves",
        type=int,
        default=400,
        help="a player resigns after this many moves in one race (default: %(default)s)",
    )
    p.add_argument(
        "--countdown", type=float, default=0.0, help="server countdown in seconds (default: %(default)s)"
    )
    p.add_argument(
        "--standings-interval",
        type=float,
        default=0.1,
        help="server standings coalescing window in seconds (default: %(default)s, the server's default)",
    )
    p.add_argument(
        "--server-args",
        default="",
        metavar="FLAGS",
        help="more flags for every game server, e.g. '--gc-young-every 0' (default: none)",
    )
    p.add_argument("--no-redis", action="store_true", help="skip the game on Redis")
    p.add_argument("--idle", type=int, default=0, metavar="N", help="also: N idle connections (e.g. 10000)")
    p.add_argument(
        "--idle-players",
        type=int,
        default=40,
        help="players racing (a move every 50-150 ms each) beside the idle ones (default: %(default)s)",
    )
    p.add_argument(
        "--human", type=int, default=0, metavar="N", help="also: N players at a human pace (e.g. 1000)"
    )
    p.add_argument(
        "--human-seconds", type=float, default=20.0, help="window of the human pace (default: %(default)s)"
    )
    p.add_argument("--nodes", action="store_true", help="also: two server nodes sharing one Redis")
    p.add_argument(
        "--profile-server",
        metavar="FILE",
        help="run round 1's in-memory game server under cProfile (CPU time), write its stats to FILE, print the top",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    p.add_argument("--serve-echo", type=int, metavar="ANSWER_BYTES", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.serve_echo is not None:  # the echo server process of a run
        with event_loop_runner(args.event_loop) as runner:
            runner.run(serve_echo(args.serve_echo, SUBPROTOCOL_NAMES[args.subprotocol]))
        return 0
    long_ones = bool(args.idle or args.human or args.nodes)
    if (
        args.players < 1
        or args.race_moves < 1
        or not 1 <= args.seats <= 8
        or args.repeat < (0 if long_ones else 1)
    ):
        p.error(
            "--players, --race-moves and --repeat must be at least 1 (--repeat 0 only with a long "
            "scenario), --seats from 1 to 8"
        )
    if args.seconds <= 0 or args.warmup < 0 or args.countdown < 0 or args.standings_interval < 0:
        p.error("--seconds must be positive; --warmup, --countdown, --standings-interval not negative")

    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="terrace-bench-") as tmp:
            scenarios = asyncio.run(bench(args, Path(tmp)))
    except BenchError as e:
        print(f"server benchmark failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("server benchmark interrupted", file=sys.stderr)
        return 130
    report: dict[str, Any] = {
        **run_info(argv),
        "args": {k: v for k, v in vars(args).items() if k != "serve_echo"},
        **scenarios,
        "ratios": ratios(scenarios["rounds"]),
        "seconds": time.perf_counter() - start,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    if args.profile_server:
        print_profile(args.profile_server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
