"""Fixtures for the client stack's tests: the server tests' real server on a free port."""

from __future__ import annotations

from tests.server.conftest import FAST, config, connect, make_server, server

__all__ = ["FAST", "config", "connect", "make_server", "server"]
