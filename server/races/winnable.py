"""Winnable-only races: seeds drawn until the solver proves one winnable, off the event loop.

``create {deals: "winnable"}`` makes the server draw random 32-byte seeds and
solve each deal from its start (``terrace.solve``, stock known) with at most
``NODES_PER_SEED`` positions (signora: ``SIGNORA_NODES_PER_SEED``), until one is
proven winnable or the server's ``winnable_seconds`` (``--winnable-seconds``,
default 8) have passed. The work runs in the server's worker processes (the pool of the lost
search), so the event loop and its GIL never wait for it; the creator's
connection answers its requests in order, so it waits for its ``created``. After
that time with no proven deal the create is refused with ``no_winnable_deal``
and nothing is made. The race then commits to the seed as any race does, and its
record carries the solver's line as ``solution``, which ``terrace.race.audit`` replays.

Matchmaking (``queue {deals: "winnable"}``) keeps a :class:`Reserve`: one deal drawn
ahead for each winnable queue, from the moment someone first queues in it. A due group
takes the deal and its race starts like any other; the next deal for that queue is drawn
at once, so the next group finds it ready (one deal kept per queue: a few dozen at most).
A group that is due before its deal is ready waits in the queue for it (players may
still ``unqueue``); a draw that proves nothing within ``winnable_seconds`` is followed
by another for as long as someone waits. The reserve draws one deal at a time, in one
worker process, so the others stay free for the lost search of live races.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from dataclasses import dataclass

from terrace import new_game
from terrace.rules.versions import RULES_VERSION
from terrace.solve import WON, solve

log = logging.getLogger("terrace.server")

NODES_PER_SEED = 40_000  # about a second of search per seed on one core
# Signora's win-finder (a beam over the stock's cards, sized to the budget) proves more deals
# per second in many short solves than in a few long ones: signora deals 1-40 won per CPU
# second at 6,000 / 10,000 / 15,000 / 25,000 / 40,000 positions: 0.13 / 0.36 / 0.50 / 0.37 / 0.27.
SIGNORA_NODES_PER_SEED = 15_000


def nodes_per_seed(variant: str) -> int:
    """The positions one seed of ``variant`` is solved with before the draw moves on."""
    return SIGNORA_NODES_PER_SEED if variant == "signora" else NODES_PER_SEED


@dataclass(frozen=True)
class Drawn:
    """A seed the solver proved winnable, with its winning line."""

    seed: bytes
    solution: list[str]


def draw(variant: str, rules_version: int, seconds: float, nodes: int | None = None) -> Drawn | None:
    """Random seeds, each solved with ``nodes`` positions (:func:`nodes_per_seed` by default),
    until one is won or ``seconds`` pass (in a worker process)."""
    if nodes is None:
        nodes = nodes_per_seed(variant)
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        seed = secrets.token_bytes(32)
        answer = solve(new_game(variant, seed, rules_version=rules_version), nodes=nodes, seconds=left)
        if answer.verdict == WON:
            return Drawn(seed, list(answer.moves))
    return None


async def draw_winnable(executor: Executor, variant: str, rules_version: int, seconds: float) -> Drawn | None:
    """:func:`draw` in ``executor``, awaited without holding the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor, draw, variant, rules_version, seconds)


class Draws:
    """The line for draws made on demand (``create {deals: "winnable"}``, ``challenge_create``).

    Each draw holds a worker for up to ``winnable_seconds``, in the pool the lost search of
    live races needs. Unchecked, a flood of such requests from many connections of one
    address queued a draw per connection in that pool: everyone else's moves and draws
    waited behind them all. So at most ``at_once`` draws run at a time (one fewer than the
    workers: one is always free for the lost search), and one address's draws go one after
    another: it holds one place in the line however many connections it opens, and a
    request from another address waits for at most one draw per address ahead of it.
    A drawing worker cannot be stopped, so a draw keeps its place until the worker is done,
    even if its requester has gone.
    """

    def __init__(self, executor: Executor, at_once: int) -> None:
        self.executor = executor
        self._at_once = asyncio.Semaphore(max(1, at_once))
        self._addresses: dict[str, tuple[asyncio.Lock, int]] = {}  # address -> its turn, users

    async def draw(self, address: str, variant: str, rules_version: int, seconds: float) -> Drawn | None:
        """:func:`draw_winnable` in its turn (see the class docstring)."""
        lock, users = self._addresses.get(address, (asyncio.Lock(), 0))
        self._addresses[address] = (lock, users + 1)
        try:
            await lock.acquire()
            try:
                await self._at_once.acquire()
            except BaseException:
                lock.release()
                raise
        except BaseException:
            self._leave(address)
            raise
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self.executor, draw, variant, rules_version, seconds)
        except BaseException:  # a pool shut down: nothing runs, the turn passes on
            self._done(address, lock)
            raise
        future.add_done_callback(lambda f: self._done(address, lock, f))
        return await asyncio.shield(future)  # a requester gone leaves the worker (and the turn) to end

    def _done(
        self, address: str, lock: asyncio.Lock, future: asyncio.Future[Drawn | None] | None = None
    ) -> None:
        if future is not None and not future.cancelled():
            future.exception()  # read here: a requester gone never reads it
        self._at_once.release()
        lock.release()
        self._leave(address)

    def _leave(self, address: str) -> None:
        lock, users = self._addresses[address]
        if users <= 1:
            del self._addresses[address]
        else:
            self._addresses[address] = (lock, users - 1)


class Reserve:
    """A winnable deal drawn ahead for each winnable queue (see the module docstring).

    ``wanted(key)``: whether anyone still waits in the queue (a draw that proved nothing is
    tried again only then). ``ready(key)`` is called on the event loop when a deal for ``key``
    is drawn.
    """

    def __init__(
        self,
        executor: Executor,
        seconds: float,
        wanted: Callable[[Hashable], bool],
        ready: Callable[[Hashable], None],
    ) -> None:
        self.executor = executor
        self.seconds = seconds
        self._wanted = wanted
        self._ready = ready
        self._deals: dict[Hashable, Drawn] = {}
        self._drawing: dict[Hashable, asyncio.Task[None]] = {}
        self._one_draw = asyncio.Semaphore(1)  # one worker at most: the others serve live races

    def has(self, key: Hashable) -> bool:
        return key in self._deals

    def want(self, key: Hashable, variant: str) -> None:
        """Start drawing a deal for ``key`` unless one is ready or being drawn."""
        if key in self._deals or key in self._drawing:
            return
        task = asyncio.get_running_loop().create_task(self._draw(key, variant))
        self._drawing[key] = task
        task.add_done_callback(lambda t: self._drawing.pop(key) if self._drawing.get(key) is t else None)

    def take(self, key: Hashable, variant: str) -> Drawn | None:
        """The ready deal for ``key`` (None if there is none); the next one is drawn at once."""
        drawn = self._deals.pop(key, None)
        if drawn is not None:
            self.want(key, variant)
        return drawn

    async def _draw(self, key: Hashable, variant: str) -> None:
        while True:
            try:
                async with self._one_draw:
                    drawn = await draw_winnable(self.executor, variant, RULES_VERSION, self.seconds)
            except Exception:  # a broken pool (the server stopping): nothing to hand out
                log.exception("drawing a winnable deal for the queue %s failed", key)
                return
            if drawn is not None:
                self._drawing.pop(key, None)  # done: taking this deal may start the next draw
                self._deals[key] = drawn
                self._ready(key)
                return
            if not self._wanted(key):
                return
            log.info("no winnable deal proven for the queue %s within %g s; drawing again", key, self.seconds)
