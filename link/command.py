"""Running a client program's command: until it is done or interrupted, refusals as one line.

The ``terrace`` and ``terrace-bot`` commands both run their work through
:func:`run_command`: SIGINT and SIGTERM cancel it cleanly, and a server that
cannot be reached or refuses prints one line (``PROG: reason``) and exits 1,
never a traceback.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable

from terrace.wire.session import HelloRefused

from .connection import Offline, Refused


def interrupt_handled() -> None:
    """Tell :func:`run_command` that the command handled the Ctrl-C it was cancelled for (it
    leaves a queue, an arena, stops waiting): the command goes on to end as it chooses, and
    what it awaits meanwhile (a goodbye to the server) is not cancelled with it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        task.uncancel()


def run_command(
    work: Awaitable[int],
    prog: str,
    *,
    refusals: tuple[type[Exception], ...] = (),
    interrupted: int = 130,
) -> int:
    """Run ``work`` to its exit code; ``refusals`` are more exceptions reported as one line (exit 1)."""

    async def guarded() -> int:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            if task is not None:
                loop.add_signal_handler(sig, task.cancel)
        reported: tuple[type[Exception], ...] = (Offline, Refused, HelloRefused, *refusals)
        try:
            return await work
        except reported as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 1
        except asyncio.CancelledError:
            return interrupted

    return asyncio.run(guarded())
