"""The house key: what lets the operator's house bots take the names kept for them (``house-...``).

A name that, folded like every name (``server.names``), begins with ``house`` is kept for the
operator's house: a ``hello`` or ``register`` of one must carry the server's house key. The
server takes its key from ``TERRACE_HOUSE_KEY`` (``--house-key``); without one it reads the key
file (``TERRACE_HOUSE_KEY_FILE``, by default :func:`default_path`), making it the first time.
``terrace-bot house`` reads the same variable, else the same file, so a server and a house on
one machine agree with nothing set. Several nodes (or a house on another machine) are given one
key in the variable.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

ENV_KEY = "TERRACE_HOUSE_KEY"
ENV_FILE = "TERRACE_HOUSE_KEY_FILE"


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the key file is kept when nobody says: ``$XDG_DATA_HOME/terrace-race/house.key``
    (``~/.local/share/terrace-race/house.key``)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "terrace-race" / "house.key"


def key_path(given: str = "", environ: Mapping[str, str] | None = None) -> Path:
    """The key file: ``given``, else ``$TERRACE_HOUSE_KEY_FILE``, else :func:`default_path`."""
    env = os.environ if environ is None else environ
    return Path(given or env.get(ENV_FILE) or default_path(env))


def read_key(path: Path) -> str | None:
    """The key kept in ``path`` (None: no such file, or empty)."""
    try:
        return path.read_text().strip() or None
    except FileNotFoundError:
        return None


def load_or_make(path: Path) -> str:
    """The key in ``path``, made (random, readable by its owner only) if there is none yet. Two
    servers starting at once keep one key: the file is created exclusively, and the loser reads it."""
    kept = read_key(path)
    if kept is not None:
        return kept
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(24)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return read_key(path) or key
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")
    return key


def house_key(given: str = "", file: str = "", environ: Mapping[str, str] | None = None) -> str | None:
    """The key a house says hello with: ``given``, else ``$TERRACE_HOUSE_KEY``, else the key file's
    (None when there is none: a server on this machine has not made one)."""
    env = os.environ if environ is None else environ
    return given or env.get(ENV_KEY) or read_key(key_path(file, env))
