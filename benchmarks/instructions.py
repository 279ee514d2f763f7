"""The CPU instructions a move costs the game server, counted under valgrind's callgrind.

    python benchmarks/instructions.py                 # this checkout's server: 40 players, one whole race each
    python benchmarks/instructions.py --seconds 45    # a 45 s window of races that never stop instead
    python benchmarks/instructions.py --root OTHER    # another checkout's server, the same players
    python benchmarks/instructions.py --store redis   # the same on a private redis-server
    python benchmarks/instructions.py --echo          # a bare websockets echo of the answer's size
    python benchmarks/instructions.py --out FILE      # keep callgrind's file (callgrind_annotate FILE)

On a shared machine the server's CPU time per answer (``benchmarks/server.py``'s
us/ans) moves with the neighbours by more than a change to the move path saves. An
instruction count does not: the server runs under callgrind (some fifty times
slower), the benchmark's players race against it as in ``benchmarks/server.py``
(memory store, 4-seat ``terrace`` races, one move in flight each), and only the
window's instructions are counted, divided by the moves the server accepted in it
(``terrace_moves_total``).

Which moves a window holds decides its figure: an opening move costs little (no lost
search, few legal moves), a move late in a race, once the stock is out, several times
more (the lost search after each shuffle move). A fixed window holds a different part of
the races when the server goes faster or slower, so a faster server (uvloop, a compiled
engine, the cache simulation's slower one) is counted on other moves. By default each
player therefore plays exactly ``--races`` whole races (one) and the window runs from the
moment every player's first race is running until the last player is done: the same
kind of moves, start to end, whatever the speed. ``--seconds`` counts a fixed window of
races that never stop instead (after ``--warmup``).

A server spends instructions every second whatever it is asked (its timers: the young
collections, the loop's lag probe, the arenas' tick), some three million a second. Under
callgrind the server makes a few hundred moves a second, not ten thousand, so these
weigh fifty times more on each move than they do at full speed, and more again in a
slower run (``--cache-sim``). So the server is first counted idle for
``--idle-seconds`` (the same players connected, none racing), and the report gives
each move's instructions both as counted and less that idle rate over the window. ``--cache-sim`` adds callgrind's cache and branch
simulation and its estimate of cycles (instructions, plus 10 per L1 miss or
mispredicted branch and 100 per last-level miss). What it leaves out: the kernel
(system calls), and that an instruction count is not time.

Standings pushes go out every ``--standings-interval`` seconds (5 by default here,
not the server's 0.1): the server handles about 50 times fewer moves a second under
callgrind, and the pushes per move should stay about what they are at full speed.
Needs ``valgrind`` (with ``callgrind_control``) on the PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from benchmarks import server_client as client  # noqa: E402
from benchmarks import server_processes as processes  # noqa: E402
from benchmarks.common import BenchError, run_info  # noqa: E402

START_TIMEOUT = 300.0  # seconds: a server under callgrind takes a while to import and listen
WHOLE_TIMEOUT = 1800.0  # seconds: whole races under callgrind (40 players, one race each: about a minute)
ECHO_SECONDS = 15.0  # the echo's window when no --seconds is given


def totals(path: Path) -> dict[str, int]:
    """The event totals of a callgrind output file (``Ir``, and the cache events if simulated)."""
    events: list[str] = []
    for line in path.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("totals:"):  # (a dump's "summary:" line may read 0)
            return dict(zip(events, map(int, line.split()[1:]), strict=False))
    raise BenchError(f"no totals in {path}")


def estimated_cycles(t: dict[str, int]) -> int | None:
    """callgrind_annotate's estimate, when the cache and branches were simulated."""
    if "D1mr" not in t or "Bcm" not in t:
        return None
    l1 = t["I1mr"] + t["D1mr"] + t["D1mw"]
    last = t["ILmr"] + t["DLmr"] + t["DLmw"]
    return t["Ir"] + 10 * (t["Bcm"] + t["Bim"]) + 10 * l1 + 100 * last


def control(*argv: str) -> None:
    subprocess.run(["callgrind_control", *argv], check=True, capture_output=True)


ECHO_SIZES = (45, 550)  # the game's median request and answer frames (docs/BENCHMARKS.md, "Server")


