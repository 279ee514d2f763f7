"""The commands the client suggests (race again, come back, replay, verify), written so
that they run as printed: with this run's ``--server`` unless it is the default one, and,
for the commands that take it, its ``--name``."""

from __future__ import annotations

import argparse
import shlex

from link.connection import default_server


def server_flag(server: str | None) -> str:
    """`` --server URL`` when ``server`` is not the one a bare command would reach, else ''."""
    if not server or server == default_server():
        return ""
    return f" --server {shlex.quote(server)}"


def command(args: argparse.Namespace, words: str, *, name: bool = False) -> str:
    """``words`` with this run's server (and, when ``name``, its ``--name``) added."""
    text = words + server_flag(getattr(args, "server", None))
    chosen = getattr(args, "name", None) if name else None
    return text + (f" --name {shlex.quote(chosen)}" if chosen else "")
