"""client/config.py: the config directory, the default server, and tokens kept 0600, atomically."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from client import config

URL = "ws://race.example:8765/ws"


def test_the_config_dir_comes_from_the_environment(config_dir: Path) -> None:
    assert config.config_dir() == config_dir
    assert config.credentials_path() == config_dir / "credentials.json"


def test_without_the_variable_it_is_the_platform_config_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv("TERRACE_CONFIG_DIR")
    assert config.config_dir() == Path(platformdirs.user_config_dir("terrace"))


def test_save_load_forget(config_dir: Path) -> None:
    assert config.load_token(URL) is None
    path, replaced = config.save_token(URL, "alice", "tok-1", "human")
    assert path == config_dir / "credentials.json" and replaced is None
    config.save_token("ws://other/ws", "bot1", "tok-2", "bot")
    assert config.load_token(URL) == {"name": "alice", "token": "tok-1", "kind": "human"}
    assert json.loads(path.read_text()) == {
        URL: {
            "default": "alice",
            "accounts": {"alice": {"name": "alice", "token": "tok-1", "kind": "human"}},
        },
        "ws://other/ws": {
            "default": "bot1",
            "accounts": {"bot1": {"name": "bot1", "token": "tok-2", "kind": "bot"}},
        },
    }
    assert config.forget(URL) is True
    assert config.forget(URL) is False
    assert config.load_token(URL) is None
    assert config.load_token("ws://other/ws") is not None


def test_a_second_name_on_one_server_is_stored_beside_the_first_never_over_it(config_dir: Path) -> None:
    config.save_token(URL, "alice", "tok-1", "human")
    _, replaced = config.save_token(URL, "robo", "tok-2", "bot")
    assert replaced is None
    assert config.load_token(URL, "alice") == {"name": "alice", "token": "tok-1", "kind": "human"}
    assert config.load_token(URL, "ROBO") == {
        "name": "robo",
        "token": "tok-2",
        "kind": "bot",
    }  # names ignore case
    assert config.load_token(URL) == config.load_token(URL, "robo")  # the newest is the default
    assert sorted(config.accounts(URL)) == ["alice", "robo"]
    assert config.load_token(URL, "carol") is None
    _, replaced = config.save_token(URL, "Alice", "tok-3", "human")  # the same name again: said, not silent
    assert replaced == {"name": "alice", "token": "tok-1", "kind": "human"}
    assert config.forget(URL, "alice") is True and config.forget(URL, "alice") is False
    assert config.load_token(URL) == config.load_token(URL, "robo")


def test_a_file_of_one_account_per_server_is_still_read(config_dir: Path) -> None:
    config_dir.mkdir()
    old = {URL: {"name": "alice", "token": "tok-1", "kind": "human"}}
    (config_dir / "credentials.json").write_text(json.dumps(old))
    assert config.load_token(URL) == old[URL]
    config.save_token(URL, "robo", "tok-2", "bot")
    assert config.load_token(URL, "alice") == old[URL]  # kept when the file takes its new shape


def test_the_file_is_0600_in_a_0700_dir_whatever_the_umask(config_dir: Path) -> None:
    old = os.umask(0)
    try:
        path, _ = config.save_token(URL, "alice", "tok", "human")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(config_dir).st_mode) == 0o700
    config.save_token(URL, "alice", "tok2", "human")  # replaced: still 0600
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_an_existing_dir_keeps_its_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    monkeypatch.setenv("TERRACE_CONFIG_DIR", str(shared))
    path, _ = config.save_token(URL, "a1", "t", "human")
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o755
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_writes_leave_no_temporary_files(config_dir: Path) -> None:
    for i in range(3):
        config.save_token(f"ws://s{i}/ws", "n1", f"t{i}", "human")
    assert [p.name for p in config_dir.iterdir()] == ["credentials.json"]


def test_a_failed_write_keeps_the_old_file(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config.save_token(URL, "alice", "tok", "human")

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(config.os, "replace", boom)
    with pytest.raises(OSError):
        config.save_token(URL, "alice", "other", "human")
    assert config.load_token(URL) == {"name": "alice", "token": "tok", "kind": "human"}
    assert [p.name for p in config_dir.iterdir()] == ["credentials.json"]


@pytest.mark.parametrize("content", ["", "{not json", "[1, 2]", '{"ws://x": 3, "ws://y": {"name": "n"}}'])
def test_an_unreadable_file_reads_as_no_tokens(config_dir: Path, content: str) -> None:
    config_dir.mkdir()
    (config_dir / "credentials.json").write_text(content)
    assert config.load_all() == {}
    assert config.load_token("ws://x") is None
    config.save_token(URL, "alice", "tok", "human")  # and saving starts it afresh
    assert config.load_token(URL) is not None


def test_the_install_id_is_drawn_once_kept_0600_and_the_same_ever_after(config_dir: Path) -> None:
    first = config.client_id()
    assert first is not None and 8 <= len(first) <= 64
    assert config.client_id() == first
    path = config_dir / "client.json"
    assert json.loads(path.read_text()) == {"id": first}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("not json")  # a damaged file: a new id, kept from then on
    second = config.client_id()
    assert second is not None and second != first and config.client_id() == second


def test_without_a_writable_config_dir_no_install_id_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("TERRACE_CONFIG_DIR", str(blocked / "terrace"))  # under a file: never a directory
    assert config.client_id() is None
