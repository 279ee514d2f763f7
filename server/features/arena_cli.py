"""``terrace-server arena``: the operator's arena commands, talking to the store (Redis) directly.

    terrace-server arena create ID --variant terrace --pool bots --start +10m --minutes 60 [--redis-url URL]
    terrace-server arena list [--redis-url URL]

The servers sharing that store see a new arena on their next look (within a second). A
server on the in-memory store keeps its arenas to itself: it takes them from its
``--arena-schedule`` setting instead. Exit codes: 0 done, 1 the store refused or could not
be reached (or the id is taken), 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import re
import sys
import time
from collections.abc import Sequence

from server.config import store_options
from server.store import StoreDown, open_store
from terrace.race.arena import ArenaSpec, make_spec
from terrace.vocab import ENTRIES

RELATIVE = re.compile(r"^\+(\d+)([smh])$")


def parse_start(text: str, now_ms: int) -> int:
    """``now``, ``+90s`` / ``+10m`` / ``+2h``, or an ISO time (UTC unless it says otherwise) -> unix ms."""
    if text == "now":
        return now_ms
    if m := RELATIVE.match(text):
        return now_ms + int(m[1]) * {"s": 1_000, "m": 60_000, "h": 3_600_000}[m[2]]
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"--start {text!r}: use now, +10m, +2h or an ISO time such as 2026-12-01T18:00Z"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return int(when.timestamp() * 1000)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="terrace-server arena", description="Make and list arenas in the shared store."
    )
    store_options(p)
    # the store's options may also follow the command (`arena create ID ... --redis-url URL`)
    store = argparse.ArgumentParser(add_help=False)
    store_options(store, suppress=True)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("create", help="make an arena", parents=[store])
    c.add_argument(
        "id", help="1-48 lower-case letters, digits or dashes; it names the arena's page, /arena/ID"
    )
    c.add_argument("--variant", default="terrace")
    c.add_argument("--goal", help="default: the variant's")
    c.add_argument("--pool", default="all", choices=list(ENTRIES), help="who may join (default all)")
    c.add_argument("--start", default="now", help="now, +10m, +2h, or an ISO time (UTC by default)")
    c.add_argument("--minutes", type=float, default=60.0, help="how long it runs (default 60)")
    c.add_argument("--name", default="", help="the name shown (default: the id)")
    sub.add_parser("list", help="every arena, by start", parents=[store])
    return p


def main(argv: Sequence[str]) -> int:
    p = _parser()
    args = p.parse_args(argv)
    if not args.redis_url:
        p.error(
            "arenas made here go to the servers' shared store: give --redis-url (or $TERRACE_REDIS_URL); "
            "a server on the in-memory store takes its arenas from --arena-schedule"
        )
    spec: ArenaSpec | None = None
    if args.command == "create":
        try:
            start = parse_start(args.start, int(time.time() * 1000))
            spec = make_spec(args.id, args.variant, args.pool, start, args.minutes, args.goal, args.name)
        except ValueError as exc:
            p.error(str(exc))
    try:
        return asyncio.run(_run(args, spec))
    except StoreDown as exc:
        print(f"terrace-server arena: cannot reach the store at {args.redis_url}: {exc}", file=sys.stderr)
        return 1


async def _run(args: argparse.Namespace, spec: ArenaSpec | None) -> int:
    store = open_store(args.redis_url, cluster=args.redis_mode == "cluster")
    try:
        if spec is not None:
            if not await store.arena_create(spec.to_dict()):
                print(f"terrace-server arena: an arena {spec.id!r} exists already", file=sys.stderr)
                return 1
            print(f"arena {spec.id}: {spec.variant} (goal {spec.goal}), pool {spec.pool}, {_when(spec)}")
            return 0
        now = int(time.time() * 1000)
        for raw in await store.arena_list():
            a = ArenaSpec.from_dict(raw)
            print(f"{a.id}  {a.state_at(now):9}  {a.variant} {a.goal} {a.pool}  {_when(a)}")
        return 0
    finally:
        await store.close()


def _when(spec: ArenaSpec) -> str:
    def iso(ms: int) -> str:
        return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    return f"{iso(spec.starts_ms)} to {iso(spec.ends_ms)}"
