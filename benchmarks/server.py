#!/usr/bin/env python3
"""Benchmark the race server: moves per second, move-answer latency and CPU per answer, under load.

One command measures every target of the server's speed, each scenario after the other in
the same run (so ratios compare like with like on a shared machine), each over a window
after a warm-up:

- game, memory store: ``--players`` websocket clients (100) race over loopback against a
  real ``terrace-server`` in its own process. Races are formed the way people form them: a
  free player creates a race (``start: "full"``, ``--seats`` seats) and the next free players
  join it. Each player plays a simple view-only policy (a foundation move, else the stock,
  else any legal move that does not undo the last one) as fast as the answers come, one move
  in flight, and goes straight into a new race when its race is over for it (goal, stuck, or
  ``--race-moves`` moves and it resigns). Latency is from sending a ``move`` to receiving the
  ``moved`` that answers it (``id``/``re``); pushes arriving in between are read and skipped.
- echo: the same number of clients doing request/answer round trips with a bare websockets
  server in its own process (same transport settings, codec and event loop, no game), with
  frames of the median sizes of the game's ``move`` request and ``moved`` answer.
- game, Redis store: the game again, on a private ``redis-server`` (free port, append-only
  file, ``appendfsync everysec``). Afterwards Redis is shut down and its append-only file
  read back: every move the players got a ``moved`` for must be in a race log there.

``--repeat 3`` runs those three rounds three times and reports the medians of the ratios.
Flags add the long scenarios: ``--idle 10000`` (that many connections say hello and stay
idle; the server's memory, and ``--idle-players`` racing meanwhile), ``--human 1000``
(players making a move every 1-2 s each), ``--nodes`` (one node on Redis, then two nodes
sharing it with the clients spread over both).

Throughput is the median of the per-second rates over the window; latencies are over every
answer received in the window. This process's garbage collector is held off during the window
(the clients' connections frozen out of its scans, then no collection until the window is over):
its pauses (a full one took 0.1-0.3 s with 1,000 clients) held every client's reading and were
counted as the server's latency. Each long scenario and round 1's game print a "stalls" line:
the server's collections and loop lag over the window (from /metrics), and this process's own
loop lag (a 10 ms sleep's lateness) and collections, the floor of what the clients can measure. CPU is a share of one core (server process, its search
workers, and this process, whose clients share one event loop); "us/ans" is the server's CPU
microseconds per answer, which a loaded machine changes far less than the throughput. Servers
get their limits raised for the load (every client comes from one address) and a zero
countdown so the load stays steady.

    python benchmarks/server.py                          # 100 players, 10 s windows: ~1 min
    python benchmarks/server.py --repeat 3 --idle 10000 --human 1000 --nodes   # every target: ~6 min
    python benchmarks/server.py --players 4 --seconds 1 --no-redis --json
    python benchmarks/server.py --profile-server /tmp/server.prof   # cProfile round 1's game server
    python benchmarks/server.py --repeat 0 --human 1000 --server-args '--gc-young-every 0'  # one setting
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.asyncio.server import ServerConnection, serve  # noqa: E402

import terrace  # noqa: E402
from benchmarks.common import run_info  # noqa: E402
from terrace.rules.moves import Move  # noqa: E402
from terrace.wire.protocol import JSON, MSGPACK, decode, encode  # noqa: E402

HOST = "127.0.0.1"
MAX_FRAME = 65_536  # the server's default max_frame; the echo server uses the same
START_TIMEOUT = 30.0  # seconds for a server process to listen, or for every player's first race
CONNECTS_AT_ONCE = 25  # websocket handshakes in flight while the clients connect
SUBPROTOCOL_NAMES = {"msgpack": MSGPACK, "json": JSON}
SHOWN_BOUNDS = ("0.001", "0.01", "0.1")  # terrace_move_seconds bounds shown in the table
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


class BenchError(Exception):
    """The benchmark cannot go on; the message says why."""


# ----- processes ---------------------------------------------------------------------------


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
    if args.event_loop != "asyncio":  # (only when asked: the flag is newer than some servers measured)
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
        str(Path(__file__).resolve()),
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


# ----- measuring ---------------------------------------------------------------------------


@dataclass
class Meter:
    """Answers received within the window: when, how long, how big."""

    start: float = math.inf
    end: float = math.inf
    times: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    request_sizes: list[int] = field(default_factory=list)
    answer_sizes: list[int] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)

    def within(self, t: float) -> bool:
        return self.start <= t <= self.end

    def answer(self, sent: float, received: float, request_size: int, answer_size: int) -> None:
        if self.within(received):
            self.times.append(received)
            self.latencies.append(received - sent)
            self.request_sizes.append(request_size)
            self.answer_sizes.append(answer_size)

    def count(self, what: str, n: int = 1) -> None:
        if self.within(time.perf_counter()):
            self.events[what] += n


class ClientStalls:
    """What holds this process's own event loop during the window (its clients share one): how
    late a 10 ms sleep wakes, and its garbage collections. A stall here delays reading answers
    that came in time, and would be counted as the server's latency."""

    EVERY = 0.01

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.gc_pauses: list[tuple[int, float]] = []  # (generation, seconds)
        self._gc_started = 0.0
        self.watching = False

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self.watching:
            self.gc_pauses.append((info["generation"], time.perf_counter() - self._gc_started))

    async def watch(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        gc.callbacks.append(self._on_gc)
        self.watching = True
        try:
            end = loop.time() + seconds
            while loop.time() < end:
                due = loop.time() + self.EVERY
                await asyncio.sleep(self.EVERY)
                self.lags.append(max(0.0, loop.time() - due))
        finally:
            self.watching = False
            gc.callbacks.remove(self._on_gc)

    def summary(self) -> dict[str, Any]:
        lags = sorted(self.lags) or [0.0]
        full = [d for g, d in self.gc_pauses if g == 2]
        return {
            "loop_lag_p99_ms": percentile(lags, 99) * 1000,
            "loop_lag_max_ms": lags[-1] * 1000,
            "gc_collections": len(self.gc_pauses),
            "gc_max_ms": max((d for _, d in self.gc_pauses), default=0.0) * 1000,
            "gc_full": len(full),
        }


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of a sorted list."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def summarize(meter: Meter, seconds: float, what: str) -> dict[str, Any]:
    n = len(meter.latencies)
    if n == 0:
        raise BenchError(f"{what}: no answers were received in the {seconds:g} s window")
    buckets = max(1, int(seconds))
    width = seconds / buckets
    per_bucket = Counter(min(buckets - 1, int((t - meter.start) / width)) for t in meter.times)
    rates = [per_bucket[i] / width for i in range(buckets)]
    lat = sorted(meter.latencies)
    return {
        "answers": n,
        "per_s": statistics.median(rates),
        "per_s_mean": n / seconds,
        "per_s_each_second": [round(r, 1) for r in rates],
        "p50_ms": percentile(lat, 50) * 1000,
        "p90_ms": percentile(lat, 90) * 1000,
        "p99_ms": percentile(lat, 99) * 1000,
        "max_ms": lat[-1] * 1000,
        "mean_ms": statistics.fmean(lat) * 1000,
        "request_bytes": int(statistics.median(meter.request_sizes)),
        "answer_bytes": int(statistics.median(meter.answer_sizes)),
    }


def frame_size(frame: bytes | str) -> int:
    return len(frame) if isinstance(frame, bytes) else len(frame.encode())


class Run:
    """What one scenario shares: its meter, the failure of any client, and its clients."""

    def __init__(self) -> None:
        self.meter = Meter()
        self.failed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tasks: list[asyncio.Task[None]] = []

    def spawn(self, name: str, coro: Awaitable[None]) -> None:
        async def guarded() -> None:
            try:
                await coro
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if not self.failed.done():
                    why = str(e) or type(e).__name__
                    self.failed.set_exception(BenchError(f"{name}: {why}"))
                raise

        task = asyncio.create_task(guarded())
        task.add_done_callback(_retrieve)
        self.tasks.append(task)

    async def wait(self, aw: Awaitable[Any], timeout: float, what: str) -> None:
        """Wait for ``aw``; a failed client or the timeout ends the benchmark."""
        waiting = asyncio.ensure_future(aw)
        try:
            done, _ = await asyncio.wait(
                [waiting, self.failed], timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            if not waiting.done():
                waiting.cancel()
        if self.failed in done:
            self.failed.result()  # raises the first failure
        if waiting not in done:
            raise BenchError(f"timed out after {timeout:g} s waiting for {what}")
        waiting.result()

    async def stop(self) -> None:
        for t in self.tasks:
            t.cancel()
        _, stuck = await asyncio.wait(self.tasks, timeout=30) if self.tasks else (set(), set())
        if stuck:
            raise BenchError(f"{len(stuck)} clients did not stop within 30 s of being cancelled")
        if not self.failed.done():
            self.failed.cancel()


def _retrieve(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # failures are reported through Run.failed


async def open_clients(url: str, n: int, subprotocol: str) -> list[ClientConnection]:
    gate = asyncio.Semaphore(CONNECTS_AT_ONCE)

    async def one(i: int) -> ClientConnection:
        async with gate:
            try:
                return await connect(
                    url,
                    subprotocols=[subprotocol],  # type: ignore[list-item]
                    compression=None,
                    max_size=MAX_FRAME,
                    open_timeout=START_TIMEOUT,
                )
            except Exception as e:
                raise BenchError(f"client {i} cannot connect to {url}: {e}") from e

    results = await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)
    clients = [r for r in results if isinstance(r, ClientConnection)]
    errors = [r for r in results if isinstance(r, BaseException)]
    if errors:
        await close_clients(clients)
        raise errors[0]
    return clients


async def close_clients(clients: list[ClientConnection]) -> None:
    async def close(ws: ClientConnection) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 5)

    await asyncio.gather(*(close(ws) for ws in clients))


# ----- the game ----------------------------------------------------------------------------


def choose(legal: list[str], last: str | None, rng: random.Random) -> str:
    """View-only policy: a foundation move, else the stock, else a legal move not undoing the last."""
    for m in legal:
        if Move.parse(m).home:
            return m
    if "S-W" in legal:
        return "S-W"
    undo = str(Move.parse(last).reversed()) if last else None
    fresh = [m for m in legal if m != undo]
    return rng.choice(fresh or legal)


class Matchmaker:
    """Client-side race forming: a free player creates a race, the next free players join it."""

    def __init__(self, variant: str, seats: int) -> None:
        self.variant = variant
        self.seats = seats
        self.forming: asyncio.Future[str] | None = None
        self.free_seats = 0

    async def seat(self, player: Player) -> str:
        if self.free_seats == 0:  # no race forming: this player creates the next one
            forming = self.forming = asyncio.get_running_loop().create_future()
            forming.add_done_callback(lambda f: f.cancelled() or f.exception())
            self.free_seats = self.seats - 1
            try:
                created = await player.call(
                    {"type": "create", "variant": self.variant, "seats": self.seats, "start": "full"}
                )
            except BaseException as e:
                if not forming.done():
                    forming.set_exception(BenchError(f"its creator failed: {e}"))
                raise
            race_id: str = created["race"]["id"]
            forming.set_result(race_id)
            player.meter.count("races created")
            return race_id
        self.free_seats -= 1
        assert self.forming is not None
        race_id = await asyncio.shield(self.forming)
        await player.call({"type": "join", "race": race_id})
        return race_id


@dataclass
class Ledger:
    """Every move and resignation the server acknowledged, for the durable log check:
    (race id, player id, seq) of each ``moved``, and (race id, player id) of each ``resigned``."""

    moves: set[tuple[str, str, int]] = field(default_factory=set)
    resigns: set[tuple[str, str]] = field(default_factory=set)


@dataclass
class Style:
    """How the players of one scenario play."""

    views: str = "full"  # hello's `views`: "full" or "changes"
    pace: tuple[float, float] | None = None  # seconds between one's moves (uniform), None: at once
    race_moves: int = 400
    ledger: Ledger | None = None


class Player:
    """One racing client: requests one at a time, pushes read and skipped as they come."""

    def __init__(self, n: int, ws: ClientConnection, subprotocol: str, meter: Meter, style: Style) -> None:
        self.n = n
        self.ws = ws
        self.subprotocol = subprotocol
        self.meter = meter
        self.style = style
        self.rng = random.Random(n)
        self.ids = 0
        self.id = ""
        self.started: dict[str, dict[str, Any]] = {}  # race id -> its `started` push
        self.racing = asyncio.Event()  # set once the first race has started

    async def call(self, msg: dict[str, Any]) -> dict[str, Any]:
        answer, *_ = await self.exchange(msg)
        return answer

    async def exchange(self, msg: dict[str, Any]) -> tuple[dict[str, Any], float, float, int, int]:
        """Send a request and read until its answer: (answer, sent, received, sizes out and in)."""
        self.ids += 1
        rid = msg["id"] = self.ids
        frame = encode(msg, self.subprotocol)
        sent = time.perf_counter()
        await self.ws.send(frame)
        while True:
            data = await self.ws.recv()
            received = time.perf_counter()
            m = decode(data, self.subprotocol)
            if m.get("re") == rid:
                if m.get("type") == "error":
                    raise BenchError(f"{msg['type']} refused: {m}")
                return m, sent, received, frame_size(frame), frame_size(data)
            self.pushed(m, data)

    def pushed(self, m: dict[str, Any], data: bytes | str) -> None:
        kind = m.get("type")
        if kind == "error":
            raise BenchError(f"error push: {m}")
        if kind == "started":
            self.started[m["race"]] = m
        self.meter.count("pushes")
        self.meter.count("push bytes", frame_size(data))
        self.meter.count(f"push {kind}")

    async def hello(self) -> None:
        hello: dict[str, Any] = {"type": "hello", "name": f"bench{self.n:04d}"}
        if self.style.views != "full":
            hello["views"] = self.style.views
        welcome = await self.call(hello)
        if welcome.get("type") != "welcome":
            raise BenchError(f"hello answered with {welcome}")
        self.id = welcome["player"]["id"]

    async def run(self, matchmaker: Matchmaker) -> None:
        while True:
            race_id = await matchmaker.seat(self)
            while race_id not in self.started:
                data = await self.ws.recv()
                self.pushed(decode(data, self.subprotocol), data)
            self.racing.set()
            await self.race(race_id, self.started.pop(race_id))

    async def race(self, race_id: str, started: dict[str, Any]) -> None:
        seq = started["seq"]
        legal: list[str] = started["legal"]
        last = None
        style = self.style
        for _ in range(style.race_moves):
            if not legal:
                break
            if style.pace is not None:
                await self.idle(self.rng.uniform(*style.pace))
            move = choose(legal, last, self.rng)
            seq += 1
            answer, sent, received, out, in_ = await self.exchange(
                {"type": "move", "race": race_id, "seq": seq, "move": move}
            )
            if answer.get("type") != "moved":
                raise BenchError(f"move answered with {answer.get('type')}: {answer}")
            if style.ledger is not None:
                style.ledger.moves.add((race_id, self.id, seq))
            self.meter.answer(sent, received, out, in_)
            if answer.get("finish"):
                self.meter.count(f"finish {answer['finish']}")
                return
            legal, last = answer["legal"], answer["move"]
        await self.call({"type": "resign", "race": race_id})
        if style.ledger is not None:
            style.ledger.resigns.add((race_id, self.id))
        self.meter.count("finish resigned")

    async def idle(self, seconds: float) -> None:
        """Wait ``seconds`` at a human pace, reading the pushes that come meanwhile."""
        deadline = time.perf_counter() + seconds
        while (left := deadline - time.perf_counter()) > 0:
            try:
                # (asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancellation that
                # meets a frame arriving, and the player would play on after the run stopped)
                async with asyncio.timeout(left):
                    data = await self.ws.recv()
            except TimeoutError:
                return
            self.pushed(decode(data, self.subprotocol), data)


async def bench_game(
    args: argparse.Namespace,
    servers: list[ServerProcess],
    players: int,
    style: Style,
    seconds: float,
    name_offset: int = 0,
) -> dict[str, Any]:
    """``players`` clients racing on ``servers`` (client i on server i % len(servers)); each server
    forms its own races, so no race spans two nodes."""
    sub = SUBPROTOCOL_NAMES[args.subprotocol]
    run = Run()
    clients: list[ClientConnection] = []
    node_of: list[int] = []  # the server index of each client
    for k, server in enumerate(servers):
        share = len(range(k, players, len(servers)))
        clients += await open_clients(f"ws://{HOST}:{server.port}/ws", share, sub)
        node_of += [k] * share
    try:
        makers = [Matchmaker(args.variant, args.seats) for _ in servers]
        spread = [Player(name_offset + i, ws, sub, run.meter, style) for i, ws in enumerate(clients)]
        await run.wait(asyncio.gather(*(p.hello() for p in spread)), START_TIMEOUT, "every welcome")
        # This process is not what is measured, but its garbage collections hold every client's
        # reading (a full one 0.1-0.3 s with 1,000 clients), and would count as the server's
        # latency: the connections made so far are out of its scans (freeze), and it collects
        # nothing until the window is over (what it holds then: ClientStalls).
        gc.collect()
        gc.freeze()
        gc.disable()
        for p, k in zip(spread, node_of, strict=True):
            run.spawn(f"player {p.n}", p.run(makers[k]))
        everyone = asyncio.gather(*(p.racing.wait() for p in spread))
        await run.wait(everyone, START_TIMEOUT * 4, "every player's first race to start")
        warmup = args.warmup if style.pace is None else max(args.warmup, style.pace[1])
        await run.wait(asyncio.sleep(warmup), warmup + 5, "the warm-up")
        before = [await asyncio.to_thread(fetch_metrics, s.port) for s in servers]
        cpu0, client0 = [s.cpu_seconds() for s in servers], time.process_time()
        run.meter.start = time.perf_counter()
        run.meter.end = run.meter.start + seconds
        stalls = ClientStalls()
        await run.wait(stalls.watch(seconds), seconds + 5, "the window")
        cpu1, client1 = [s.cpu_seconds() for s in servers], time.process_time()
        after = [await asyncio.to_thread(fetch_metrics, s.port) for s in servers]
    finally:
        await run.stop()
        await close_clients(clients)
        gc.enable()
        gc.unfreeze()  # what this scenario made may go now
    result = summarize(run.meter, seconds, "game")
    result["client_stalls"] = stalls.summary()
    result["events"] = dict(sorted(run.meter.events.items()))
    result["server_handling"] = move_handling(before[0], after[0])
    result["server_stalls"] = server_stalls(before[0], after[0])
    shares = [cpu_share(a, b, seconds) for a, b in zip(cpu0, cpu1, strict=True)]
    result["server_cpu"] = _sum(s["server"] for s in shares)
    result["server_children_cpu"] = _sum(s["children"] for s in shares)
    result["client_cpu"] = (client1 - client0) / seconds
    result["server_log_errors"] = [
        line for s in servers for line in s.log().splitlines() if " ERROR " in line or "Traceback" in line
    ]
    return result


def _sum(values: Any) -> float | None:
    values = list(values)
    return None if any(v is None for v in values) else sum(values)


# ----- the echo baseline -------------------------------------------------------------------


def padded(base: dict[str, Any], size: int, subprotocol: str) -> dict[str, Any]:
    """``base`` with a ``pad`` string making its encoded frame ``size`` bytes (or just under)."""
    n = max(0, size - frame_size(encode({**base, "pad": ""}, subprotocol)))
    while n > 0 and frame_size(encode({**base, "pad": "x" * n}, subprotocol)) > size:
        n -= 1
    return {**base, "pad": "x" * n}


async def serve_echo(answer_size: int, subprotocol: str) -> None:
    """A bare websockets request/answer server: decode the request, answer ``answer_size`` bytes."""
    template = padded({"type": "echo", "re": 1000}, answer_size, subprotocol)

    async def handler(ws: ServerConnection) -> None:
        async for frame in ws:
            msg = decode(frame, subprotocol)
            await ws.send(encode({**template, "re": msg.get("id")}, subprotocol))

    async with serve(
        handler,
        HOST,
        0,
        subprotocols=[subprotocol],  # type: ignore[list-item]
        compression=None,
        max_size=MAX_FRAME,
        max_queue=16,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"echo server listening on ws://{HOST}:{port}/ws", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


async def echo_client(ws: ClientConnection, subprotocol: str, request_size: int, meter: Meter) -> None:
    template = padded({"type": "echo", "id": 1000}, request_size, subprotocol)
    rid = 0
    while True:
        rid += 1
        frame = encode({**template, "id": rid}, subprotocol)
        sent = time.perf_counter()
        await ws.send(frame)
        while True:
            data = await ws.recv()
            received = time.perf_counter()
            if decode(data, subprotocol).get("re") == rid:
                break
        meter.answer(sent, received, frame_size(frame), frame_size(data))


async def bench_echo(args: argparse.Namespace, server: ServerProcess, request_size: int) -> dict[str, Any]:
    sub = SUBPROTOCOL_NAMES[args.subprotocol]
    run = Run()
    clients = await open_clients(f"ws://{HOST}:{server.port}/ws", args.players, sub)
    try:
        for i, ws in enumerate(clients):
            run.spawn(f"echo client {i}", echo_client(ws, sub, request_size, run.meter))
        await run.wait(asyncio.sleep(args.warmup), args.warmup + 5, "the warm-up")
        cpu0, client0 = server.cpu_seconds(), time.process_time()
        run.meter.start = time.perf_counter()
        run.meter.end = run.meter.start + args.seconds
        await run.wait(asyncio.sleep(args.seconds), args.seconds + 5, "the window")
        cpu1, client1 = server.cpu_seconds(), time.process_time()
    finally:
        await run.stop()
        await close_clients(clients)
    result = summarize(run.meter, args.seconds, "echo")
    cpu = cpu_share(cpu0, cpu1, args.seconds)
    result["server_cpu"], result["server_children_cpu"] = cpu["server"], cpu["children"]
    result["client_cpu"] = (client1 - client0) / args.seconds
    return result


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


# ----- idle connections ----------------------------------------------------------------------


class IdleClients:
    """Many connections that say hello and then only answer pings: minimal websocket clients on
    bare asyncio streams (a full client per connection would make this process the bottleneck)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.writers: list[asyncio.StreamWriter] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.closed = 0

    async def open(self, n: int, at_once: int = 50) -> None:
        gate = asyncio.Semaphore(at_once)

        async def one(i: int) -> None:
            async with gate:
                await self._one(i)

        await asyncio.gather(*(one(i) for i in range(n)))

    async def _one(self, i: int) -> None:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: {MSGPACK}\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise BenchError(f"idle client {i}: handshake refused: {head[:80]!r}")
        writer.write(_client_frame(0x2, encode({"type": "hello", "id": 1, "name": f"idle{i:05d}"})))
        _, payload = await _read_frame(reader)
        welcome = decode(payload, MSGPACK)
        if welcome.get("type") != "welcome":
            raise BenchError(f"idle client {i}: hello answered with {welcome}")
        self.writers.append(writer)
        task = asyncio.create_task(self._answer_pings(reader, writer))
        task.add_done_callback(_retrieve)
        self.tasks.append(task)

    async def _answer_pings(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                opcode, payload = await _read_frame(reader)
                if opcode == 0x9:  # ping: pong, or the server closes the connection
                    writer.write(_client_frame(0xA, payload))
                elif opcode == 0x8:
                    self.closed += 1
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed += 1

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for w in self.writers:
            w.close()


def _client_frame(opcode: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    n = len(data)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65_536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    b0, b1 = await reader.readexactly(2)
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(await reader.readexactly(2), "big")
    elif n == 127:
        n = int.from_bytes(await reader.readexactly(8), "big")
    return b0 & 0x0F, await reader.readexactly(n)


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path("/proc", str(pid), "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


# ----- scenarios -------------------------------------------------------------------------------


def load_average() -> float:
    return os.getloadavg()[0]


async def scenario(what: str, coro: Awaitable[dict[str, Any]], *servers: ServerProcess) -> dict[str, Any]:
    """Run one scenario, its load average noted; failures name the scenario and its servers' logs."""
    load = load_average()
    try:
        result = await coro
    except Exception as e:
        warnings = [
            f"\n  {s.name}: {line}"
            for s in servers
            for line in s.log().splitlines()
            if " WARNING " in line or " ERROR " in line
        ][:5]
        tails = "".join(warnings) + "".join(s.tail() for s in servers)
        dead = [s.name for s in servers if not s.alive()]
        why = f" (dead: {', '.join(dead)})" if dead else ""
        raise BenchError(f"{what}: {type(e).__name__}: {e}{why}{tails}") from e
    result["load_average"] = [round(load, 2), round(load_average(), 2)]
    return result


async def one_round(args: argparse.Namespace, workdir: Path, r: int) -> dict[str, Any]:
    """The base scenarios: game in memory, the echo (same frame sizes), game on Redis."""
    style = Style(views=args.views, race_moves=args.race_moves)
    out: dict[str, Any] = {}
    argv = server_argv(args, profile=args.profile_server if r == 0 else None)
    with ServerProcess(f"game{r}", argv, workdir) as game_server:
        out["memory"] = await scenario(
            "game in memory", bench_game(args, [game_server], args.players, style, args.seconds), game_server
        )
    with ServerProcess(f"echo{r}", echo_argv(args, out["memory"]["answer_bytes"]), workdir) as echo_server:
        out["echo"] = await scenario(
            "echo", bench_echo(args, echo_server, out["memory"]["request_bytes"]), echo_server
        )
    if not args.no_redis:
        out["redis"] = await bench_redis(args, workdir, r, style)
    return out


async def bench_redis(args: argparse.Namespace, workdir: Path, r: int, style: Style) -> dict[str, Any]:
    ledger = Ledger()
    durable = Style(views=style.views, race_moves=style.race_moves, ledger=ledger)
    with RedisProcess(workdir / f"r{r}") as redis_server:
        argv = server_argv(args, redis_url=redis_server.url)
        with ServerProcess(f"redis-game{r}", argv, workdir) as game_server:
            result = await scenario(
                "game on Redis",
                bench_game(args, [game_server], args.players, durable, args.seconds),
                game_server,
            )
    logged = redis_server.logged()  # after SHUTDOWN: the append-only file is complete
    missing = ledger.moves - logged.moves
    result["log_check"] = {
        "moves_acknowledged": len(ledger.moves),
        "moves_in_log": len(logged.moves),
        "acknowledged_not_in_log": len(missing),
        "resigns_acknowledged": len(ledger.resigns),
        "resigns_acknowledged_not_in_log": len(ledger.resigns - logged.resigns),
    }
    if missing:
        raise BenchError(
            f"{len(missing)} acknowledged moves are not in the Redis log, e.g. {sorted(missing)[:3]}"
        )
    return result


async def bench_idle(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """``--idle`` connections that said hello, then ``--idle-players`` racing while they are there."""
    argv = server_argv(args, conns=args.idle + args.idle_players + 16)
    with ServerProcess("idle", argv, workdir) as server:
        assert server.proc is not None
        rss_before = rss_mib(server.proc.pid)
        idle = IdleClients(server.port)
        load = load_average()
        t0 = time.perf_counter()
        try:
            await idle.open(args.idle)
            opened = time.perf_counter() - t0
            rss_idle = rss_mib(server.proc.pid)
            # a brisk pace (a move every 50-150 ms each): the latency of a player's move, not a flood
            style = Style(views=args.views, pace=(0.05, 0.15), race_moves=args.race_moves)
            game = await scenario(
                "racing beside idle connections",
                bench_game(args, [server], args.idle_players, style, args.seconds, name_offset=50_000),
                server,
            )
            rss_racing = rss_mib(server.proc.pid)
        finally:
            await idle.close()
    return {
        "connections": args.idle,
        "open_seconds": opened,
        "closed_by_server": idle.closed,
        "rss_mib_empty": rss_before,
        "rss_mib_idle": rss_idle,
        "rss_mib_racing": rss_racing,
        "kib_per_connection": None
        if rss_before is None or rss_idle is None
        else (rss_idle - rss_before) * 1024 / args.idle,
        "game": game,
        "load_average": [round(load, 2), round(load_average(), 2)],
    }


async def bench_human(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """``--human`` players, one move every 1 to 2 seconds each."""
    argv = server_argv(args, conns=args.human + 16)
    style = Style(views=args.views, pace=(1.0, 2.0), race_moves=args.race_moves)
    with ServerProcess("human", argv, workdir) as server:
        return await scenario(
            "human pace", bench_game(args, [server], args.human, style, args.human_seconds), server
        )


async def bench_nodes(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """One node alone, then two nodes sharing one Redis with the clients spread over both."""
    style = Style(views=args.views, race_moves=args.race_moves)
    out: dict[str, Any] = {}
    with RedisProcess(workdir / "nodes") as redis_server:
        ports = [free_port(), free_port()]
        argvs = [
            server_argv(args, redis_url=redis_server.url, port=p, public_url=f"ws://{HOST}:{p}/ws")
            for p in ports
        ]
        with ServerProcess("node-a", argvs[0], workdir) as a:
            out["one"] = await scenario(
                "one node", bench_game(args, [a], args.players, style, args.seconds), a
            )
            with ServerProcess("node-b", argvs[1], workdir) as b:
                out["two"] = await scenario(
                    "two nodes",
                    bench_game(args, [a, b], args.players, style, args.seconds, name_offset=20_000),
                    a,
                    b,
                )
    out["ratio"] = out["two"]["per_s"] / out["one"]["per_s"]
    return out


async def bench(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    rounds = [await one_round(args, workdir, r) for r in range(args.repeat)]
    report: dict[str, Any] = {"rounds": rounds}
    if args.idle:
        report["idle"] = await bench_idle(args, workdir)
    if args.human:
        report["human"] = await bench_human(args, workdir)
    if args.nodes:
        report["nodes"] = await bench_nodes(args, workdir)
    return report


# ----- report ------------------------------------------------------------------------------


def _med(values: list[float]) -> float:
    return statistics.median(values)


def ratios(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-round ratios and their medians."""
    each: dict[str, list[float]] = {
        "game_echo": [],
        "game_echo_p99": [],
        "redis_memory": [],
        "cpu_echo_game": [],
    }
    for r in rounds:
        each["game_echo"].append(r["memory"]["per_s"] / r["echo"]["per_s"])
        game_us, echo_us = cpu_us_per_answer(r["memory"]), cpu_us_per_answer(r["echo"])
        if game_us and echo_us:
            each["cpu_echo_game"].append(echo_us / game_us)
        each["game_echo_p99"].append(r["memory"]["p99_ms"] / r["echo"]["p99_ms"])
        if "redis" in r:
            each["redis_memory"].append(r["redis"]["per_s"] / r["memory"]["per_s"])
    return {k: {"each": [round(x, 3) for x in v], "median": _med(v) if v else None} for k, v in each.items()}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def cpu_us_per_answer(r: dict[str, Any]) -> float | None:
    """Server CPU microseconds per answer: what an answer costs, whatever share of the cores the
    server got (on a loaded machine the throughput says more about the neighbours)."""
    if r["server_cpu"] is None or not r["per_s_mean"]:
        return None
    return float(r["server_cpu"] / r["per_s_mean"] * 1e6)


def _row(name: str, players: int, r: dict[str, Any]) -> str:
    load = "/".join(f"{x:.1f}" for x in r["load_average"])
    us = cpu_us_per_answer(r)
    return (
        f"{name:<26}{players:>8}{r['per_s']:>11,.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}"
        f"{r['max_ms']:>9.1f}{r['request_bytes']:>10,}{r['answer_bytes']:>10,}"
        f"{_pct(r['server_cpu']):>9}{'-' if us is None else f'{us:.0f}':>8}{_pct(r['client_cpu']):>9}{load:>12}"
    )


def _check(ok: bool | None) -> str:
    return "-" if ok is None else ("met" if ok else "NOT MET")


def print_table(report: dict[str, Any]) -> None:
    a = report["args"]
    print(f"machine: {report['machine']}")
    print(f"command: {report['command']}")
    print(
        f"setup:   {a['players']} players, {a['variant']} races of {a['seats']} seats, {a['subprotocol']}, "
        f"views {a['views']}, event loop {a['event_loop']} (game and echo servers), "
        f"countdown {a['countdown']:g} s, standings every {a['standings_interval']:g} s; "
        f"{a['seconds']:g} s windows after {a['warmup']:g} s warm-up; {a['repeat']} round(s)"
    )
    if a["profile_server"]:
        print(
            f"         round 1's game server ran under cProfile ({a['profile_server']}): its figures are slower"
        )
    print()
    head = (
        f"{'scenario':<26}{'players':>8}{'answers/s':>11}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'req B':>10}{'answer B':>10}{'srv CPU':>9}{'us/ans':>8}{'cli CPU':>9}{'load avg':>12}"
    )
    print(head)
    for i, r in enumerate(report["rounds"]):
        print(_row(f"{i + 1}. game, memory store", a["players"], r["memory"]))
        print(_row(f"{i + 1}. echo, same frames", a["players"], r["echo"]))
        if "redis" in r:
            print(_row(f"{i + 1}. game, Redis (AOF)", a["players"], r["redis"]))
    print()
    if report["rounds"]:
        print_rounds(report)
    print_long(report)
    print(
        "(answers/s: median of per-second rates; CPU: share of one core; us/ans: server CPU microseconds "
        "per answer; load avg: 1-minute, before/after)"
    )
    print(f"\ntotal time: {report['seconds']:.1f} s")


def print_rounds(report: dict[str, Any]) -> None:
    q = report["ratios"]
    ge, p99, rm = q["game_echo"], q["game_echo_p99"], q["redis_memory"]
    med_p99 = _med([r["memory"]["p99_ms"] for r in report["rounds"]])
    print(
        f"game / echo throughput:   {ge['median']:.2f}x (rounds: {ge['each']})   target >= 0.6x: "
        f"{_check(ge['median'] >= 0.6)}"
    )
    if q["cpu_echo_game"]["median"] is not None:
        print(
            f"echo / game CPU per answer: {q['cpu_echo_game']['median']:.2f}x "
            f"(rounds: {q['cpu_echo_game']['each']}): the throughput ratio with equal shares of the cores"
        )
    print(
        f"game p99 (median):        {med_p99:.2f} ms ({p99['median']:.2f}x the echo's)   target < 10 ms: "
        f"{_check(med_p99 < 10)}"
    )
    if rm["median"] is not None:
        print(
            f"Redis / memory:           {rm['median']:.2f}x (rounds: {rm['each']})   target >= 0.7x: "
            f"{_check(rm['median'] >= 0.7)}"
        )
        for i, r in enumerate(report["rounds"]):
            c = r["redis"]["log_check"]
            print(
                f"  round {i + 1} log check: {c['moves_acknowledged']:,} moves acknowledged, "
                f"{c['moves_in_log']:,} in the append-only file, {c['acknowledged_not_in_log']} missing; "
                f"{c['resigns_acknowledged']} resignations, {c['resigns_acknowledged_not_in_log']} missing"
            )
    r0 = report["rounds"][0]["memory"]
    h = r0["server_handling"]
    if h["mean_ms"] is not None:
        print(
            f"\nround 1 game: server-side move handling (terrace_move_seconds) mean {h['mean_ms']:.3f} ms, "
            + ", ".join(
                f"{h['share_over_seconds'][le]:.1%} over {float(le) * 1000:g} ms"
                for le in SHOWN_BOUNDS
                if le in h["share_over_seconds"]
            )
        )
    print(f"             stalls: {stalls_line(r0)}")
    ev = r0["events"]
    finishes = ", ".join(f"{k.split()[1]} {v}" for k, v in ev.items() if k.startswith("finish "))
    print(
        f"             {r0['answers']:,} moves answered; {ev.get('races created', 0)} races created; "
        f"finishes: {finishes or 'none'}; {ev.get('pushes', 0):,} pushes read"
    )
    errors = [
        e
        for r in report["rounds"]
        for s in r.values()
        if isinstance(s, dict)
        for e in s.get("server_log_errors", [])
    ]
    if errors:
        print(f"WARNING: {len(errors)} error lines in the game servers' logs, the first: {errors[0]}")


def stalls_line(r: dict[str, Any]) -> str:
    """What held the server's loop and the clients' loop over a scenario's window."""
    st, cl = r["server_stalls"], r["client_stalls"]
    gcs = ", ".join(
        f"gen{g} {st[f'gc{g}']['count']}"
        + (
            f" (mean {st[f'gc{g}']['mean_ms']:.1f} ms, {st[f'gc{g}']['over_10ms']} over 10 ms)"
            if st[f"gc{g}"]["count"]
            else ""
        )
        for g in range(3)
    )
    return (
        f"server collections {gcs}; server loop late over 10 ms in {st['lag_over_10ms']} of "
        f"{st['lag_samples']} samples; clients' loop lag p99 {cl['loop_lag_p99_ms']:.1f} ms "
        f"(max {cl['loop_lag_max_ms']:.0f}), their longest collection {cl['gc_max_ms']:.1f} ms "
        f"({cl['gc_full']} full)"
    )


def print_long(report: dict[str, Any]) -> None:
    a = report["args"]
    if "idle" in report:
        d = report["idle"]
        g = d["game"]
        print(
            f"idle: {d['connections']:,} connections said hello in {d['open_seconds']:.1f} s "
            f"({d['closed_by_server']} closed by the server); server RSS {d['rss_mib_empty']:.0f} MiB empty, "
            f"{d['rss_mib_idle']:.0f} MiB with them ({d['kib_per_connection']:.1f} KiB each), "
            f"{d['rss_mib_racing']:.0f} MiB racing   target < 300 MiB: {_check(d['rss_mib_racing'] < 300)}"
        )
        print(
            f"      {a['idle_players']} players racing meanwhile (a move every 50-150 ms each): {g['per_s']:,.0f} moves/s, p50 {g['p50_ms']:.2f} ms, "
            f"p99 {g['p99_ms']:.2f} ms   target p99 < 10 ms: {_check(g['p99_ms'] < 10)}  "
            f"(load {d['load_average'][0]:.1f}/{d['load_average'][1]:.1f})"
        )
    if "human" in report:
        h = report["human"]
        print(
            f"human pace: {a['human']:,} players, a move every 1-2 s each: {h['per_s']:,.0f} moves/s, "
            f"p50 {h['p50_ms']:.2f} ms, p99 {h['p99_ms']:.2f} ms, server CPU {_pct(h['server_cpu'])} "
            f"of a core (clients {_pct(h['client_cpu'])}, {h['events'].get('pushes', 0) / a['human_seconds']:,.0f} "
            f"pushes/s read)   target p99 < 20 ms: {_check(h['p99_ms'] < 20)}  "
            f"(load {h['load_average'][0]:.1f}/{h['load_average'][1]:.1f})"
        )
        sh = h["server_handling"]
        if sh["mean_ms"] is not None:
            over = sh["share_over_seconds"]
            print(
                f"            server-side handling of those moves: mean {sh['mean_ms']:.3f} ms, "
                f"{over.get('0.01', 0):.2%} over 10 ms, {over.get('0.1', 0):.2%} over 100 ms "
                "(the long lost searches, run in worker processes)"
            )
        print(f"            stalls: {stalls_line(h)}")
    if "nodes" in report:
        n = report["nodes"]
        print(
            f"nodes: one node on Redis {n['one']['per_s']:,.0f} moves/s (p99 {n['one']['p99_ms']:.1f} ms), "
            f"two nodes sharing it {n['two']['per_s']:,.0f} moves/s (p99 {n['two']['p99_ms']:.1f} ms): "
            f"{n['ratio']:.2f}x, server CPU {_pct(n['two']['server_cpu'])} of a core over both"
        )


def print_profile(path: str, top: int = 25) -> None:
    import pstats

    print(f"\ngame server profile ({path}), top {top} by own time:", file=sys.stderr)
    pstats.Stats(path, stream=sys.stderr).sort_stats("tottime").print_stats(top)


def event_loop_runner(name: str) -> asyncio.Runner:
    if name == "uvloop":
        import uvloop

        return asyncio.Runner(loop_factory=uvloop.new_event_loop)
    return asyncio.Runner()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=100, help="concurrent clients (default: %(default)s)")
    p.add_argument("--seats", type=int, default=4, help="players per race, at most 8 (default: %(default)s)")
    p.add_argument("--seconds", type=float, default=10.0, help="measured window (default: %(default)s)")
    p.add_argument(
        "--warmup", type=float, default=1.0, help="seconds before the window (default: %(default)s)"
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of the base scenarios; medians over them (0: only the long scenarios asked for)",
    )
    p.add_argument(
        "--variant", default="terrace", choices=list(terrace.VARIANTS), help="(default: %(default)s)"
    )
    p.add_argument(
        "--subprotocol", default="msgpack", choices=list(SUBPROTOCOL_NAMES), help="(default: %(default)s)"
    )
    p.add_argument(
        "--views", default="full", choices=["full", "changes"], help="what the players' hello asks for"
    )
    p.add_argument(
        "--event-loop",
        default="asyncio",
        choices=["asyncio", "uvloop"],
        help="the game servers' and the echo server's event loop (default: %(default)s)",
    )
    p.add_argument(
        "--race-moves",
        type=int,
        default=400,
        help="a player resigns after this many moves in one race (default: %(default)s)",
    )
    p.add_argument(
        "--countdown", type=float, default=0.0, help="server countdown in seconds (default: %(default)s)"
    )
    p.add_argument(
        "--standings-interval",
        type=float,
        default=0.1,
        help="server standings coalescing window in seconds (default: %(default)s, the server's default)",
    )
    p.add_argument(
        "--server-args",
        default="",
        metavar="FLAGS",
        help="more flags for every game server, e.g. '--gc-young-every 0' (default: none)",
    )
    p.add_argument("--no-redis", action="store_true", help="skip the game on Redis")
    p.add_argument("--idle", type=int, default=0, metavar="N", help="also: N idle connections (e.g. 10000)")
    p.add_argument(
        "--idle-players",
        type=int,
        default=40,
        help="players racing (a move every 50-150 ms each) beside the idle ones (default: %(default)s)",
    )
    p.add_argument(
        "--human", type=int, default=0, metavar="N", help="also: N players at a human pace (e.g. 1000)"
    )
    p.add_argument(
        "--human-seconds", type=float, default=20.0, help="window of the human pace (default: %(default)s)"
    )
    p.add_argument("--nodes", action="store_true", help="also: two server nodes sharing one Redis")
    p.add_argument(
        "--profile-server",
        metavar="FILE",
        help="run round 1's in-memory game server under cProfile (CPU time), write its stats to FILE, print the top",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    p.add_argument("--serve-echo", type=int, metavar="ANSWER_BYTES", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.serve_echo is not None:  # the echo server process of a run
        with event_loop_runner(args.event_loop) as runner:
            runner.run(serve_echo(args.serve_echo, SUBPROTOCOL_NAMES[args.subprotocol]))
        return 0
    long_ones = bool(args.idle or args.human or args.nodes)
    if (
        args.players < 1
        or args.race_moves < 1
        or not 1 <= args.seats <= 8
        or args.repeat < (0 if long_ones else 1)
    ):
        p.error(
            "--players, --race-moves and --repeat must be at least 1 (--repeat 0 only with a long "
            "scenario), --seats from 1 to 8"
        )
    if args.seconds <= 0 or args.warmup < 0 or args.countdown < 0 or args.standings_interval < 0:
        p.error("--seconds must be positive; --warmup, --countdown, --standings-interval not negative")

    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="terrace-bench-") as tmp:
            scenarios = asyncio.run(bench(args, Path(tmp)))
    except BenchError as e:
        print(f"server benchmark failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("server benchmark interrupted", file=sys.stderr)
        return 130
    report: dict[str, Any] = {
        **run_info(argv),
        "args": {k: v for k, v in vars(args).items() if k != "serve_echo"},
        **scenarios,
        "ratios": ratios(scenarios["rounds"]),
        "seconds": time.perf_counter() - start,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    if args.profile_server:
        print_profile(args.profile_server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
