"""The ``terrace`` command's entry point. Importing the client takes about a second; a
Ctrl-C meanwhile (or while the options are read, before the command's own handling of
Ctrl-C starts) ends the program quietly with 130, as a shell expects, not with a traceback."""

from __future__ import annotations

INTERRUPTED = 130


def main() -> int:
    try:
        from .cli import main as run

        return run()
    except KeyboardInterrupt:
        return INTERRUPTED
