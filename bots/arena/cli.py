"""The arena: measure a bot offline over a set of public numbered deals, or two bots head to head.

    terrace-arena greedy                                   # deals 1-100 of the terrace variant
    terrace-arena mybot:MyBot --variant louis,signora --deals seeds/bench-1000.txt
    terrace-arena planner --vs greedy --deals 1-300 --json --per-deal
    terrace-arena solve --deals 1-200 --seconds 1      # the solver's figures (bots/arena/solving.py)

No server: each game runs in-process on the rules engine, on a pool of worker
processes (``--jobs``, started with ``spawn``, so the arena is safe to call from
threaded programs). Every game gets a fresh bot instance; the bot sees
``start({"race", "variant", "goal"})``, then
``choose(view, legal)`` until the game is won or lost, the bot resigns (None),
``--max-moves`` is reached ("capped") or the bot errs (an exception, a move the
engine refuses, or something that is not a move: "error", and the game ends
there), then ``finish(result)``. ``choose`` may return an awaitable (an ``async
def``); it is run on a per-game event loop. Anything the bot prints goes to
stderr, so ``--json`` stays parseable.

The goal is ``terrace`` (empty the terrace) for the Terrace family and ``clear``
(win) for Louis, which has no terrace. Head to head (``--vs``) ranks the two
games of each deal as a race would: reaching the goal beats not reaching it;
between two that reached it, fewer moves at that moment wins; otherwise the
higher score, then fewer terrace cards left; anything else is a draw.

Figures are deterministic for deterministic bots: the same with any ``--jobs``,
in deal order; only the decision times (measured around ``choose`` and its
awaitable, nothing else) vary from run to run.

Kept as one module (about 370 lines): the command's options, its report and its
head-to-head table are one user-facing thing; the games and figures live in
``games.py`` and ``figures.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import terrace
from bots.arena.deals import load_deals
from bots.arena.figures import head_to_head, summarize
from bots.arena.games import DEFAULT_MAX_MOVES, FINISHES, GameResult, describe_error, run_games
from bots.bot import SAMPLES, BotFactory, load_bot

__all__ = ["main"]

PROG = "terrace-arena"
DEFAULT_DEALS = "1-100"
SCHEMA = 1  # version of the --json document

# ----- the command ---------------------------------------------------------------------------

EPILOG = f"""\
bots: MODULE:CLASS (the current directory is importable) or a sample: {", ".join(SAMPLES)}.
deals: a range 1-100, a number, a comma list 1-50,70,90-99, or a file of one number per
  line (# comments); default {DEFAULT_DEALS}, so the arena works from any directory
  (the benchmark set is seeds/bench-1000.txt).
finish reasons: won, lost, resigned (choose returned None), capped (--max-moves reached),
  error (the bot raised, or played a move the engine refuses; the game ends there).
exit status: 0 done; 1 done, but some game had a bot error (see "errors"); 2 bad usage
  (bot, deals, variant or option); 130 interrupted.

terrace-arena solve [--deals D] [--variant V] [--nodes N] [--seconds S] [--jobs N]:
  the solver's figures instead of a bot's: how many deals it proves winnable or lost
  with the stock known, within a budget per deal (terrace-arena solve --help).
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Measure a bot offline on numbered deals (no server), or two bots head to head.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bot", metavar="BOT", help=f"the bot: MODULE:CLASS or a sample: {', '.join(SAMPLES)}")
    p.add_argument(
        "--variant",
        action="append",
        metavar="V",
        help=f"variant(s), repeatable or comma separated, or all: {', '.join(terrace.VARIANTS)} "
        "(default: terrace)",
    )
    p.add_argument(
        "--deals", default=DEFAULT_DEALS, metavar="FILE|RANGE", help="deal set (default: %(default)s)"
    )
    p.add_argument(
        "--vs", metavar="BOT", help="a second bot on the same deals: both figures and head to head"
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="worker processes (default: %(default)s)",
    )
    p.add_argument(
        "--max-moves",
        type=int,
        default=DEFAULT_MAX_MOVES,
        metavar="N",
        help="a game still going after N moves ends as capped (default: %(default)s)",
    )
    p.add_argument("--json", action="store_true", help="print a JSON document instead of tables")
    p.add_argument("--per-deal", action="store_true", help="with --json: every game's result too")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it shows only on a terminal)")
    return p


