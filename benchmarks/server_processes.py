"""The server benchmark's processes: game servers, the echo server, a private Redis, and what
is read from them (CPU from /proc, memory, the server's /metrics, Redis's append-only file).

Each server runs in its own process and process group (its search workers are reaped with
it); Redis runs on a free port (never 6379) with an append-only file flushed every second.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.common import BenchError
from benchmarks.server_client import HOST, START_TIMEOUT, Ledger
from terrace.wire.protocol import MSGPACK, decode

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve().parent / "server.py"  # the echo server is this script with --serve-echo


LISTENING = re.compile(r"listening on ws://[^:\s]+:(\d+)/ws")

# The game server under cProfile, timing CPU (process time) rather than wall-clock time: on a
# shared machine the wall clock charges a function for the time the process waited for a core
# (a socket write that wakes a client is often where the scheduler switches away).
PROFILED_SERVER = """
import cProfile, runpy, sys, time
out = sys.argv[1]
sys.argv = ["server", *sys.argv[2:]]
profile = cProfile.Profile(time.process_time)
profile.enable()
try:
    runpy.run_module("server", run_name="__main__")
except SystemExit:
    pass
finally:
    profile.disable()
    profile.dump_stats(out)
"""


class ServerProcess:
    """A server in its own process (and process group), stopped and reaped on exit."""

    def __init__(self, name: str, argv: list[str], workdir: Path) -> None:
        self.name = name
        self.argv = argv
        self.log_path = workdir / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    def __enter__(self) -> ServerProcess:
        with open(self.log_path, "ab") as log:  # the child appends; we read from our own handle
            self.proc = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: its workers can be reaped with it
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            m = LISTENING.search(self.log())
            if m:
                self.port = int(m[1])
                return self
            if self.proc.poll() is not None:
                raise BenchError(f"{self.name} server exited with code {self.proc.returncode}{self.tail()}")
            if time.monotonic() > deadline:
                raise BenchError(
                    f"{self.name} server did not listen within {START_TIMEOUT:.0f} s{self.tail()}"
                )
            time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def tail(self, lines: int = 15) -> str:
        text = self.log().strip().splitlines()[-lines:]
        return ("\n  " + self.name + " server log (last lines):\n    " + "\n    ".join(text)) if text else ""

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        """SIGTERM (graceful: the server closes connections and writes any profile), then SIGKILL."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # leftover children of our own server (search workers)

    def cpu_seconds(self) -> tuple[float, float] | None:
        return None if self.proc is None else tree_cpu_seconds(self.proc.pid)


