#!/usr/bin/env python3
"""Run one arena to its end with bots and measure how fast players are paired again.

One or two server nodes run in this process (two need ``--redis``: they share its store and
its queue), an arena of ``--minutes`` starts two seconds in, and ``--bots`` greedy bots (each
resigning after a number of moves of its own, so places differ) join it, spread over the
nodes, and race until it ends. Then, from the arena's record and its races' records:

- races, and races per bot (fewest, median, most);
- the re-pair gap: for each bot and each race of theirs but the last, from the race's end
  (``ended_at``) to the making of their next race (its ``created_at``): median, 95th
  percentile and largest, in ms;
- the check: every race verifies (``terrace.race.audit``) and the standings are recomputed from
  the races' places (``terrace.race.arena.check_standings``).

The bots and the servers share this process (and so its core); the gap includes the arena
queue's half-second wait for a fuller group.

    python -m benchmarks.arena                                   # 6 bots, 3 minutes, one node
    python -m benchmarks.arena --redis redis://127.0.0.1:6390/0 --nodes 2 --json
    python -m benchmarks.arena --bots 4 --minutes 0.2 --json     # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import socket
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from benchmarks.common import percentile, run_info
from bots.samples.greedy import GreedyBot
from bots.sdk import RaceResult, play
from server.app import RaceServer
from server.config import Config
from terrace.race.arena import check_standings, make_spec
from terrace.race.audit import audit

START_IN = 2.0  # seconds from now to the arena's start: every bot has joined by then


def quitter(moves: int) -> type[GreedyBot]:
    class Quitter(GreedyBot):
        def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
            return None if view.get("moves", 0) >= moves else super().choose(view, legal)

    return Quitter


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def nodes(n: int, redis: str) -> AsyncIterator[list[RaceServer]]:
    # every bot comes from 127.0.0.1: the address limits are raised for the load
    base = Config(port=0, countdown=0.5, rated_seats_per_address=0, address_rate=1e6, address_burst=10**6)
    started: list[RaceServer] = []
    try:
        for _ in range(n):
            if n > 1:
                port = _free_port()
                config = Config(
                    **{
                        **base.__dict__,
                        "port": port,
                        "redis_url": redis,
                        "public_url": f"ws://127.0.0.1:{port}/ws",
                    }
                )
            else:
                config = Config(**{**base.__dict__, "redis_url": redis})
            server = RaceServer(config)
            await server.start()
            started.append(server)
        yield started
    finally:
        for server in started:
            await server.stop()


async def run(bots: int, minutes: float, n_nodes: int, redis: str) -> dict[str, Any]:
    async with nodes(n_nodes, redis) as servers:
        arena_id = f"bench-{int(time.time())}"
        spec = make_spec(arena_id, "terrace", "bots", int((time.time() + START_IN) * 1000), minutes)
        assert await servers[0].arenas.create(spec)
        played: list[list[RaceResult]] = await asyncio.gather(
            *(
                play(
                    quitter(6 + 5 * i), servers[i % n_nodes].url, name=f"bench{i}", arena=arena_id, races=None
                )
                for i in range(bots)
            )
        )
        arena = await servers[0].arenas.load(arena_id)
        details = arena.details(int(time.time() * 1000))
        records = [await servers[0].store.record(r) for r in details["race_ids"]]
    kept = [r for r in records if r is not None]
    failed = [r["id"] for r in kept if not audit(r).ok]
    problems = check_standings(details, kept)
    by_player: dict[str, list[dict[str, Any]]] = {}
    for record in kept:
        for row in record["results"]:
            by_player.setdefault(row["player"]["name"], []).append(record)
    gaps = []
    for races in by_player.values():
        races.sort(key=lambda r: r["created_at"])
        gaps += [after["created_at"] - before["ended_at"] for before, after in itertools.pairwise(races)]
    per_bot = [len(r) for r in played]
    return {
        "bots": bots,
        "minutes": minutes,
        "nodes": n_nodes,
        "store": "redis" if redis else "memory",
        "races": len(details["race_ids"]),
        "races_per_bot": {"min": min(per_bot), "median": statistics.median(per_bot), "max": max(per_bot)},
        "repair_gap_ms": {
            "n": len(gaps),
            "median": statistics.median(gaps) if gaps else None,
            "p95": percentile(sorted(gaps), 95) if gaps else None,
            "max": max(gaps) if gaps else None,
        },
        "verified": not failed and not problems and len(kept) == len(details["race_ids"]),
        "problems": problems + [f"race {r} does not verify" for r in failed],
        "top": [(row["player"]["name"], row["points"]) for row in details["standings"][:3]],
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--bots", type=int, default=6)
    p.add_argument("--minutes", type=float, default=3.0)
    p.add_argument("--nodes", type=int, default=1, choices=[1, 2])
    p.add_argument("--redis", default="", help="Redis URL (needed for two nodes); default: the memory store")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.nodes > 1 and not args.redis:
        p.error("two nodes share a store: give --redis")
    if args.bots < 2:
        p.error("--bots must be at least 2")
    logging.basicConfig(level=logging.ERROR)
    report = {**run_info(argv), **asyncio.run(run(args.bots, args.minutes, args.nodes, args.redis))}
    if args.json:
        print(json.dumps(report))
    else:
        gap = report["repair_gap_ms"]
        print(
            f"{report['bots']} bots, {report['minutes']} min, {report['nodes']} node(s) on {report['store']}: "
            f"{report['races']} races ({report['races_per_bot']['min']}-{report['races_per_bot']['max']} a bot)\n"
            f"paired again after a race: median {gap['median']} ms, p95 {gap['p95']} ms, max {gap['max']} ms "
            f"({gap['n']} gaps)\nrecord verified: {report['verified']} {report['problems'] or ''}"
        )
    return 0 if report["verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
