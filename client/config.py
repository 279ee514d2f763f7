"""Where the ``terrace`` command keeps its settings and account tokens.

The directory is ``platformdirs.user_config_dir("terrace")`` unless
``TERRACE_CONFIG_DIR`` names another (tests point it at a temporary one).
Tokens live in ``credentials.json``, one entry per server URL::

    {"ws://127.0.0.1:8765/ws": {"name": "alice", "token": "…", "kind": "human"}}

The file is created readable by its owner only (0600, in a 0700 directory when
the command makes it) and replaced atomically, so a crash never leaves half a file.
``TERRACE_SERVER`` sets the default server.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import platformdirs

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
CONFIG_DIR_ENV = "TERRACE_CONFIG_DIR"
SERVER_ENV = "TERRACE_SERVER"
CREDENTIALS = "credentials.json"


def default_server() -> str:
    """``TERRACE_SERVER`` if set, else the local server."""
    return os.environ.get(SERVER_ENV) or DEFAULT_SERVER


def config_dir() -> Path:
    """The client's settings directory (it may not exist yet)."""
    return Path(os.environ.get(CONFIG_DIR_ENV) or platformdirs.user_config_dir("terrace"))


def credentials_path() -> Path:
    return config_dir() / CREDENTIALS


def load_all() -> dict[str, dict[str, str]]:
    """Every stored token by server URL; empty when there is no file or it cannot be read."""
    try:
        data: Any = json.loads(credentials_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        url: {k: str(v) for k, v in entry.items()}
        for url, entry in data.items()
        if isinstance(entry, dict) and isinstance(entry.get("token"), str)
    }


def load_token(server_url: str) -> dict[str, str] | None:
    """``{"name", "token", "kind"}`` stored for ``server_url``, or None."""
    return load_all().get(server_url)


def save_token(server_url: str, name: str, token: str, kind: str) -> Path:
    """Store the account's token for ``server_url`` (replacing any other); returns the file's path."""
    entries = load_all()
    entries[server_url] = {"name": name, "token": token, "kind": kind}
    return _write(entries)


def forget(server_url: str) -> bool:
    """Drop the token stored for ``server_url``; whether there was one."""
    entries = load_all()
    if entries.pop(server_url, None) is None:
        return False
    _write(entries)
    return True


def _write(entries: dict[str, dict[str, str]]) -> Path:
    path = credentials_path()
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask
    tmp = folder / f".{CREDENTIALS}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if hasattr(os, "fchmod"):  # O_CREAT's mode is filtered by the umask, which only ever tightens
                os.fchmod(f.fileno(), 0o600)
            json.dump(entries, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path
