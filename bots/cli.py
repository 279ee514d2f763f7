"""The ``terrace-bot`` command: run a bot, keep house bots, register an account, swarm a server.

    terrace-bot run MODULE:CLASS --server URL --token-file PATH [--queue VARIANT] [--races N]
    terrace-bot run MODULE:CLASS --server URL --ladder     (rated bot races around the clock; $TERRACE_TOKEN)
    terrace-bot run MODULE:CLASS --server URL --name N --arena ID    (the arena's races until it ends)
    terrace-bot house --server URL [--bots greedy:2,planner@fast:1] [--pace casual] [--max-bots 30]
    terrace-bot register NAME --server URL [--token-file PATH]

An account's token comes from ``$TERRACE_TOKEN`` or ``--token-file PATH`` (``--token T`` works
too, but puts the token in the process list for anyone on the machine to read). The house's key
comes from ``$TERRACE_HOUSE_KEY`` or the key file a server on this machine made
(``terrace.wire.house``).
    terrace-bot swarm --server URL --players N --races M

Exit codes: 0 done, 1 the server refused us or could not be reached, 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from bots.house.keeper import DEFAULT_LINEUP, DEFAULT_MAX_BOTS, WAIT_FOR_SERVER, keep_house, parse_lineup
from bots.house.pace import DEFAULT_PACE, PACES
from link import DEFAULT_SERVER, Connection, Offline, default_server, server_url
from link.command import run_command
from terrace import VARIANTS
from terrace.wire import house

from .bot import SAMPLES, load_bot
from .sdk import SDKError, play
from .swarm import swarm


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="terrace-bot",
        description="Race bots on a Terrace Race server.",
        epilog="Exit codes: 0 done, 1 refused by the server or unreachable, 2 usage error.",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log every race and reconnect")
    sub = p.add_subparsers(dest="command", required=True)

    def server(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--server",
            default=default_server(),
            type=server_url,
            help=f"websocket URL (default $TERRACE_SERVER or {DEFAULT_SERVER})",
        )

    r = sub.add_parser("run", help="race one bot", description="Race a bot: MODULE:CLASS or a sample name.")
    r.add_argument("bot", help=f"MODULE:CLASS, or a sample: {', '.join(SAMPLES)}")
    r.set_defaults(parser=r)  # usage errors print the subcommand's usage, not the top level's
    server(r)
    who = r.add_mutually_exclusive_group()
    who.add_argument(
        "--token-file",
        metavar="PATH",
        help="file holding the account token (or set $TERRACE_TOKEN)",
    )
    who.add_argument(
        "--token",
        default=None,
        help="account token; seen by anyone who lists the machine's processes: prefer $TERRACE_TOKEN or --token-file",
    )
    who.add_argument("--name", help="race as a guest with this name")
    r.add_argument(
        "--queue", metavar="VARIANT", default="terrace", choices=list(VARIANTS), help="variant to queue for"
    )
    r.add_argument("--goal", choices=["terrace", "clear"], help="race goal (default: the variant's)")
    r.add_argument("--pool", choices=["all", "bots", "humans"], default="all", help="who to be matched with")
    r.add_argument("--race", help="join this race id instead of queueing")
    r.add_argument(
        "--winnable", action="store_true", help="queue only for deals the server's solver proved winnable"
    )
    r.add_argument("--daily", action="store_true", help="play today's daily deal of --queue's variant, once")
    r.add_argument("--practice", action="store_true", help="with --daily: a practice game after the attempt")
    r.add_argument(
        "--races",
        type=int,
        help="races to play; 0 = for ever (default 1; with --arena, until the arena ends)",
    )
    r.add_argument("--json", action="store_true", help="print each result as a JSON line")
    r.add_argument("--arena", metavar="ID", help="join this arena and race until it ends")
    r.add_argument(
        "--ladder",
        action="store_true",
        help="the bot ladder: rated races in the bots pool for ever, back after every drop (needs $TERRACE_TOKEN or --token-file)",
    )

    h = sub.add_parser("house", help="keep sample bots in the queue for people to race")
    h.set_defaults(parser=h)
    server(h)
    h.add_argument(
        "--bots",
        default=DEFAULT_LINEUP,
        help=f"bots waiting per variant, BOT[@PACE][:COUNT],... e.g. greedy@casual:2,planner@fast (default {DEFAULT_LINEUP})",
    )
    h.add_argument(
        "--pace",
        default=os.environ.get("TERRACE_HOUSE_PACE", DEFAULT_PACE),
        choices=list(PACES),
        help=f"think time per move while a person races, for bots without @PACE ($TERRACE_HOUSE_PACE, default {DEFAULT_PACE})",
    )
    h.add_argument(
        "--max-bots",
        type=int,
        default=DEFAULT_MAX_BOTS,
        help=f"house bots at once, waiting and racing; more are added as people queue (default {DEFAULT_MAX_BOTS})",
    )
    h.add_argument(
        "--variant",
        action="append",
        choices=[*VARIANTS, "all"],
        help="variant(s) to wait in, repeatable; all: every variant (default terrace)",
    )
    h.add_argument("--races", type=int, default=0, help="races per house bot; 0 = for ever (default)")
    h.add_argument(
        "--house-key-file",
        metavar="PATH",
        default="",
        help="file holding the server's house key, when $TERRACE_HOUSE_KEY is not set "
        f"(default ${house.ENV_FILE} or {house.default_path()})",
    )
    h.add_argument(
        "--wait",
        type=float,
        default=WAIT_FOR_SERVER,
        metavar="SECONDS",
        help=f"how long to wait for a server that does not answer yet (default {WAIT_FOR_SERVER:g})",
    )

    g = sub.add_parser("register", help="register an account and print its token (shown once)")
    g.set_defaults(parser=g)
    g.add_argument("name")
    server(g)
    g.add_argument("--human", action="store_true", help="register a human account (default: bot)")
    g.add_argument(
        "--token-file",
        metavar="PATH",
        help="write the token to this new file (yours alone) instead of showing it",
    )
    g.add_argument("--json", action="store_true")

    s = sub.add_parser("swarm", help="load a server with many racing connections")
    s.set_defaults(parser=s)
    server(s)
    s.add_argument("--players", type=int, default=20, help="connections (default 20)")
    s.add_argument("--races", type=int, default=10, help="stop after this many races ended (default 10)")
    s.add_argument("--bot", default="greedy", help="bot every player uses (default greedy)")
    s.add_argument("--variant", default="terrace", choices=list(VARIANTS))
    s.add_argument("--json", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    p: argparse.ArgumentParser = args.parser
    logging.basicConfig(
        level=logging.INFO if args.verbose or args.command == "house" else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    try:
        if args.command == "run":
            if args.races is None:
                args.races = 0 if args.arena else 1  # an arena is raced to its end
            if args.races < 0:
                p.error("--races must be 0 (for ever) or more")
            factory = load_bot(args.bot)
            args.token = _token(args, p)
            if args.ladder and not args.token:
                p.error(
                    "--ladder needs an account: $TERRACE_TOKEN or --token-file (the ladder rates registered bots)"
                )
            if args.winnable and (args.race or args.daily or args.arena or args.ladder):
                p.error("--winnable goes with queueing: leave out --race, --daily, --arena and --ladder")
            if args.ladder and (args.arena or args.race):
                p.error("--ladder races from the bots queue: leave out --arena and --race")
            return _run(_ladder(args, factory) if args.ladder else _race(args, factory))
        if args.command == "house":
            if args.races < 0:
                p.error("--races must be 0 (for ever) or more")
            if not args.wait >= 0:
                p.error("--wait must be 0 or more seconds")
            lineup = parse_lineup(args.bots)
            coro = keep_house(
                args.server,
                lineup,
                list(VARIANTS)
                if "all" in (args.variant or [])
                else list(dict.fromkeys(args.variant or ["terrace"])),
                races=args.races or None,
                pace=args.pace,
                max_bots=args.max_bots,
                house_key_file=args.house_key_file,
                wait_for_server=args.wait,
            )
            return _run(_quiet(coro))
        if args.command == "register":
            if args.token_file and Path(args.token_file).exists():
                p.error(f"--token-file {args.token_file} exists: the new token goes to a new file")
            return _run(_register(args))
        if args.players < 2 or args.races < 1:
            p.error("--players must be at least 2 and --races at least 1")
        load_bot(args.bot)
        return _run(_swarm(args))
    except ValueError as exc:
        p.error(str(exc))
    return 2  # unreachable: p.error exits


def _token(args: argparse.Namespace, p: argparse.ArgumentParser) -> str | None:
    """The account token: ``--token``, else ``--token-file``'s, else ``$TERRACE_TOKEN`` (a guest
    named with ``--name`` has none)."""
    if args.token:
        logging.getLogger("terrace.bot").warning(
            "a token given with --token is in the process list for anyone on this machine to read; "
            "use $TERRACE_TOKEN or --token-file PATH"
        )
        return str(args.token)
    if args.token_file:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as e:
            p.error(f"--token-file {args.token_file}: {e.strerror or e}")
        if not token:
            p.error(f"--token-file {args.token_file} is empty")
        return token
    if args.name:
        return None
    return os.environ.get("TERRACE_TOKEN") or None


def _run(coro: Coroutine[Any, Any, int]) -> int:
    """Run until done or SIGINT/SIGTERM (exit 0); server refusals exit 1 with one line."""
    return run_command(coro, "terrace-bot", refusals=(SDKError,), interrupted=0)


async def _race(args: argparse.Namespace, factory: Any) -> int:
    def show(result: Any) -> None:
        print(json.dumps(result.to_dict()) if args.json else result, flush=True)

    await play(
        factory,
        args.server,
        token=args.token,
        name=args.name if not args.token else None,
        variant=args.queue,
        goal=args.goal,
        pool=args.pool,
        race=args.race,
        races=args.races or None,
        deals="winnable" if args.winnable else "any",
        daily=args.daily,
        practice=args.practice,
        arena=args.arena,
        on_result=show,
    )
    return 0


LADDER_BACKOFF = (1.0, 2.0, 5.0, 10.0, 30.0)  # seconds before trying a lost server again


async def _ladder(args: argparse.Namespace, factory: Any) -> int:
    """Rated races in the bots pool, one after another, for ever: a lost server is tried again
    (after the session's own reconnects gave up), a refusal (a bad token) stops with exit 1."""

    def show(result: Any) -> None:
        print(json.dumps(result.to_dict()) if args.json else result, flush=True)

    lost = 0  # tries in a row that found no server (reset once a race is played)

    def played(result: Any) -> None:
        nonlocal lost
        lost = 0
        show(result)

    while True:
        try:
            await play(
                factory,
                args.server,
                token=args.token,
                variant=args.queue,
                goal=args.goal,
                pool="bots",
                races=None,
                on_result=played,
            )
        except (SDKError, Offline) as exc:
            if isinstance(exc, SDKError) and exc.code is not None:
                raise  # the server refused us: trying again changes nothing
            wait = LADDER_BACKOFF[min(lost, len(LADDER_BACKOFF) - 1)]
            lost += 1
            logging.getLogger("terrace.bot").warning("ladder: %s; again in %g s", exc, wait)
            await asyncio.sleep(wait)


async def _quiet(coro: Coroutine[Any, Any, Any]) -> int:
    await coro
    return 0


async def _register(args: argparse.Namespace) -> int:
    link = await Connection.open(args.server)
    try:
        answer = await link.request("register", name=args.name, kind="human" if args.human else "bot")
    finally:
        await link.close()
    if answer["type"] != "registered":
        raise SDKError(f"register refused: {answer.get('code')}: {answer.get('message')}", answer)
    if args.token_file:
        fd = os.open(args.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(answer["token"] + "\n")
    if args.json:
        shown = {} if args.token_file else {"token": answer["token"]}
        print(json.dumps({**shown, "player": answer["player"]}))
    else:
        print(f"registered {answer['player']['name']} ({answer['player']['kind']})")
        if args.token_file:
            print(
                f"token written to {args.token_file} (readable by you alone); race with --token-file {args.token_file}"
            )
        else:
            print(f"token: {answer['token']}")
            print(
                "Keep it secret: it is shown only once. Race with TERRACE_TOKEN set to it, or --token-file PATH."
            )
    return 0


async def _swarm(args: argparse.Namespace) -> int:
    report = await swarm(args.server, args.players, args.races, bot=args.bot, variant=args.variant)
    figures = report.summary()
    if args.json:
        print(json.dumps(figures))
    else:
        lat = figures["latency_ms"]
        print(
            f"{figures['players']} players, {figures['races']} races, {figures['moves']} moves "
            f"in {figures['seconds']} s: {figures['moves_per_s']} moves/s\n"
            f"move answer latency ms: p50 {lat['p50']}  p99 {lat['p99']}  max {lat['max']}\n"
            f"connections held (peak): {figures['connections_peak']}  "
            f"rate limited: {figures['rate_limited']}  errors: {figures['errors'] or 'none'}"
        )
    return 0 if not figures["errors"] else 1
