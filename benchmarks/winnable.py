#!/usr/bin/env python3
"""Benchmark winnable-only races: the wait from ``create {deals: "winnable"}`` to ``started``.

Runs a race server in this process (memory store, a zero countdown, its usual
two search workers) on a free loopback port and one websocket client that, for
each variant, ``--races`` times in a row: creates a one-seat winnable-only race,
starts it, waits for ``started``, resigns and waits for ``finished``. The wait
measured is from sending ``create`` to receiving ``started``: almost all of it
is the seed drawing in the workers (the create's answer waits for it). Races
that end in ``no_winnable_deal`` are counted apart.

With ``--queue`` it measures matchmaking instead: two clients, ``queue_seats`` 2, race
after race: the first queues with ``deals: "winnable"``, the second a moment later
(``--gap`` seconds); the wait is from the second's ``queue`` (the group is full then) to
its ``started``. The server draws each winnable queue's deal ahead, so after the first
race the deal is usually ready; the same run with ``deals: "any"`` is the baseline.

    python benchmarks/winnable.py                      # 20 races per variant of terrace and queen-of-italy
    python benchmarks/winnable.py --variant signora --races 5 --json
    python benchmarks/winnable.py --queue --races 20   # matchmaking: winnable and any deals
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from websockets.asyncio.client import connect  # noqa: E402

from benchmarks.common import percentile, run_info  # noqa: E402
from server.app import RaceServer  # noqa: E402
from server.config import Config  # noqa: E402
from terrace.wire.protocol import JSON  # noqa: E402

PUSHES: list[dict[str, Any]] = []  # pushes read while waiting for an answer


async def request(ws: Any, counter: list[int], type_: str, **fields: Any) -> dict[str, Any]:
    counter[0] += 1
    await ws.send(json.dumps({"type": type_, "id": counter[0], **fields}))
    while True:
        msg: dict[str, Any] = json.loads(await ws.recv())
        if msg.get("re") == counter[0]:
            return msg
        PUSHES.append(msg)


async def wait_for(ws: Any, type_: str) -> dict[str, Any]:
    while True:
        msg = PUSHES.pop(0) if PUSHES else json.loads(await ws.recv())
        if msg["type"] == type_:
            return msg


async def measure(variants: list[str], races: int, winnable_seconds: float) -> dict[str, Any]:
    config = dataclasses.replace(
        Config(host="127.0.0.1", port=0), countdown=0.0, winnable_seconds=winnable_seconds
    )
    out: dict[str, Any] = {}
    async with RaceServer(config) as srv, connect(srv.url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
        counter = [0]
        await request(ws, counter, "hello", name="Bench")
        for variant in variants:
            waits: list[float] = []
            refused = 0
            for _ in range(races):
                t0 = time.perf_counter()
                created = await request(ws, counter, "create", variant=variant, seats=1, deals="winnable")
                if created["type"] == "error":
                    refused += 1
                    continue
                race = created["race"]["id"]
                PUSHES.clear()
                await request(ws, counter, "start", race=race)
                await wait_for(ws, "started")
                waits.append(time.perf_counter() - t0)
                await request(ws, counter, "resign", race=race)
                await wait_for(ws, "finished")
            waits.sort()
            out[variant] = {
                "races": races,
                "refused": refused,
                "p50_s": percentile(waits, 50) if waits else None,
                "p99_s": percentile(waits, 99) if waits else None,
                "mean_s": statistics.mean(waits) if waits else None,
                "max_s": waits[-1] if waits else None,
            }
    return out


async def measure_queue(
    variants: list[str], races: int, winnable_seconds: float, gap: float
) -> dict[str, Any]:
    config = dataclasses.replace(
        Config(host="127.0.0.1", port=0),
        countdown=0.0,
        winnable_seconds=winnable_seconds,
        queue_seats=2,
        queue_wait=60.0,
    )
    out: dict[str, Any] = {}
    async with (
        RaceServer(config) as srv,
        connect(srv.url, subprotocols=[JSON]) as wa,  # type: ignore[list-item]
        connect(srv.url, subprotocols=[JSON]) as wb,  # type: ignore[list-item]
    ):
        ca, cb = [0], [0]
        await request(wa, ca, "hello", name="BenchA")
        await request(wb, cb, "hello", name="BenchB")
        for variant in variants:
            for deals in ("winnable", "any"):
                waits: list[float] = []
                for _ in range(races):
                    PUSHES.clear()
                    await request(wa, ca, "queue", variant=variant, deals=deals)
                    await asyncio.sleep(gap)
                    t0 = time.perf_counter()
                    await request(wb, cb, "queue", variant=variant, deals=deals)
                    started = await wait_for(wb, "started")
                    waits.append(time.perf_counter() - t0)
                    race = started["race"]
                    await request(wb, cb, "resign", race=race)
                    await request(wa, ca, "resign", race=race)
                    # the end may have been read while waiting for the answers, or come after
                    ended = any(m["type"] == "finished" and m["race"] == race for m in PUSHES)
                    while not ended:
                        msg = await asyncio.wait_for(_next(wa), 30)
                        ended = msg["type"] == "finished" and msg["race"] == race
                first = waits[0]  # the queue's first race: its deal was being drawn as A queued
                waits.sort()
                out[f"{variant} {deals}"] = {
                    "races": races,
                    "refused": 0,
                    "first_s": first,
                    "p50_s": percentile(waits, 50),
                    "p99_s": percentile(waits, 99),
                    "mean_s": statistics.mean(waits),
                    "max_s": waits[-1],
                }
    return out


async def _next(ws: Any) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(await ws.recv())
    return msg


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--variant", action="append", help="a variant (repeat); default terrace and queen-of-italy"
    )
    p.add_argument("--races", type=int, default=20, help="races per variant (default 20)")
    p.add_argument("--winnable-seconds", type=float, default=8.0, help="the server's bound (default 8)")
    p.add_argument("--queue", action="store_true", help="measure matchmaking (queue to started) instead")
    p.add_argument("--gap", type=float, default=0.5, help="--queue: seconds between the two queue requests")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    variants = args.variant or ["terrace", "queen-of-italy"]
    if args.queue:
        figures = asyncio.run(measure_queue(variants, args.races, args.winnable_seconds, args.gap))
    else:
        figures = asyncio.run(measure(variants, args.races, args.winnable_seconds))
    report = {**run_info(None), "winnable_seconds": args.winnable_seconds, "variants": figures}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(report["machine"])
    print(f"{'variant':<26}{'races':>6}{'refused':>8}{'p50 s':>8}{'p99 s':>8}{'max s':>8}")
    for v, f in figures.items():
        cells = [f"{f[k]:.2f}" if f[k] is not None else "-" for k in ("p50_s", "p99_s", "max_s")]
        print(f"{v:<26}{f['races']:>6}{f['refused']:>8}{cells[0]:>8}{cells[1]:>8}{cells[2]:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
