"""Running a client program's command: until it is done or interrupted, refusals as one line.

The ``terrace`` and ``terrace-bot`` commands both run their work through
:func:`run_command`: SIGINT and SIGTERM cancel it cleanly, and a server that
cannot be reached or refuses prints one line (``PROG: reason``) and exits 1,
never a traceback.
"""

from __future__ import annotations

import asyncio
import shutil
import signal
import sys
import textwrap
from collections.abc import Awaitable
from typing import TextIO

from terrace.wire.session import HelloRefused

from .connection import Offline, Refused


def interrupt_handled() -> None:
    """Tell :func:`run_command` that the command handled the Ctrl-C it was cancelled for (it
    leaves a queue, an arena, stops waiting): the command goes on to end as it chooses, and
    what it awaits meanwhile (a goodbye to the server) is not cancelled with it."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        task.uncancel()


def fitted(text: str, stream: TextIO) -> str:
    """``text`` broken between words to fit a terminal's width (a terminal breaks a long line at
    its last column, mid-word); unchanged for a pipe or a file, where a line is a line."""
    if not stream.isatty():
        return text
    width = shutil.get_terminal_size().columns
    return "\n".join(
        textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False) or line
        for line in text.splitlines()
    )


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
            print(fitted(f"{prog}: {exc}", sys.stderr), file=sys.stderr)
            return 1
        except asyncio.CancelledError:
            return interrupted

    return asyncio.run(guarded())
