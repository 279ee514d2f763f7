"""Winnable-only races: seeds drawn until the solver proves one winnable, off the event loop.

``create {deals: "winnable"}`` makes the server draw random 32-byte seeds and
solve each deal from its start (``terrace.solve``, stock known) with at most
``NODES_PER_SEED`` positions, until one is proven winnable or the server's
``winnable_seconds`` (``--winnable-seconds``, default 8) have passed. The work runs in the server's worker processes (the pool of the lost
search), so the event loop and its GIL never wait for it; the creator's
connection answers its requests in order, so it waits for its ``created``. After
that time with no proven deal the create is refused with ``no_winnable_deal``
and nothing is made. The race then commits to the seed as any race does, and its
record carries the solver's line as ``solution``, which ``terrace.audit`` replays.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from concurrent.futures import Executor
from dataclasses import dataclass

from terrace import new_game
from terrace.solve import WON, solve

NODES_PER_SEED = 40_000  # about a second of search per seed on one core


@dataclass(frozen=True)
class Drawn:
    """A seed the solver proved winnable, with its winning line."""

    seed: bytes
    solution: list[str]


def draw(variant: str, rules_version: int, seconds: float, nodes: int = NODES_PER_SEED) -> Drawn | None:
    """Random seeds, each solved, until one is won or ``seconds`` pass (in a worker process)."""
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
