#!/usr/bin/env python3
"""Soak the race server under attack: normal players race while slow readers and a race
flood do their worst, all at once, for ``--seconds`` (10 minutes by default).

A real ``terrace-server`` runs in its own process with its default limits (only the
countdown is zero, and unstarted races expire after ``--open-race-timeout`` so the
expiry runs during the soak). Each kind of client comes from its own loopback address,
as it would from its own machine, so the per-address limits apply as they would:

- players (127.0.0.2): ``--players`` clients racing in races of ``--seats``, one move
  every ``--pace`` seconds each, the simple view-only policy of benchmarks/server.py;
- slow readers (127.0.0.3): ``--slow-readers`` lobby subscribers with a tiny receive
  buffer that never read; each reconnects ``--slow-cycle`` seconds after it connected;
- race flood (127.0.0.4): ``--flooders`` guests creating races with ``join: false`` as
  fast as the answers come, each taking a new name on a new connection whenever it is
  refused ``too_many_races``.

Reported: the server's RSS sampled every ``--sample`` seconds (its growth after the
warm-up, as a share of the RSS at the warm-up's end), the players' move latency (p50,
p99 over every move after the warm-up), and what the limits did (slow readers cut,
races expired, flood answers by kind).

    python benchmarks/soak.py                                  # the full soak: ~10 min
    python benchmarks/soak.py --seconds 90 --warmup 20 --json  # a shortened one
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import socket
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from benchmarks.common import BenchError, run_info, summarize  # noqa: E402
from benchmarks.server_client import HOST, START_TIMEOUT, Matchmaker, Player, Run, Style, close_clients  # noqa: E402
from benchmarks.server_processes import ServerProcess, cpu_share, fetch_metrics, move_handling  # noqa: E402
from terrace.wire.protocol import MSGPACK, decode, encode  # noqa: E402

PLAYERS_FROM, READERS_FROM, FLOOD_FROM = "127.0.0.2", "127.0.0.3", "127.0.0.4"

OPTIONS: list[tuple[str, type, float, str]] = [
    ("--seconds", float, 600.0, "the whole soak, seconds"),
    ("--warmup", float, 60.0, "seconds before measuring"),
    ("--players", int, 20, "racing players"),
    ("--seats", int, 4, "players per race"),
    ("--pace", float, 0.1, "seconds between a player's moves"),
    ("--race-moves", int, 300, "a player resigns after this many moves"),
    ("--slow-readers", int, 100, "lobby subscribers that never read"),
    ("--slow-cycle", float, 360.0, "seconds before a slow reader reconnects"),
    ("--flooders", int, 10, "race-flooding connections"),
    ("--open-race-timeout", float, 30.0, "the server's setting, seconds"),
    ("--sample", float, 5.0, "seconds between RSS samples"),
]


class PacedPlayer(Player):
    """A player at a person's (or a polite bot's) pace: one move every ``pace`` seconds."""

    pace = 0.1

    async def exchange(self, msg: dict[str, Any]) -> tuple[dict[str, Any], float, float, int, int]:
        if msg["type"] == "move":
            await asyncio.sleep(self.pace)
        return await super().exchange(msg)


async def open_from(url: str, source: str, **kw: Any) -> ClientConnection:
    return await connect(
        url,
        subprotocols=[MSGPACK],
        compression=None,
        local_addr=(source, 0),
        open_timeout=START_TIMEOUT,
        **kw,  # type: ignore[list-item]
    )


def attack(url: str, port: int, args: argparse.Namespace, out: Any) -> None:
    """The attackers' process: slow readers and flooders for ``args.seconds``, then their counts."""
    counts: Counter[str] = Counter()

    async def main() -> None:
        tasks = [
            asyncio.create_task(slow_reader(url, port, args.slow_cycle, counts))
            for _ in range(args.slow_readers)
        ]
        tasks += [asyncio.create_task(flooder(url, i, counts)) for i in range(args.flooders)]
        await asyncio.sleep(args.seconds)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    out.put(dict(counts))


