"""Where the ``terrace`` command keeps its settings and account tokens.

The directory is ``platformdirs.user_config_dir("terrace")`` unless
``TERRACE_CONFIG_DIR`` names another (tests point it at a temporary one).
Tokens live in ``credentials.json``, by server URL and by name, with the name
``terrace play`` uses when none is given::

    {"ws://127.0.0.1:8765/ws": {"default": "alice",
                                "accounts": {"alice": {"name": "alice", "token": "…", "kind": "human"},
                                             "robo": {"name": "robo", "token": "…", "kind": "bot"}}}}

Registering a second name on a server adds it (and makes it the default); a token is
never dropped or replaced without the caller being told (:func:`save_token` says what
it replaced). Files of the older one-account-per-server shape are read as they are.

The last session per server lives in ``sessions.json``, so ``terrace play`` can come
back to a race after Ctrl-C or a restart. ``client.json`` holds this install's random id
(:func:`client_id`), sent with every hello and register: a race that may be rated seats
one registered account per install. Both files are created readable by their
owner only (0600, in a 0700 directory when the command makes it) and replaced
atomically, so a crash never leaves half a file. ``TERRACE_SERVER`` sets the default
server.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

import platformdirs

CONFIG_DIR_ENV = "TERRACE_CONFIG_DIR"
CREDENTIALS = "credentials.json"
SESSIONS = "sessions.json"
CLIENT = "client.json"


def config_dir() -> Path:
    """The client's settings directory (it may not exist yet)."""
    return Path(os.environ.get(CONFIG_DIR_ENV) or platformdirs.user_config_dir("terrace"))


def credentials_path() -> Path:
    return config_dir() / CREDENTIALS


Account = dict[str, str]  # {"name", "token", "kind"}
Entry = dict[str, Any]  # {"default": name, "accounts": {name: Account}}


def load_all() -> dict[str, Entry]:
    """Every stored account by server URL; empty when there is no file or it cannot be read."""
    try:
        data: Any = json.loads(credentials_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, Entry] = {}
    for url, entry in data.items():
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("token"), str):  # the one-account shape of earlier versions
            account = {k: str(v) for k, v in entry.items()}
            out[url] = {"default": account.get("name", ""), "accounts": {account.get("name", ""): account}}
            continue
        accounts = {
            str(name): {k: str(v) for k, v in acc.items()}
            for name, acc in (entry.get("accounts") or {}).items()
            if isinstance(acc, dict) and isinstance(acc.get("token"), str)
        }
        if accounts:
            default = str(entry.get("default", ""))
            out[url] = {
                "default": default if default in accounts else next(iter(accounts)),
                "accounts": accounts,
            }
    return out


def accounts(server_url: str) -> dict[str, Account]:
    """The accounts stored for ``server_url`` by name."""
    return dict(load_all().get(server_url, {}).get("accounts", {}))


def load_token(server_url: str, name: str | None = None) -> Account | None:
    """``{"name", "token", "kind"}`` stored for ``name`` on ``server_url`` (names ignore case),
    or for the server's default account when ``name`` is None; None when there is none."""
    entry = load_all().get(server_url)
    if entry is None:
        return None
    if name is None:
        name = entry["default"]
    for stored, account in entry["accounts"].items():
        if stored.casefold() == name.casefold():
            return dict(account)
    return None


def save_token(server_url: str, name: str, token: str, kind: str) -> tuple[Path, Account | None]:
    """Store the account's token for ``server_url`` beside any others, as the default; returns
    the file's path and the account of that name it replaced (None: nothing was replaced)."""
    entries = load_all()
    entry = entries.setdefault(server_url, {"default": name, "accounts": {}})
    replaced = next((k for k in entry["accounts"] if k.casefold() == name.casefold()), None)
    old = entry["accounts"].pop(replaced) if replaced is not None else None
    entry["accounts"][name] = {"name": name, "token": token, "kind": kind}
    entry["default"] = name
    return _write(entries), old


def forget(server_url: str, name: str | None = None) -> bool:
    """Drop the token stored for ``name`` on ``server_url`` (every one there when None); whether
    there was one."""
    entries = load_all()
    entry = entries.get(server_url)
    if entry is None:
        return False
    if name is None:
        del entries[server_url]
    else:
        found = next((k for k in entry["accounts"] if k.casefold() == name.casefold()), None)
        if found is None:
            return False
        del entry["accounts"][found]
        if not entry["accounts"]:
            del entries[server_url]
        elif entry["default"] == found:
            entry["default"] = next(iter(entry["accounts"]))
    _write(entries)
    return True


def load_session(server_url: str) -> dict[str, str] | None:
    """``{"name", "session"}``: who this client last played as on ``server_url``, or None.

    ``terrace play`` says hello with it first, so after Ctrl-C, a crash or a restart of
    the client, the server puts the player back into the race that goes on for them.
    """
    try:
        data: Any = json.loads((config_dir() / SESSIONS).read_text(encoding="utf-8"))
        entry = data[server_url]
        return {"name": str(entry["name"]), "session": str(entry["session"])}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_session(server_url: str, name: str, session: str) -> Path:
    """Remember the session of the player ``name`` on ``server_url`` (one per server)."""
    try:
        data: Any = json.loads((config_dir() / SESSIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    entries = data if isinstance(data, dict) else {}
    entries[server_url] = {"name": name, "session": session}
    return _write(entries, config_dir() / SESSIONS)


def client_id() -> str | None:
    """This install's id: drawn at random the first time, the same ever after (for every server
    and account of this user); None when it cannot be kept (an unwritable config directory),
    and then nothing is sent."""
    path = config_dir() / CLIENT
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("id"), str) and 8 <= len(data["id"]) <= 64:
            return str(data["id"])
    except (OSError, ValueError):
        pass
    drawn = secrets.token_urlsafe(18)  # 24 characters
    try:
        _write({"id": drawn}, path)
    except OSError:
        return None
    return drawn


def _write(entries: dict[str, Any], path: Path | None = None) -> Path:
    """Replace ``path`` (the credentials file by default) atomically, readable by its owner only."""
    path = path or credentials_path()
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
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
