"""A real ``redis-server`` for tests, on a free port (never 6379, the machine's shared Redis).

:class:`RedisServer` starts one (no persistence by default; ``appendonly=True`` with a
``dir`` for durability tests), waits until it answers PING, and stops, kills or restarts it on
the same port. Fixtures:

- ``redis_server``: one server for the whole session (cheap to share);
- ``redis_url``: its URL with an empty database (FLUSHALL before each test).

Use them from a test module with ``from .redis_server import redis_server, redis_url`` and
re-export (``__all__``), or list ``"tests.server.redis_server"`` in ``pytest_plugins`` of the
top-level conftest. Without a ``redis-server`` on PATH (or in ``$TERRACE_REDIS_SERVER``) the
fixtures skip, or fail when ``CI=true`` so CI never passes by skipping.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pytest
import redis

from tests.needs import missing
from tests.poll import eventually_sync

SHARED_PORT = 6379


def redis_server_binary() -> str | None:
    """The ``redis-server`` to run: ``$TERRACE_REDIS_SERVER`` or the one on PATH."""
    return os.environ.get("TERRACE_REDIS_SERVER") or shutil.which("redis-server")


def require_redis_server() -> str:
    """The binary, or skip the test (fail it under ``CI=true``) with the reason."""
    binary = redis_server_binary()
    if binary is None:
        missing("redis-server is not on PATH (install redis-server or set TERRACE_REDIS_SERVER)")
    return binary


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if port != SHARED_PORT:
            return port


class RedisServer:
    """One ``redis-server`` process on 127.0.0.1; ``start``/``stop``/``kill`` keep its port."""

    def __init__(
        self,
        binary: str,
        port: int | None = None,
        appendonly: bool = False,
        dir: Path | None = None,
        appendfsync: str = "always",
    ) -> None:
        if appendonly and dir is None:
            raise ValueError("appendonly needs a dir for its files")
        self.binary = binary
        self.port = port or free_port()
        if self.port == SHARED_PORT:
            raise ValueError("port 6379 is the machine's shared Redis; tests must not use it")
        self.appendonly = appendonly
        self.dir = dir
        self.appendfsync = appendfsync
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def args(self) -> list[str]:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "yes" if self.appendonly else "no", "--protected-mode", "no"]
        if self.appendonly:
            args += ["--appendfsync", self.appendfsync]
        if self.dir is not None:
            args += ["--dir", str(self.dir)]
        return args

    def start(self, timeout: float = 10.0) -> RedisServer:
        if self.proc is not None and self.proc.poll() is None:
            return self
        self.proc = subprocess.Popen(self.args(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        proc = self.proc
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5, socket_timeout=1)

        def answers() -> bool:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"redis-server on port {self.port} exited: {err}")
            try:
                return bool(client.ping())
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                return False

        try:
            eventually_sync(answers, timeout=timeout, what=f"redis-server on port {self.port} to answer PING")
        except AssertionError as exc:
            self.stop()
            raise RuntimeError(str(exc)) from None
        finally:
            client.close()
        return self

    def _end(self, sig: signal.Signals) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()

    def stop(self) -> None:
        """A clean shutdown (SIGTERM: Redis flushes its append-only file)."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """A crash (SIGKILL): only what Redis already wrote survives."""
        self._end(signal.SIGKILL)

    def restart(self) -> RedisServer:
        self.stop()
        return self.start()

    def flushall(self) -> None:
        with redis.Redis(host="127.0.0.1", port=self.port) as client:
            client.flushall()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A throwaway ``redis-server`` shared by the session; tests that stop it must start their own."""
    with RedisServer(require_redis_server()) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session server's URL, emptied (FLUSHALL) for this test."""
    redis_server.start()  # in case a test stopped it
    redis_server.flushall()
    return redis_server.url
