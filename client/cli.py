"""The ``terrace`` command: play, practice, watch and check races from a terminal.

    terrace play [--server URL] [--queue VARIANT | --race ID | --create VARIANT] [--winnable]
    terrace practice --variant V [--deal N]
    terrace races | watch [RACE] | top [BOARD]
    terrace register NAME [--bot]
    terrace replay RACE | verify RACE
    terrace daily [--variant V] [--board | --practice | --day D]
    terrace arena list | show ID [--watch] | verify ID | join ID

Exit codes: 0 done, 1 refused by the server, unreachable, or (verify) a
mismatch, 2 usage, 130 interrupted by Ctrl-C (where Ctrl-C is not the way a
command ends: leaving a queue or an arena, or stopping ``watch``, is 0), 141 stdout
closed early (``terrace play | head``: see ``_PipeGuard``). With ``--json`` an error is JSON too (client/errors.py).
``TERRACE_SERVER`` sets the default server.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, TextIO, cast

from rich.console import Console

from link import default_server, server_url
from link.command import run_command
from terrace import VARIANTS

Command = Callable[[argparse.Namespace, Console], Awaitable[int]]

LOBBY_LIMIT = 1_000  # races `races` and `watch` read, page by page, unless --limit says otherwise


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``terrace`` parser, and each command's own (its usage goes with its usage errors)."""
    p = argparse.ArgumentParser(
        prog="terrace",
        description="Race at Terrace patience from a terminal.",
        epilog=(
            "Exit codes: 0 done (Ctrl-C that leaves a queue or an arena, or stops watch, too),"
            " 1 refused, unreachable or (verify) a mismatch, 2 usage error, 130 interrupted,"
            " 141 output closed early (piped into head)."
        ),
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def server(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--server",
            default=default_server(),
            type=server_url,
            help="websocket URL (default $TERRACE_SERVER or local)",
        )

    def json_flag(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--json", action="store_true", help="print data as JSON")

    def limit_flag(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--limit",
            type=int,
            default=LOBBY_LIMIT,
            help=f"most races to read, page by page (default {LOBBY_LIMIT})",
        )

    variants = list(VARIANTS)
    pl = sub.add_parser(
        "play", help="race: queue, join, create or pick a race", description="Race on a server."
    )
    server(pl)
    how = pl.add_mutually_exclusive_group()
    how.add_argument(
        "--queue", metavar="VARIANT", choices=variants, help="be matched with others for VARIANT"
    )
    how.add_argument("--race", help="join this race")
    how.add_argument(
        "--create", metavar="VARIANT", choices=variants, help="create a race and wait for players"
    )
    pl.add_argument("--seats", type=int, help="seats of a created race (default 2)")
    pl.add_argument("--goal", choices=["terrace", "clear"], help="race goal (default: the variant's)")
    pl.add_argument("--name", help="play as a guest with this name (default: your registered account)")
    pl.add_argument(
        "--winnable",
        action="store_true",
        help="with --queue or --create: only a deal the server's solver proved winnable",
    )

    pr = sub.add_parser("practice", help="play offline, with undo and hints", description="Practice offline.")
    pr.add_argument("--variant", default="terrace", choices=variants)
    pr.add_argument("--deal", type=int, help="numbered deal (default: a random one)")

    r = sub.add_parser("races", help="list races", description="List the server's races.")
    server(r)
    json_flag(r)
    limit_flag(r)

    w = sub.add_parser("watch", help="live lobby, or one race's standings", description="Watch live.")
    w.add_argument("race", nargs="?", help="race id (default: the whole lobby)")
    server(w)
    w.add_argument("--json", action="store_true", help="print each update as a JSON line")
    limit_flag(w)

    t = sub.add_parser("top", help="leaderboards", description="Show a leaderboard.")
    t.add_argument(
        "board", nargs="?", default="rating", choices=["rating", "fastest", "wins"], help="default rating"
    )
    t.add_argument("--variant", default="terrace", choices=variants)
    t.add_argument(
        "--pool", default="humans", choices=["humans", "bots"], help="rating pool (default humans)"
    )
    t.add_argument("--goal", choices=["terrace", "clear"], help="fastest: the goal (default: the variant's)")
    t.add_argument(
        "--period", default="all", choices=["all", "day", "week"], help="fastest: all time, today, this week"
    )
    t.add_argument("--around", metavar="NAME", help="the rows around this player")
    t.add_argument("--page", type=int, default=1, help="page number (default 1)")
    t.add_argument("--count", type=int, default=10, help="rows per page, 1-100 (default 10)")
    server(t)
    json_flag(t)

    g = sub.add_parser(
        "register", help="create an account; its token is stored for you", description="Register."
    )
    g.add_argument("name")
    g.add_argument("--bot", action="store_true", help="an account for a program")
    server(g)
    json_flag(g)

    rp = sub.add_parser(
        "replay",
        help="step through a finished race",
        description=(
            "Replay a finished race. On a terminal it steps, one player at a time: Enter or n the next"
            " move, b back, s or Home the deal, e or End the player's last move, p the next player,"
            " l the move that lost the game (or, when that is undecided, the last position proven"
            " winnable), q quit; another key lists the keys. Each step shows the game's hindsight"
            " verdict in one line, the last step all of it. Piped, or with --all, it prints every step."
        ),
    )
    rp.add_argument("race")
    rp.add_argument("--player", help="only this player")
    rp.add_argument("--all", action="store_true", help="print every step instead of stepping")
    rp.add_argument(
        "--no-hindsight",
        action="store_true",
        help="skip the server's analysis of where each game was lost (the stock known)",
    )
    server(rp)
    json_flag(rp)

    d = sub.add_parser(
        "daily",
        help="today's deal: its board, and your one rated attempt (or practice)",
        description="The daily deal: everyone races the same deal, at any time of the day.",
    )
    d.add_argument("--variant", default="terrace", choices=variants)
    d.add_argument("--day", help="a past day (YYYY-MM-DD): its revealed deal and board; practice on it")
    show_or_play = d.add_mutually_exclusive_group()  # --board only shows; --practice plays
    show_or_play.add_argument("--board", action="store_true", help="only show the day and its board")
    show_or_play.add_argument(
        "--practice", action="store_true", help="play again after your rated attempt, unrated"
    )
    d.add_argument("--pool", choices=["humans", "bots"], help="whose board (default: your kind's)")
    d.add_argument("--ghosts", type=int, default=3, help="earlier attempts to race against, 0-8 (default 3)")
    d.add_argument("--name", help="play as a guest with this name (default: your registered account)")
    d.add_argument("--yes", action="store_true", help="start the rated attempt without asking first")
    server(d)
    json_flag(d)

    v = sub.add_parser("verify", help="check a finished race from its record", description="Verify a race.")
    v.add_argument("race", nargs="?", help="race id (may be left out with --file)")
    v.add_argument("--file", help="check a record saved as JSON (by --save) instead of fetching it")
    v.add_argument(
        "--save", metavar="FILE", help="write the fetched record to FILE (JSON), to check again offline"
    )
    server(v)
    json_flag(v)

    ar = sub.add_parser(
        "arena",
        help="arenas: list, standings, verify, join",
        description="Arenas: timed tournaments of race after race.",
    )
    ar.add_argument(
        "action",
        choices=["list", "show", "verify", "join"],
        help="list the arenas; show one's standings (--watch: live); verify all its races; join it and race",
    )
    ar.add_argument("arena", nargs="?", help="arena id (all but list)")
    ar.add_argument(
        "--watch", action="store_true", help="show: keep the standings updating until the arena ends"
    )
    ar.add_argument("--name", help="join: race as a guest with this name (default: your registered account)")
    server(ar)
    json_flag(ar)
    return p, dict(sub.choices)


def _command(name: str) -> Command:
    from . import arena, daily, lobby, play, records

    commands: dict[str, Command] = {
        "play": play.play,
        "practice": _practice,
        "races": lobby.races,
        "watch": lobby.watch,
        "top": lobby.top,
        "register": records.register,
        "replay": records.replay,
        "verify": records.verify,
        "daily": daily.daily,
        "arena": arena.command,
    }
    return commands[name]


PRACTICE_QUIT = "Quit practice? This game is not kept. Type y to quit, anything else to play on."


async def _practice(args: argparse.Namespace, out: Console) -> int:
    from .practice import PracticeTable
    from .screen import Screen

    table = PracticeTable(args.variant, args.deal)
    ended = await Screen(table, confirm=("quit",), questions={"quit": PRACTICE_QUIT}).run()
    if ended:
        out.print(ended)
    return 0


def _usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with a command's arguments that argparse cannot say, or None."""
    for flag in ("seats", "deal", "page", "limit"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            return f"--{flag} must be at least 1"
    if not 1 <= getattr(args, "count", 10) <= 100:
        return "--count must be 1..100"
    if getattr(args, "winnable", False) and not (args.queue or args.create):
        return "--winnable goes with --queue or --create"
    if args.command == "play":  # options that would be dropped without a word
        if args.seats is not None and not args.create:
            return "--seats goes with --create"
        if args.goal and not (args.queue or args.create):
            return "--goal goes with --queue or --create"
    if not 0 <= getattr(args, "ghosts", 3) <= 8:
        return "--ghosts must be 0..8"
    if args.command == "verify" and not (args.race or args.file):
        return "give a race id, or --file with a saved record"
    if args.command == "verify" and args.save and not args.race:
        return "--save goes with a race id (it saves the record fetched from the server)"
    if args.command == "arena" and args.action != "list" and not args.arena:
        return f"{args.action} needs an arena id"
    return None


CLOSED_STDOUT = 141  # the exit status a shell reports for a program killed by SIGPIPE (128 + 13)


class _PipeGuard:
    """sys.stdout, ending the program quietly once whoever reads it has gone.

    ``terrace play | head -20``: once head exits, the next write raises BrokenPipeError
    wherever it is: in the command, in rich, or in a push callback, where the connection's
    reader would take it for an unreadable frame and reconnect (and a SystemExit raised
    there comes back out of the connection's close as a logged traceback). So the program
    ends at once, as one killed by SIGPIPE does: stderr flushed, nothing more written to
    the closed pipe, exit status 141 (what a shell shows for ``cat`` killed by SIGPIPE;
    1 would say the server refused). The kernel closes the sockets: the server sees a
    dropped connection, and the race can be resumed within its grace period. Restoring
    SIGPIPE's default action instead would also kill us on a write to a socket the
    server has closed.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._gone()

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding...: the stream's own
        return getattr(self._stream, name)

    def _gone(self) -> NoReturn:
        sys.stderr.flush()
        os._exit(CLOSED_STDOUT)


def main(argv: list[str] | None = None) -> int:
    stdout = sys.stdout
    if not stdout.isatty():  # only a pipe (or a socket) can lose its reader
        sys.stdout = cast(TextIO, _PipeGuard(stdout))
    try:
        p, commands = _parsers()
        args = p.parse_args(argv)
        wrong = _usage_error(args)
        if wrong:
            commands[args.command].error(wrong)  # that command's usage, not terrace's
        if args.command == "play" and args.seats is None:
            args.seats = 2
        out = Console(highlight=False)
        work = _command(args.command)(args, out)
        if getattr(args, "json", False):
            from .errors import as_json

            work = as_json(work)  # a script reading JSON gets its errors as JSON too
        # watching ends with Ctrl-C as a matter of course: that is a success, not an interruption
        watching = args.command == "watch" or getattr(args, "watch", False)
        code = run_command(work, "terrace", interrupted=0 if watching else 130)
        sys.stdout.flush()  # what is still buffered, while a closed pipe can still end us quietly
        return code
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