class UsageError(Exception):
    """A bad command line: reported on one line, exit status 2."""


def _variants(values: Iterable[str] | None) -> list[str]:
    chosen: list[str] = []
    for value in values or ["terrace"]:
        for name in (v.strip() for v in value.split(",")):
            if not name:
                continue
            names = list(terrace.VARIANTS) if name == "all" else [name]
            for v in names:
                if v not in terrace.VARIANTS:
                    raise UsageError(
                        f"unknown variant {v!r} (choose from {', '.join(terrace.VARIANTS)}, all)"
                    )
                if v not in chosen:
                    chosen.append(v)
    if not chosen:
        raise UsageError("no variant given")
    return chosen


def _deals(spec: str) -> list[int]:
    try:
        return load_deals(spec)
    except ValueError as exc:
        raise UsageError(f"--deals: {exc}") from None
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise UsageError(f"--deals {spec!r}: not a range like 1-100 nor a readable file ({why})") from None


def _check_bot(spec: str) -> BotFactory:
    try:
        return load_bot(spec)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # the module itself failed while importing
        raise UsageError(f"bot {spec!r}: importing it failed: {describe_error(exc)}") from None


def _bot_info(label: str, spec: str, factory: BotFactory) -> dict[str, Any]:
    module = getattr(factory, "__module__", "?")
    qualname = getattr(factory, "__qualname__", type(factory).__name__)
    return {
        "label": label,
        "spec": spec,
        "class": f"{module}:{qualname}",
        "name": getattr(factory, "name", qualname),
    }