async def slow_reader(url: str, port: int, cycle: float, counts: Counter[str]) -> None:
    """Subscribe to the lobby, never read, reconnect every ``cycle`` seconds."""
    while True:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.bind((READERS_FROM, 0))
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
            ws = await connect(url, sock=sock, max_queue=1, compression=None, subprotocols=[MSGPACK])  # type: ignore[list-item]
            await ws.send(encode({"type": "subscribe", "id": 1, "topic": "lobby"}, MSGPACK))
            counts["slow reader connected"] += 1
        except Exception as e:  # refused by a limit: that is the point
            counts[f"slow reader refused: {type(e).__name__}"] += 1
            sock.close()
            await asyncio.sleep(1)
            continue
        await asyncio.sleep(cycle)
        ws.transport.abort()


async def flooder(url: str, n: int, counts: Counter[str]) -> None:
    """Create unstarted races as fast as answered; a new name on a new connection when capped."""
    names = itertools.count()
    while True:
        try:
            ws = await open_from(url, FLOOD_FROM)
        except Exception as e:
            counts[f"flood connect refused: {type(e).__name__}"] += 1
            await asyncio.sleep(1)
            continue
        try:
            await ws.send(encode({"type": "hello", "id": 0, "name": f"flood{n}x{next(names)}"}, MSGPACK))
            for rid in itertools.count(1):
                await ws.send(
                    encode({"type": "create", "id": rid, "variant": "terrace", "join": False}, MSGPACK)
                )
                while True:
                    m = decode(await ws.recv(), MSGPACK)
                    if m.get("re") == rid:
                        break
                kind = m.get("code", m["type"])
                counts[f"flood {kind}"] += 1
                if kind == "too_many_races":
                    break
        except Exception as e:
            counts[f"flood connection lost: {type(e).__name__}"] += 1
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 2)


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise BenchError("no VmRSS for the server process")


