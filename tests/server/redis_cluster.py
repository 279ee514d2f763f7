"""A real Redis Cluster for tests: three masters and three replicas on free loopback ports.

Each node is a ``redis-server --cluster-enabled yes`` with ``appendonly yes`` and
``appendfsync always`` in its own directory; ``redis-cli --cluster create`` joins them (one
replica per master) and the cluster is ready once every node says ``cluster_state:ok`` and
every replica is in sync. ``kill_master_of(key)`` SIGKILLs the master serving a key, and
``failed_over(key)`` says when a replica has taken its slots over. Like ``redis_server.py``,
it skips without the binaries, and fails instead under ``CI=true``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster as SyncCluster

from tests.needs import missing
from tests.poll import eventually_sync

from .redis_server import RedisServer, free_port, require_redis_server

NODE_TIMEOUT_MS = 1_000  # how long a silent master has before its replica takes over


def require_redis_cli() -> str:
    binary = shutil.which("redis-cli")
    if binary is None:
        missing("redis-cli is not on PATH (it comes with redis-server)")
    return binary


def _cluster_port() -> int:
    """A free port whose cluster bus port (10000 higher) is free too."""
    while True:
        port = free_port()
        if port + 10_000 <= 65_535:
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port + 10_000))
                except OSError:
                    continue
            return port


class ClusterNode(RedisServer):
    def args(self) -> list[str]:
        return [
            *super().args(),
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            str(NODE_TIMEOUT_MS),
        ]


class LocalCluster:
    def __init__(self, root: Path, masters: int = 3) -> None:
        self.nodes = []
        for _ in range(masters * 2):
            port = _cluster_port()
            (root / str(port)).mkdir()
            self.nodes.append(
                ClusterNode(require_redis_server(), port, appendonly=True, dir=root / str(port))
            )
        self.masters = masters

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self) -> LocalCluster:
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
        subprocess.run(
            [
                require_redis_cli(),
                "--cluster",
                "create",
                *addresses,
                "--cluster-replicas",
                "1",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        self._until(self._ready, "the cluster to be ready")
        return self

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()  # nothing to keep

    def _info(self, node: ClusterNode, section: str) -> dict[str, str]:
        with redis.Redis(port=node.port, socket_timeout=1, decode_responses=True) as r:
            text = (
                r.execute_command("CLUSTER INFO")
                if section == "cluster"
                else r.execute_command("INFO", section)
            )
        if isinstance(text, dict):
            return {str(k): str(v) for k, v in text.items()}
        return dict(line.split(":", 1) for line in str(text).splitlines() if ":" in line)

    def _live(self) -> list[ClusterNode]:
        return [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]

    def _ready(self) -> bool:
        try:
            live = self._live()
            if any(self._info(n, "cluster").get("cluster_state") != "ok" for n in live):
                return False
            replicas = [self._info(n, "replication") for n in live]
            masters = [r for r in replicas if r.get("role") == "master"]
            return (
                all(r.get("master_link_status") == "up" for r in replicas if r.get("role") == "slave")
                and len(masters) == self.masters
            )
        except (redis.RedisError, OSError):
            return False

    def _until(self, check: Callable[[], object], what: str, timeout: float = 30.0) -> None:
        eventually_sync(check, timeout=timeout, every=0.05, what=what)

    def master_of(self, key: str) -> ClusterNode:
        with SyncCluster(host="127.0.0.1", port=self._live()[0].port) as c:
            node = c.get_node_from_key(key)
            assert node is not None
            return next(n for n in self.nodes if n.port == node.port)

    def kill_master_of(self, key: str) -> ClusterNode:
        """SIGKILL the master serving ``key`` (a crash: its replica takes over)."""
        master = self.master_of(key)
        master.kill()
        return master

    def failed_over(self, key: str) -> bool:
        """A live master serves ``key`` again, and the cluster says ok."""
        try:
            live = self._live()
            return (
                all(self._info(n, "cluster").get("cluster_state") == "ok" for n in live)
                and self.master_of(key) in live
            )
        except (redis.RedisError, OSError, StopIteration):
            return False

    def flushall(self) -> None:
        for node in self._live():
            with redis.Redis(port=node.port) as r:
                if self._info(node, "replication").get("role") == "master":
                    r.flushall()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """Three masters with a replica each, for the session; a test that kills one makes its own."""
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield cluster
    cluster.stop()