def build_report(
    args: argparse.Namespace,
    specs: Sequence[str],
    factories: Sequence[BotFactory],
    variants: Sequence[str],
    deals: Sequence[int],
    games: Sequence[GameResult],
    seconds: float,
    argv: Sequence[str] | None,
) -> dict[str, Any]:
    """The whole report as plain data (what ``--json`` prints)."""
    labels = ["A", "B"] if len(specs) == 2 else ["A"]
    by: dict[tuple[int, str], list[GameResult]] = {}
    for g in games:
        by.setdefault((g.bot, g.variant), []).append(g)
    bots = []
    for b, spec in enumerate(specs):
        info = _bot_info(labels[b], spec, factories[b])
        info["variants"] = {v: summarize(by.get((b, v), []), v) for v in variants}
        info["errors"] = sum(s["errors"] for s in info["variants"].values())
        if args.per_deal:
            info["games"] = [g.to_dict() for v in variants for g in by.get((b, v), [])]
        bots.append(info)
    h2h = None
    if len(specs) == 2:
        h2h = {v: head_to_head(by.get((0, v), []), by.get((1, v), []), args.per_deal) for v in variants}
    return {
        "schema": SCHEMA,
        "machine": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
        },
        "command": shlex.join([PROG, *(sys.argv[1:] if argv is None else argv)]),
        "args": {
            "bots": list(specs),
            "variants": list(variants),
            "deals": args.deals,
            "deal_count": len(deals),
            "jobs": args.jobs,
            "max_moves": args.max_moves,
        },
        "bots": bots,
        "head_to_head": h2h,
        "errors": sum(b["errors"] for b in bots),
        "seconds": round(seconds, 3),
    }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def _num(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _ms(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def print_report(report: dict[str, Any], console: Any) -> None:
    """Tables for people: figures and finish reasons per bot and variant, head to head, errors."""
    from rich import box
    from rich.table import Table

    vs = report["head_to_head"] is not None
    a = report["args"]

    def table(title: str, *columns: str) -> Table:
        t = Table(
            title=title, title_justify="left", box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False
        )
        t.add_column("variant")
        if vs:
            t.add_column("bot")
        for name in columns:
            t.add_column(name, justify="right")
        return t

    def rows() -> Iterable[tuple[list[str], dict[str, Any]]]:
        for v in a["variants"]:
            for b in report["bots"]:
                yield [v, b["label"]] if vs else [v], b["variants"][v]

    bots = " vs ".join(f"{b['label']}: {b['spec']}" if vs else b["spec"] for b in report["bots"])
    figures = table(
        f"{bots} — {a['deal_count']} deals ({a['deals']})",
        *("games", "win", "cleared", "score", "moves", "to goal", "p50", "p99"),
    )
    finishes = table("how the games ended", *FINISHES, "bot errors")
    for key, s in rows():
        d = s["decision_ms"]
        figures.add_row(
            *key,
            str(s["games"]),
            _pct(s["win_rate"]),
            _pct(s["terrace_cleared_rate"]),
            _num(s["mean_score"]),
            _num(s["mean_moves"]),
            _num(s["mean_goal_moves"]),
            "–" if d is None else _ms(d["p50"]),
            "–" if d is None else _ms(d["p99"]),
        )
        finishes.add_row(*key, *(str(s["finish"][r]) for r in FINISHES), str(s["errors"]))
    console.print(figures)
    console.print(
        "win: games won; cleared: terrace emptied by the end; score: cards home; to goal: mean moves "
        "when the goal was reached (terrace; Louis: won); p50/p99: ms in choose per decision",
        markup=False,
    )
    console.print()
    console.print(finishes)
    if vs:
        h2h = Table(
            title="head to head, ranked as a race",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            collapse_padding=True,
            pad_edge=False,
        )
        h2h.add_column("variant")
        for name in ("deals", "A wins", "B wins", "draws"):
            h2h.add_column(name, justify="right")
        for v, h in report["head_to_head"].items():
            h2h.add_row(v, str(h["deals"]), str(h["a"]), str(h["b"]), str(h["draws"]))
        console.print(h2h)
    for b in report["bots"]:
        for v, s in b["variants"].items():
            for e in s["error_examples"]:
                console.print(f"error: {b['spec']} {v} deal {e['deal']}: {e['error']}", markup=False)
    console.print(
        f"max moves {a['max_moves']}, jobs {a['jobs']}, {report['seconds']:.1f} s | "
        f"{report['machine']['python']} {report['machine']['platform']}",
        markup=False,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The ``terrace-arena`` command; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["solve"]:
        from bots.arena.solving import main as solve_main

        return solve_main(args_list[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or argparse's own usage errors
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # `terrace-arena mybot:MyBot` next to mybot.py (workers inherit it)
    try:
        if args.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        if args.max_moves < 1:
            raise UsageError("--max-moves must be at least 1")
        variants = _variants(args.variant)
        deals = _deals(args.deals)
        specs = [args.bot] if args.vs is None else [args.bot, args.vs]
        factories = [_check_bot(spec) for spec in specs]
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2

    from rich.console import Console

    err = Console(stderr=True)
    total = len(specs) * len(variants) * len(deals)
    started = time.perf_counter()
    try:
        if err.is_terminal and not args.no_progress:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            columns = (TextColumn("arena"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            with Progress(*columns, console=err, transient=True) as bar:
                task = bar.add_task("games", total=total)
                games = run_games(
                    specs,
                    variants,
                    deals,
                    max_moves=args.max_moves,
                    jobs=args.jobs,
                    progress=lambda n: bar.advance(task, n),
                )
        else:
            games = run_games(specs, variants, deals, max_moves=args.max_moves, jobs=args.jobs)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenProcessPool:
        print(
            f"{PROG}: a worker process died (a bot may have ended it); try --jobs 1 to see", file=sys.stderr
        )
        return 1
    seconds = time.perf_counter() - started
    report = build_report(args, specs, factories, variants, deals, games, seconds, argv)
    try:
        if args.json:
            print(json.dumps(report, indent=2, ensure_ascii=False), flush=True)
        else:
            print_report(report, Console(highlight=False, width=None if sys.stdout.isatty() else 200))
            sys.stdout.flush()
    except BrokenPipeError:  # `terrace-arena ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
