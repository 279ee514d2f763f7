"""Offline games of a bot on numbered deals: one game, or many over a pool of worker processes.

Every game gets a fresh bot; its decisions are timed around ``choose`` alone.
Results come back in deal order whatever the number of workers, so figures
are the same for any ``--jobs``.
"""

import asyncio
import concurrent.futures as cf
import hashlib
import inspect
import math
import multiprocessing
import signal
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from contextlib import redirect_stdout
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import terrace
from bots.bot import BotFactory, load_bot

FINISHES = ("won", "lost", "resigned", "capped", "error")
DEFAULT_MAX_MOVES = 3000
MAX_CHUNK = 25  # games per task sent to a worker; smaller chunks balance better, larger cost less

Progress = Callable[[int], None]  # called with the number of games just finished
Hook = Callable[[dict[str, Any]], object]  # a bot's start or finish


# ----- one game ------------------------------------------------------------------------------


@dataclass
class GameResult:
    """How one game of one bot went. ``times_ms`` (every decision's time) stays out of the JSON."""

    bot: int  # 0: BOT, 1: the --vs bot
    variant: str
    deal: int
    finish: str  # one of FINISHES
    status: str  # the engine's status at the end: won, lost or playing
    score: int
    terrace_left: int
    moves: int
    goal_moves: int | None  # moves played when the goal was reached; None if never
    decisions: int
    think_ms: float  # total time in choose
    error: str | None
    times_ms: list[float] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        del d["times_ms"], d["bot"]
        d["think_ms"] = round(self.think_ms, 3)
        return d


def goal_of(variant: str) -> str:
    """The race goal the arena ranks by: ``terrace`` where the variant has one, else ``clear``."""
    return terrace.VARIANTS[variant].default_goal


def _reached(goal: str, game: terrace.Game) -> bool:
    return game.status == "won" or (goal == "terrace" and game.terrace_left == 0)


def describe_error(exc: BaseException) -> str:
    """One line: the exception, and where in the bot's code it was raised."""
    text = " ".join(str(exc).split())
    where = ""
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        where = f" (at {Path(last.filename).name}:{last.lineno})"
    return f"{type(exc).__name__}{': ' + text if text else ''}{where}"


