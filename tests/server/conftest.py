"""Fixtures for server tests: a real server on a free port and real websocket clients."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from server.app import RaceServer
from server.config import Config
from terrace.wire.protocol import MSGPACK

from .redis_server import redis_server, redis_url
from .wire import Client

__all__ = ["redis_server", "redis_url"]  # fixtures: a private redis-server for tests that need one

Connect = Callable[..., Awaitable[Client]]
MakeServer = Callable[..., Awaitable[RaceServer]]

# Fast clocks so races start and end within a test.
# Every test client comes from 127.0.0.1: accounts racing each other need more than one rated seat
# per address (tests of that limit set it back).
FAST = Config(
    host="127.0.0.1",
    port=0,
    countdown=0.05,
    grace=0.5,
    queue_wait=0.3,
    standings_interval=0.01,
    rated_seats_per_address=0,
    # accounts made by a test count on the boards at once, however fast its scripted players move;
    # tests/server/players/test_fairplay.py holds the server's own defaults
    established_races=0,
    established_hours=0.0,
    pace_check=False,
    # a winnable deal is usually proven within a second, but a loaded 2-core machine can
    # stretch a draw past the 8 s default; tests of the bound set their own
    winnable_seconds=30.0,
)


@pytest.fixture
def config() -> Config:
    """Override in a test module (or use ``make_server``) for other settings."""
    return FAST


@pytest.fixture
async def server(config: Config) -> AsyncIterator[RaceServer]:
    async with RaceServer(config) as srv:
        yield srv


@contextlib.asynccontextmanager
async def servers(base: Config) -> AsyncIterator[MakeServer]:
    """``make(**changes)`` starts a server on ``base`` with those settings; all stop at the end."""
    started: list[RaceServer] = []

    async def make(**changes: Any) -> RaceServer:
        srv = RaceServer(dataclasses.replace(base, **changes))
        await srv.start()
        started.append(srv)
        return srv

    try:
        yield make
    finally:
        for srv in started:
            await srv.stop()


@pytest.fixture
async def make_server() -> AsyncIterator[MakeServer]:
    async with servers(FAST) as make:
        yield make


@pytest.fixture
async def connect(server: RaceServer) -> AsyncIterator[Callable[..., Awaitable[Client]]]:
    """``await connect(subprotocol=..., name=...)``: a client, welcomed as a guest when named."""
    clients: list[Client] = []

    async def open_(
        subprotocol: str | None = MSGPACK, name: str | None = None, srv: RaceServer | None = None
    ) -> Client:
        c = await Client.open((srv or server).url, subprotocol)
        clients.append(c)
        if name is not None:
            welcome = await c.request("hello", name=name)
            assert welcome["type"] == "welcome", welcome
            c.player = welcome["player"]  # type: ignore[attr-defined]
            c.session = welcome["session"]  # type: ignore[attr-defined]
        return c

    yield open_
    for c in clients:
        if not c.closed.done():
            await c.close()
