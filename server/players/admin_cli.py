"""``terrace-server admin``: the operator's fair-play commands, talking to the store (Redis) directly.

    terrace-server admin flags [--json] [--redis-url URL]
    terrace-server admin void NAME [--redis-url URL]
    terrace-server admin restore NAME [--redis-url URL]

``flags`` lists the results held back from the boards, newest first: whose, which race, why
(``inhuman_pace``: moves faster than a person plays; ``voided``: the account is void). ``void``
takes an account off every board and holds back its results from then on; ``restore`` puts
back what a void took off and what its flags held back (:mod:`server.players.fairplay`). Every
server sharing the store sees the change at once. A server on the in-memory store keeps its
flags to itself (its log says each one). Exit codes: 0 done, 1 the store refused or could not
be reached (or there is no such account), 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
from collections.abc import Sequence
from typing import Any

from server.config import Config, store_options
from server.players.fairplay import FairPlay
from server.store import StoreDown, open_store
from terrace.race.daily import board_row


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="terrace-server admin", description="Fair play: results held back, and accounts voided."
    )
    store = argparse.ArgumentParser(add_help=False)
    store_options(store)
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("flags", help="results held back from the boards, newest first", parents=[store])
    f.add_argument("--json", action="store_true", help="one JSON object a line")
    f.add_argument("--limit", type=int, default=100, help="most flags to list (default 100)")
    v = sub.add_parser(
        "void", help="take an account off every board, and hold back its results", parents=[store]
    )
    v.add_argument("name")
    r = sub.add_parser("restore", help="undo a void and put back what its flags held back", parents=[store])
    r.add_argument("name")
    return p


def main(argv: Sequence[str]) -> int:
    p = _parser()
    args = p.parse_args(argv)
    if not args.redis_url:
        p.error(
            "flags and voids live in the servers' shared store: give --redis-url (or $TERRACE_REDIS_URL); "
            "a server on the in-memory store logs each flag instead"
        )
    try:
        return asyncio.run(_run(args))
    except StoreDown as exc:
        print(f"terrace-server admin: cannot reach the store at {args.redis_url}: {exc}", file=sys.stderr)
        return 1


async def _run(args: argparse.Namespace) -> int:
    store = open_store(args.redis_url, cluster=args.redis_mode == "cluster")
    try:
        await store.ping()
        fairplay = FairPlay(store, Config())
        if args.command == "flags":
            for flag in await fairplay.flags(args.limit):
                print(json.dumps(flag) if args.json else _line(flag))
            return 0
        account = await store.account_by_name(args.name)
        if account is None:
            print(f"terrace-server admin: there is no account {args.name!r}", file=sys.stderr)
            return 1
        if args.command == "void":
            taken = await fairplay.void(account)
            print(f"{account.name}: void; {taken} board entries taken off, its results held back from now on")
        else:
            back = await fairplay.restore(account)
            print(f"{account.name}: restored; {back} board entries put back")
        return 0
    finally:
        await store.close()


def _line(flag: dict[str, Any]) -> str:
    when = dt.datetime.fromtimestamp(int(flag["at"]) / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    held = (
        ", ".join(f"{p['board']}={_value(str(p['board']), float(p['score']))}" for p in flag["held"])
        or "nothing"
    )
    return f"{when}  {flag['player']['name']}  {flag['reason']}  {flag['what']} (race {flag['race']})  held: {held}"


def _value(board: str, value: float) -> str:
    """A board's value in words: a daily or challenge board's packs the goal's time or the cards
    home into one number (terrace.race.daily.board_value); the others are times or ratings."""
    if board.startswith(("daily:", "challenge:")):
        row = board_row(0, {}, value)
        time = row["time"]
        return f"goal in {time / 1000:.3f} s" if time is not None else f"{row['score']} cards home"
    return f"{value:g}"
