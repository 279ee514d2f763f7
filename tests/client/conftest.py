"""Fixtures for client tests: the server tests' real server on a free port, and a private config dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server.conftest import FAST, config, connect, make_server, server

__all__ = ["FAST", "config", "connect", "make_server", "server"]


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test keeps its tokens in its own directory, never the user's."""
    path = tmp_path / "config"
    monkeypatch.setenv("TERRACE_CONFIG_DIR", str(path))
    monkeypatch.delenv("TERRACE_SERVER", raising=False)
    return path