async def count(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    if args.store == "redis":
        with processes.RedisProcess(workdir) as redis_server:
            return await _count(args, workdir, redis_server.url)
    return await _count(args, workdir, "")


async def _count(args: argparse.Namespace, workdir: Path, redis_url: str) -> dict[str, Any]:
    out = workdir / "callgrind.out"
    server_args = argparse.Namespace(
        players=args.players,
        countdown=0.0,
        standings_interval=args.standings_interval,
        server_args=args.server_args,  # none by default: the server as it ships
        event_loop=args.event_loop,
        subprotocol="msgpack",
    )
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    if args.cache_sim:
        valgrind += ["--cache-sim=yes", "--branch-sim=yes"]
    if args.echo:
        argv = [*valgrind, *processes.echo_argv(server_args, ECHO_SIZES[1])]
    else:
        argv = [*valgrind, *processes.server_argv(server_args, redis_url=redis_url)]
    processes.START_TIMEOUT = START_TIMEOUT  # a server under callgrind starts slowly
    processes.ROOT = args.root  # the server process starts in that checkout, so its code is what runs
    sub = client.SUBPROTOCOL_NAMES["msgpack"]
    whole = None if args.echo or args.seconds is not None else args.races
    idle: tuple[int, float] | None = None  # the idle server's instructions and seconds
    with processes.ServerProcess("callgrind", argv, workdir) as server:
        assert server.proc is not None
        pid = str(server.proc.pid)
        run = client.Run()
        clients = await client.open_clients(f"ws://{client.HOST}:{server.port}/ws", args.players, sub)
        try:
            if args.echo:
                for i, ws in enumerate(clients):
                    run.spawn(f"echo client {i}", client.echo_client(ws, sub, ECHO_SIZES[0], run.meter))
            else:
                maker = client.Matchmaker("terrace", args.seats)
                style = client.Style(race_moves=args.race_moves)
                players = [client.Player(i, ws, sub, run.meter, style) for i, ws in enumerate(clients)]
                await run.wait(asyncio.gather(*(p.hello() for p in players)), START_TIMEOUT, "every welcome")
                if args.idle_seconds > 0:  # the same players, connected and not racing
                    idle = await _idle_window(pid, workdir, args.idle_seconds)
                for p in players:
                    run.spawn(f"player {p.n}", p.run(maker, None if whole is None else args.races))
                racing = asyncio.gather(*(p.racing.wait() for p in players))
                await run.wait(racing, START_TIMEOUT, "every player's first race to start")
            if whole is None:
                await asyncio.sleep(args.warmup)
            before = None if args.echo else await asyncio.to_thread(processes.fetch_metrics, server.port)
            control("--instr=on", pid)
            start = time.perf_counter()
            if whole is None:
                run.meter.start, run.meter.end = start, start + args.seconds
                await asyncio.sleep(args.seconds)
            else:  # until every player has played its races to the end
                run.meter.start, run.meter.end = start, float("inf")
                await run.wait(asyncio.gather(*run.tasks), WHOLE_TIMEOUT, "every player's races to end")
            control("--instr=off", pid)
            seconds = time.perf_counter() - start
            after = None if args.echo else await asyncio.to_thread(processes.fetch_metrics, server.port)
            control("--dump", pid)
        finally:
            await run.stop()
            await client.close_clients(clients)
    if args.echo:  # the answers the clients read in the window: one per request
        moves = len(run.meter.latencies)
    else:
        assert before is not None and after is not None
        moves = int(after["terrace_moves_total"] - before["terrace_moves_total"])
    if moves <= 0:
        raise BenchError("no moves were accepted in the window")
    dumps = sorted(workdir.glob("callgrind.out*"), key=os.path.getmtime)
    best = max(dumps, key=lambda p: totals(p)["Ir"])
    t = totals(best)
    if args.out is not None:
        shutil.copyfile(best, args.out)
    cycles = estimated_cycles(t)
    idle_per_s = None if idle is None else idle[0] / idle[1]
    net = None if idle_per_s is None else (t["Ir"] - idle_per_s * seconds) / moves
    return {
        "root": str(args.root),
        "what": "echo" if args.echo else f"game, {args.store} store, {args.event_loop}",
        "players": args.players,
        "window": f"{args.seconds:g} s"
        if args.seconds is not None
        else f"{args.races} whole race(s) a player",
        "moves": moves,
        "moves_per_s": moves / seconds,
        "instructions": t["Ir"],
        "instructions_per_move": t["Ir"] / moves,
        "estimated_cycles_per_move": None if cycles is None else cycles / moves,
        "window_seconds": seconds,
        "idle_instructions_per_s": idle_per_s,
        "instructions_per_move_net": net,
    }


async def _idle_window(pid: str, workdir: Path, seconds: float) -> tuple[int, float]:
    """The server's instructions over ``seconds`` with nothing asked of it (its timers, its
    collector): what a window costs whatever moves it holds. Its dump is taken away, so the
    race window's is the only one left."""
    control("--instr=on", pid)
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    control("--instr=off", pid)
    took = time.perf_counter() - start
    before = set(workdir.glob("callgrind.out*"))
    control("--dump", pid)
    control("--zero", pid)
    new = set(workdir.glob("callgrind.out*")) - before
    if len(new) != 1:
        raise BenchError(f"expected one dump of the idle window, found {len(new)}")
    (path,) = new
    ir = totals(path)["Ir"]
    path.unlink()
    return ir, took


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout whose server runs (default: this one)"
    )
    p.add_argument("--players", type=int, default=40, help="concurrent clients (default: %(default)s)")
    p.add_argument("--seats", type=int, default=4, help="players per race (default: %(default)s)")
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="a fixed counted window instead of whole races (the echo: 15)",
    )
    p.add_argument(
        "--idle-seconds",
        type=float,
        default=10.0,
        help="first count the server idle this long, to take its background from the figure (0: no)",
    )
    p.add_argument(
        "--races", type=int, default=1, help="whole races each player plays (default: %(default)s)"
    )
    p.add_argument(
        "--race-moves", type=int, default=400, help="moves before a player resigns (default: %(default)s)"
    )
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before it (default: %(default)s)")
    p.add_argument(
        "--standings-interval", type=float, default=5.0, help="server standings window (default: %(default)s)"
    )
    p.add_argument("--store", choices=("memory", "redis"), default="memory", help="the server's store")
    p.add_argument("--echo", action="store_true", help="count a bare websockets echo server instead")
    p.add_argument("--event-loop", choices=("asyncio", "uvloop"), default="asyncio", help="the server's loop")
    p.add_argument("--server-args", default="", help="more server flags, one string")
    p.add_argument("--out", type=Path, default=None, help="keep callgrind's output file here")
    p.add_argument("--cache-sim", action="store_true", help="simulate caches and branches: estimated cycles")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    if args.echo and args.seconds is None:
        args.seconds = ECHO_SECONDS
    if (
        args.players < 1
        or not 1 <= args.seats <= 8
        or (args.seconds is not None and args.seconds <= 0)
        or args.races < 1
        or args.race_moves < 1
        or args.warmup < 0
        or args.idle_seconds < 0
    ):
        p.error(
            "--players, --races and --race-moves at least 1, --seats from 1 to 8, --seconds positive, --warmup not negative"
        )
    if args.players % args.seats:
        p.error("--players must fill whole races: a multiple of --seats")
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind (with callgrind_control) is not on the PATH", file=sys.stderr)
        return 1
    args.root = args.root.resolve()
    try:
        with tempfile.TemporaryDirectory(prefix="terrace-callgrind-") as tmp:
            result = asyncio.run(count(args, Path(tmp)))
    except BenchError as e:
        print(f"instruction count failed: {e}", file=sys.stderr)
        return 1
    report = {**run_info(argv), **result}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"command: {report['command']}")
    window = f"{args.seconds:g} s counted" if args.seconds is not None else f"{args.races} whole race(s) each"
    print(f"server:  {report['root']} under callgrind, {args.players} players, {window}")
    print(f"moves:   {report['moves']:,} ({report['moves_per_s']:.0f}/s under callgrind)")
    print(f"instructions per move: {report['instructions_per_move']:,.0f}")
    if report["instructions_per_move_net"] is not None:
        print(
            f"less the idle server's {report['idle_instructions_per_s']:,.0f} a second: "
            f"{report['instructions_per_move_net']:,.0f}"
        )
    if report["estimated_cycles_per_move"] is not None:
        print(f"estimated cycles per move: {report['estimated_cycles_per_move']:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