def counters(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    wanted = (
        "terrace_slow_readers_total",
        "terrace_races_expired_total",
        "terrace_connections ",
        "terrace_races{",
    )
    return {
        name: float(value)
        for line in text.splitlines()
        if line.startswith(wanted)
        for name, _, value in [line.rpartition(" ")]
    }


async def soak(args: argparse.Namespace, server: ServerProcess) -> dict[str, Any]:
    url = f"ws://{HOST}:{server.port}/ws"
    assert server.proc is not None
    run = Run()
    clients = [await open_from(url, PLAYERS_FROM) for _ in range(args.players)]
    PacedPlayer.pace = args.pace
    samples: list[dict[str, Any]] = []
    try:
        players = [
            PacedPlayer(i, ws, MSGPACK, run.meter, Style(race_moves=args.race_moves))
            for i, ws in enumerate(clients)
        ]
        await run.wait(asyncio.gather(*(p.hello() for p in players)), START_TIMEOUT, "every welcome")
        matchmaker = Matchmaker("terrace", args.seats)
        for p in players:
            run.spawn(f"player {p.n}", p.run(matchmaker))
        await run.wait(asyncio.gather(*(p.racing.wait() for p in players)), START_TIMEOUT, "the first races")
        # the attackers run in a process of their own, so their work never delays the players'
        context = multiprocessing.get_context("spawn")
        attack_counts: Any = context.SimpleQueue()
        attackers = context.Process(target=attack, args=(url, server.port, args, attack_counts), daemon=True)
        attackers.start()
        before = await asyncio.to_thread(fetch_metrics, server.port)
        start = time.perf_counter()
        run.meter.start = start + args.warmup
        run.meter.end = start + args.seconds
        cpu0 = None
        try:
            while (now := time.perf_counter()) < run.meter.end:
                if cpu0 is None and now >= run.meter.start:
                    cpu0 = server.cpu_seconds()
                    before = await asyncio.to_thread(fetch_metrics, server.port)
                metrics = await asyncio.to_thread(counters, server.port)
                samples.append({"t": round(now - start, 1), "rss": rss_bytes(server.proc.pid), **metrics})
                await run.wait(asyncio.sleep(args.sample), args.sample + 5, "the next sample")
            cpu1 = server.cpu_seconds()
            after_metrics = await asyncio.to_thread(fetch_metrics, server.port)
        finally:
            attackers.join(timeout=args.sample + 60)  # a loaded machine starts a process slowly
            if attackers.is_alive():
                attackers.kill()
        counts = attack_counts.get() if not attack_counts.empty() else {"attackers did not report": 1}
    finally:
        await run.stop()
        await close_clients(clients)
    measured = args.seconds - args.warmup
    result = summarize(run.meter, measured, "players")
    after = [s for s in samples if s["t"] >= args.warmup]
    base = after[0]["rss"]
    result.update(
        rss_mb_at_warmup=base / 2**20,
        rss_mb_min_after=min(s["rss"] for s in after) / 2**20,
        rss_mb_max_after=max(s["rss"] for s in after) / 2**20,
        rss_growth_after_warmup=max(s["rss"] for s in after) / base - 1,
        server_cpu=cpu_share(cpu0, cpu1, measured)["server"],
        server_handling=move_handling(before, after_metrics),
        attack=dict(sorted(counts.items())),
        last_sample=samples[-1],
        samples=samples,
    )
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, kind, default, what in OPTIONS:
        p.add_argument(flag, type=kind, default=default, help=f"{what} (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print the whole report (with every sample) as JSON")
    args = p.parse_args(argv)
    if not 0 <= args.warmup < args.seconds:
        p.error("--warmup must be at least 0 and less than --seconds")
    server_args = [
        "--host",
        HOST,
        "--port",
        "0",
        "--countdown",
        "0",
        "--open-race-timeout",
        str(args.open_race_timeout),
    ]
    try:
        with (
            tempfile.TemporaryDirectory(prefix="terrace-soak-") as tmp,
            ServerProcess("soak", [sys.executable, "-m", "server", *server_args], Path(tmp)) as server,
        ):
            try:
                result = asyncio.run(soak(args, server))
            except Exception as e:
                raise BenchError(f"{type(e).__name__}: {e}{server.tail()}") from e
            result["server_log_errors"] = [
                line for line in server.log().splitlines() if " ERROR " in line or "Traceback" in line
            ]
    except BenchError as e:
        print(f"soak failed: {e}", file=sys.stderr)
        return 1
    report = {**run_info(argv), "args": vars(args), **result}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(report["machine"])
    print(
        f"soak: {args.seconds:g} s ({args.warmup:g} s warm-up), {args.players} players, "
        f"{args.slow_readers} slow readers, {args.flooders} flooders"
    )
    print(
        f"server RSS: {report['rss_mb_at_warmup']:.1f} MB after the warm-up, "
        f"{report['rss_mb_min_after']:.1f}..{report['rss_mb_max_after']:.1f} MB after it "
        f"(growth {report['rss_growth_after_warmup']:+.1%}); server CPU {report['server_cpu']:.0%} of a core"
    )
    handling = report["server_handling"]
    print(
        f"server time per move: mean {handling['mean_ms']:.2f} ms; share over 10 ms: "
        f"{handling['share_over_seconds'].get('0.01', 0):.2%}; errors: {handling['errors']}"
    )
    print(
        f"player moves: {report['answers']} ({report['per_s']:.0f}/s), p50 {report['p50_ms']:.1f} ms, "
        f"p99 {report['p99_ms']:.1f} ms, max {report['max_ms']:.1f} ms"
    )
    last = report["last_sample"]
    still_open = last.get('terrace_races{state="open"}', 0)
    print(
        f"slow readers cut: {last.get('terrace_slow_readers_total', 0):.0f}; "
        f"races expired: {last.get('terrace_races_expired_total', 0):.0f}; "
        f"open races at the end: {still_open:.0f}"
    )
    for what, n in report["attack"].items():
        print(f"  {what}: {n}")
    if report["server_log_errors"]:
        print(f"server log errors: {len(report['server_log_errors'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
