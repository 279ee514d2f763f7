"""The commands the client prints run as printed: the server only when it is not the default."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from client.suggest import command, server_flag
from link.connection import DEFAULT_SERVER, SERVER_ENV


def test_the_default_server_is_left_out_and_any_other_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SERVER_ENV, raising=False)
    assert server_flag(DEFAULT_SERVER) == ""
    assert server_flag("ws://example.org:9000/ws") == " --server ws://example.org:9000/ws"


def test_the_server_terrace_server_names_is_the_default_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SERVER_ENV, "ws://example.org:9000/ws")
    assert server_flag("ws://example.org:9000/ws") == ""  # the same environment reaches it again
    assert server_flag(DEFAULT_SERVER) == f" --server {DEFAULT_SERVER}"


def test_the_name_comes_along_only_where_asked_and_is_quoted_for_the_shell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SERVER_ENV, raising=False)
    args = argparse.Namespace(server="ws://h:1/ws", name="ann o'neil")
    assert command(args, "terrace replay r1") == "terrace replay r1 --server ws://h:1/ws"
    assert (
        command(args, "terrace play", name=True)
        == "terrace play --server ws://h:1/ws --name 'ann o'\"'\"'neil'"
    )
    assert (
        command(argparse.Namespace(server=DEFAULT_SERVER, name=None), "terrace play", name=True)
        == "terrace play"
    )


def test_a_command_run_by_its_path_is_suggested_by_that_path_when_terrace_is_not_on_the_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The README's quick start runs ``.venv/bin/terrace`` with no venv activated: a bare
    ``terrace replay …`` suggested then would not be found."""
    monkeypatch.delenv(SERVER_ENV, raising=False)
    args = argparse.Namespace(server=DEFAULT_SERVER, name=None)
    monkeypatch.setattr(sys, "argv", [".venv/bin/terrace", "play"])
    monkeypatch.setenv("PATH", str(tmp_path))  # no terrace there
    assert command(args, "terrace replay r1") == ".venv/bin/terrace replay r1"
    on_path = tmp_path / "terrace"
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    assert command(args, "terrace replay r1") == "terrace replay r1"  # an activated venv, or installed
    monkeypatch.setattr(sys, "argv", ["/usr/bin/python3", "-m", "client"])
    assert command(args, "terrace play") == "terrace play"