async def _wait(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


class _Loop:
    """A per-game event loop, made only if the bot returns an awaitable."""

    def __init__(self) -> None:
        self.runner: asyncio.Runner | None = None

    def resolve(self, value: Any) -> Any:
        if not inspect.isawaitable(value):
            return value
        if self.runner is None:
            self.runner = asyncio.Runner()
        return self.runner.run(_wait(value))

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()


_BOT_ERRORS = (Exception, SystemExit)  # a bot calling sys.exit() ends its game, not the arena


def arena_race_id(variant: str, deal: int) -> str:
    """A race id that is the same every run but does not give away the deal: a bot that
    knew the public deal number could recompute the hidden stock."""
    return "arena-" + hashlib.sha256(f"{variant}:{deal}".encode()).hexdigest()[:12]


def play_game(factory: BotFactory, variant: str, deal: int, max_moves: int, bot: int = 0) -> GameResult:
    """One game of ``variant`` on numbered ``deal`` with a fresh bot from ``factory``."""
    goal = goal_of(variant)
    game = terrace.new_game(variant, deal=deal)
    race = {"race": arena_race_id(variant, deal), "variant": variant, "goal": goal}
    loop = _Loop()
    times: list[float] = []
    finish: str | None = None
    error: str | None = None
    goal_moves = len(game.moves) if _reached(goal, game) else None
    player = None
    try:
        player = factory()
    except _BOT_ERRORS as exc:
        finish, error = "error", f"creating the bot: {describe_error(exc)}"
    try:
        if player is not None:
            start: Hook = player.start  # an async def start is awaited too
            loop.resolve(start(dict(race)))
    except _BOT_ERRORS as exc:
        finish, error = "error", f"start: {describe_error(exc)}"
    while finish is None and player is not None:
        status = game.status
        if status != "playing":
            finish = status
            break
        if len(game.moves) >= max_moves:
            finish = "capped"
            break
        legal = game.legal_moves()
        if not legal:  # the engine calls such a position lost; this is only a safety net
            finish = "lost"
            break
        view = game.view()
        started = time.perf_counter()
        try:
            choice = loop.resolve(player.choose(view, list(legal)))
        except _BOT_ERRORS as exc:
            finish, error = "error", f"choose: {describe_error(exc)}"
            break
        finally:
            times.append((time.perf_counter() - started) * 1000)
        if choice is None:
            finish = "resigned"
            break
        if not isinstance(choice, str):
            finish, error = "error", f"choose returned {type(choice).__name__} {choice!r}, not a move or None"
            break
        try:
            game.play(choice)
        except terrace.IllegalMove as exc:
            finish, error = "error", f"illegal move {choice!r}: {exc.code}: {exc.message}"
            break
        if goal_moves is None and _reached(goal, game):
            goal_moves = len(game.moves)
    assert finish is not None
    result = GameResult(
        bot=bot,
        variant=variant,
        deal=deal,
        finish=finish,
        status=game.status,
        score=game.score,
        terrace_left=game.terrace_left,
        moves=len(game.moves),
        goal_moves=goal_moves,
        decisions=len(times),
        think_ms=sum(times),
        error=error,
        times_ms=times,
    )
    if player is not None:
        try:
            finished: Hook = player.finish
            loop.resolve(finished({**race, **result.to_dict()}))
        except _BOT_ERRORS as exc:
            result.error = result.error or f"finish: {describe_error(exc)}"
    loop.close()
    return result


# ----- many games ----------------------------------------------------------------------------

Task = tuple[int, str, str, tuple[int, ...], int]  # bot index, bot spec, variant, deals, max moves

_FACTORIES: dict[str, BotFactory] = {}


def _factory(spec: str) -> BotFactory:
    if spec not in _FACTORIES:
        _FACTORIES[spec] = load_bot(spec)
    return _FACTORIES[spec]


_COUNTED: Any = None  # in a worker: the queue each finished game is counted on, for the progress bar


def run_chunk(task: Task, progress: Progress | None = None) -> list[GameResult]:
    """Play one task's games in order (in a worker process, or inline with ``--jobs 1``)."""
    bot, spec, variant, deals, max_moves = task
    factory = _factory(spec)
    results = []
    with redirect_stdout(sys.stderr):  # a bot's prints must not mix with the report
        for deal in deals:
            results.append(play_game(factory, variant, deal, max_moves, bot))
            if progress is not None:
                progress(1)
            elif _COUNTED is not None:
                _COUNTED.put(1)
    return results


def _init_worker(counted: Any = None) -> None:
    global _COUNTED
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _COUNTED = counted


def _counting(counted: Any, progress: Progress) -> threading.Thread:
    """A thread that passes each game the workers count on to ``progress``, until a None."""

    def pump() -> None:
        while (n := counted.get()) is not None:
            progress(n)

    thread = threading.Thread(target=pump, name="arena-progress", daemon=True)
    thread.start()
    return thread


def _tasks(
    specs: Sequence[str], variants: Sequence[str], deals: Sequence[int], size: int, max_moves: int
) -> list[Task]:
    return [
        (b, spec, v, tuple(deals[i : i + size]), max_moves)
        for b, spec in enumerate(specs)
        for v in variants
        for i in range(0, len(deals), size)
    ]


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_games(
    specs: Sequence[str],
    variants: Sequence[str],
    deals: Sequence[int],
    *,
    max_moves: int = DEFAULT_MAX_MOVES,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[GameResult]:
    """Every bot of ``specs`` on every variant and deal: results by bot, variant, then deal order.

    ``jobs`` 1 plays in this process (in a thread if an event loop runs here);
    more spreads chunks of deals over that many ``spawn`` worker processes.
    Raises :class:`~concurrent.futures.process.BrokenProcessPool` if a worker dies.
    """
    if jobs <= 1:
        tasks = _tasks(specs, variants, deals, max(1, len(deals)), max_moves)
        if _loop_running():  # asyncio.Runner cannot start inside a running loop
            with cf.ThreadPoolExecutor(1) as thread:
                return thread.submit(_run_inline, tasks, progress).result()
        return _run_inline(tasks, progress)
    size = max(1, min(MAX_CHUNK, math.ceil(len(deals) / (jobs * 4))))
    tasks = _tasks(specs, variants, deals, size, max_moves)
    out: list[list[GameResult] | None] = [None] * len(tasks)
    context = multiprocessing.get_context("spawn")
    # Workers count every game as it ends, so the bar moves (and estimates) game by game.
    counted = context.SimpleQueue() if progress is not None else None
    counter = _counting(counted, progress) if counted is not None and progress is not None else None
    pool = cf.ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)),
        mp_context=context,
        initializer=_init_worker,
        initargs=(counted,),
    )
    try:
        futures = {pool.submit(run_chunk, task): i for i, task in enumerate(tasks)}
        for future in cf.as_completed(futures):
            out[futures[future]] = future.result()
    except BaseException:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()  # don't wait for chunks that are still running
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        if counted is not None and counter is not None:
            counted.put(None)
            counter.join(timeout=5)
    pool.shutdown()
    return [game for games in out if games is not None for game in games]


def _run_inline(tasks: list[Task], progress: Progress | None) -> list[GameResult]:
    return [game for task in tasks for game in run_chunk(task, progress)]
