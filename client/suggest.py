"""The commands the client suggests (race again, come back, replay, verify), written so
that they run as printed: with this run's ``--server`` unless it is the default one, and,
for the commands that take it, its ``--name``."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import urllib.parse

from link.connection import DEFAULT_SERVER, default_server


def server_flag(server: str | None) -> str:
    """`` --server URL`` when ``server`` is not the one a bare command would reach, else ''."""
    if not server or server == default_server():
        return ""
    return f" --server {shlex.quote(server)}"


def program() -> str:
    """How to run this command again: ``terrace`` when that is on the PATH, else the path it was
    run by (``.venv/bin/terrace``, as the README's quick start runs it, venv not activated)."""
    invoked = sys.argv[0] if sys.argv else ""
    if os.path.basename(invoked) != "terrace" or "/" not in invoked or shutil.which("terrace"):
        return "terrace"
    return shlex.quote(invoked)


def command(args: argparse.Namespace, words: str, *, name: bool = False) -> str:
    """``words`` with this run's server (and, when ``name``, its ``--name``) added; a leading
    ``terrace`` written as this run was started when a bare one would not be found."""
    if words.startswith("terrace "):
        words = program() + words.removeprefix("terrace")
    text = words + server_flag(getattr(args, "server", None))
    chosen = getattr(args, "name", None) if name else None
    return text + (f" --name {shlex.quote(chosen)}" if chosen else "")


def page_url(server: str, path: str) -> str:
    """The server's web page at ``path`` (``/play/ID``), from its websocket URL: the pages are
    served on the same host and port (``ws://h:p/ws`` -> ``http://h:p/play/ID``)."""
    parts = urllib.parse.urlsplit(server)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    base = parts.path.removesuffix("/ws") if parts.path.endswith("/ws") else ""
    return urllib.parse.urlunsplit((scheme, parts.netloc, base + path, "", ""))


def invitation(args: argparse.Namespace, race: str) -> list[str]:
    """What to send a friend so they join ``race``: its command and its page, each on a line
    of its own (so each is copied whole, and neither is broken inside at 80 columns)."""
    # the friend has not our TERRACE_SERVER: the server is named unless it is the built-in one
    server = "" if args.server == DEFAULT_SERVER else f" --server {shlex.quote(args.server)}"
    return [
        "Invite others: send them this command, or the page's link.",
        f"  terrace play --race {race}{server}",
        "  " + page_url(args.server, f"/play/{race}"),
    ]