def tree_cpu_seconds(pid: int) -> tuple[float, float] | None:
    """CPU seconds (user + system) of ``pid`` and of its live descendants (Linux /proc), or None."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            text = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = text[text.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        ticks[int(entry)] = int(fields[11]) + int(fields[12])
    if pid not in ticks:
        return None
    tree, frontier = {pid}, [pid]
    while frontier:
        p = frontier.pop()
        children = [c for c, pp in parents.items() if pp == p and c not in tree]
        tree.update(children)
        frontier.extend(children)
    hz = os.sysconf("SC_CLK_TCK")
    return ticks[pid] / hz, sum(ticks[p] for p in tree if p != pid) / hz


def cpu_share(before: tuple[float, float] | None, after: tuple[float, float] | None, seconds: float) -> Any:
    """Shares of one core over ``seconds``: {"server": main process, "children": its workers}."""
    if before is None or after is None:
        return {"server": None, "children": None}
    return {"server": (after[0] - before[0]) / seconds, "children": (after[1] - before[1]) / seconds}


def server_argv(
    args: argparse.Namespace,
    *,
    profile: str | None = None,
    redis_url: str = "",
    conns: int | None = None,
    port: int = 0,
    public_url: str = "",
) -> list[str]:
    argv = [
        *("--host", HOST, "--port", str(port)),
        *("--rate", "1000000", "--burst", "1000000"),  # the per-connection limits are not under test
        *("--address-rate", "1000000", "--address-burst", "1000000"),  # nor the per-address ones:
        *("--max-open-races-per-address", "1000000"),  # every client shares one loopback address
        *("--max-conns-per-address", str(conns or args.players + 16)),
        *("--countdown", str(args.countdown)),
        *("--standings-interval", str(args.standings_interval)),
    ]
    # always named: the server's own default is uvloop where installed (--event-loop auto)
    argv += ["--event-loop", args.event_loop]
    argv += shlex.split(args.server_args)
    if redis_url:
        argv += ["--redis-url", redis_url]
    if public_url:
        argv += ["--public-url", public_url]
    if profile:
        return [sys.executable, "-c", PROFILED_SERVER, profile, *argv]
    return [sys.executable, "-m", "server", *argv]


def echo_argv(args: argparse.Namespace, answer_size: int) -> list[str]:
    return [
        sys.executable,
        str(SCRIPT),
        "--serve-echo",
        str(answer_size),
        "--subprotocol",
        args.subprotocol,
        "--event-loop",
        args.event_loop,
    ]


def fetch_metrics(port: int) -> dict[str, float]:
    """The game server's Prometheus counters we use (flat ``name{labels}`` -> value)."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(
            (
                "terrace_move_seconds",
                "terrace_moves_total",
                "terrace_errors_total",
                "terrace_gc_pause_seconds",
                "terrace_event_loop_lag_seconds",
            )
        ):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def move_handling(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """Server-side time per accepted move over the window, from the histogram."""

    def delta(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    count = delta("terrace_move_seconds_count")
    errors = {
        k.split('"')[1]: int(delta(k)) for k in after if k.startswith("terrace_errors_total{") and delta(k)
    }
    # share of moves slower than each bucket bound (the slow ones are those sent to the lost search)
    over = {
        k.split('"')[1]: round(1 - delta(k) / count, 4)
        for k in after
        if count and k.startswith("terrace_move_seconds_bucket{") and "+Inf" not in k
    }
    return {
        "moves": int(count),
        "mean_ms": delta("terrace_move_seconds_sum") / count * 1000 if count else None,
        "share_over_seconds": over,
        "errors": errors,
    }


def server_stalls(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The server's garbage collections and event loop lag over the window, from /metrics (absent
    from servers older than those metrics)."""

    def delta(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    out: dict[str, Any] = {}
    for g in range(3):
        n = delta(f'terrace_gc_pause_seconds_count{{generation="{g}"}}')
        total = delta(f'terrace_gc_pause_seconds_sum{{generation="{g}"}}')
        over = n - delta(f'terrace_gc_pause_seconds_bucket{{generation="{g}",le="0.01"}}')
        out[f"gc{g}"] = {"count": int(n), "mean_ms": total / n * 1000 if n else None, "over_10ms": int(over)}
    n = delta("terrace_event_loop_lag_seconds_count")
    out["lag_samples"] = int(n)
    out["lag_over_10ms"] = int(n - delta('terrace_event_loop_lag_seconds_bucket{le="0.01"}'))
    return out


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path("/proc", str(pid), "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def load_average() -> float:
    return os.getloadavg()[0]


# ----- Redis ---------------------------------------------------------------------------------


class RedisProcess:
    """A private ``redis-server`` on a free port (never 6379) with an append-only file flushed
    every second, the way durable races run; stopped with SHUTDOWN so the file is complete."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def __enter__(self) -> RedisProcess:
        binary = os.environ.get("TERRACE_REDIS_SERVER") or shutil.which("redis-server")
        if binary is None:
            raise BenchError("redis-server is not on PATH (or set TERRACE_REDIS_SERVER)")
        argv = [binary, "--port", str(self.port), "--bind", HOST, "--save", "", "--protected-mode", "no"]
        argv += ["--appendonly", "yes", "--appendfsync", "everysec", "--dir", str(self.dir)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with socket.create_connection((HOST, self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"redis-server on port {self.port} did not start")
            time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()  # SIGTERM: Redis writes and syncs the append-only file, then exits
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def logged(self) -> Ledger:
        """Every move and resignation appended to a race log, read back from the append-only file
        (call after ``__exit__``: logs of finished races are deleted, the file keeps the appends)."""
        ledger = Ledger()
        files = sorted(self.dir.rglob("*.aof"))
        for path in files:
            for command in _resp_commands(path.read_bytes()):
                if command and command[0].upper() == b"XADD" and b":log" in command[1]:
                    race = command[1].split(b"{", 1)[1].split(b"}", 1)[0].decode()
                    fields = command[3:]
                    entry = decode(bytes(fields[fields.index(b"e") + 1]), MSGPACK)
                    if "seq" in entry:
                        ledger.moves.add((race, entry["p"], entry["seq"]))
                    elif entry.get("f") in ("resigned", "left"):
                        ledger.resigns.add((race, entry["p"]))
        return ledger


def _resp_commands(data: bytes) -> Any:
    """The commands of an append-only file (RESP arrays of bulk strings), each as a list of bytes."""
    i, n = 0, len(data)
    while i < n:
        if data[i : i + 1] != b"*":  # a base part in RDB form starts with REDIS...: no appends there
            return
        end = data.index(b"\r\n", i)
        count = int(data[i + 1 : end])
        i = end + 2
        args = []
        for _ in range(count):
            end = data.index(b"\r\n", i)
            size = int(data[i + 1 : end])
            args.append(data[end + 2 : end + 2 + size])
            i = end + 2 + size + 2
        yield args


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind((HOST, 0))
            port: int = s.getsockname()[1]
        if port != 6379:  # the machine's shared Redis
            return port
