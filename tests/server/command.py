"""The installed ``terrace-server`` command as tests start it: its path, the line it
prints when listening, a clean environment, and a server run for the length of a block."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

COMMAND = str(Path(sys.executable).parent / "terrace-server")  # the installed console script
LISTEN = re.compile(r"^terrace-server listening on (ws://127\.0\.0\.1:(\d+)/ws)$")


def clean_env(**changes: str) -> dict[str, str]:
    """This process's environment without any ``TERRACE_`` setting, plus ``changes``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TERRACE_")}
    env.update(changes)
    return env


@asynccontextmanager
async def serving(*flags: str) -> AsyncIterator[tuple[str, int]]:
    """``terrace-server --port 0 FLAGS`` for the block: yields its websocket URL and port;
    afterwards it must stop on SIGTERM with status 0 and no traceback."""
    proc = subprocess.Popen(
        [COMMAND, "--port", "0", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.to_thread(proc.stdout.readline)
        match = LISTEN.match(line.rstrip("\n"))
        assert match, line
        yield match.group(1), int(match.group(2))
    finally:
        proc.terminate()
        assert await asyncio.to_thread(proc.wait, 10) == 0
        assert proc.stderr is not None and "Traceback" not in proc.stderr.read()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
