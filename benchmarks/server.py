#!/usr/bin/env python3
"""Benchmark the race server: moves per second and move-answer latency under load.

Two scenarios, one after the other in the same run, each measured over the same
window after a warm-up:

- game: ``--players`` websocket clients (100) race over loopback against a real
  ``terrace-server`` in its own process. Races are formed the way people form
  them: a free player creates a race (``start: "full"``, ``--seats`` seats) and
  the next free players join it. Each player plays a simple view-only policy
  (a foundation move, else the stock, else any legal move that does not undo the
  last one) as fast as the answers come, one move in flight, and goes straight
  into a new race when its race is over for it (goal, stuck, or ``--race-moves``
  moves and it resigns). Latency is from sending a ``move`` to receiving the
  ``moved`` that answers it (``id``/``re``); pushes (``race``, ``standings``,
  ...) arriving in between are read and skipped.
- echo: the same number of clients doing request/answer round trips with a
  bare websockets server in its own process (same transport settings, same
  codec, no game), with frames of the median sizes of the game's ``move``
  request and ``moved`` answer. The ratio game/echo shows what the game costs.

Throughput is the median of the per-second rates over the window; latencies are
over every answer received in the window. CPU is a share of one core: the
server process, its child processes (the game server's lost-search workers),
and this process (all the clients share one event loop). The game server gets
its limits raised for the load (``rate``, ``burst``, ``address_rate``, ``address_burst``,
``max_conns_per_address``: every client comes from one address)
and a zero countdown so the load stays steady.

    python benchmarks/server.py                          # 100 players, 10 s windows: ~30 s
    python benchmarks/server.py --players 4 --seconds 1 --json
    python benchmarks/server.py --profile-server /tmp/server.prof   # cProfile the game server
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import signal
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
from terrace.moves import Move  # noqa: E402
from terrace.protocol import JSON, MSGPACK, decode, encode  # noqa: E402

HOST = "127.0.0.1"
MAX_FRAME = 65_536  # the server's default max_frame; the echo server uses the same
START_TIMEOUT = 30.0  # seconds for a server process to listen, or for every player's first race
CONNECTS_AT_ONCE = 25  # websocket handshakes in flight while the clients connect
SUBPROTOCOL_NAMES = {"msgpack": MSGPACK, "json": JSON}
SHOWN_BOUNDS = ("0.001", "0.01", "0.1")  # terrace_move_seconds bounds shown in the table
LISTENING = re.compile(r"listening on ws://[^:\s]+:(\d+)/ws")


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


def server_argv(args: argparse.Namespace) -> list[str]:
    argv = [
        *("--host", HOST, "--port", "0"),
        *("--rate", "1000000", "--burst", "1000000"),  # the per-connection limits are not under test
        *("--address-rate", "1000000", "--address-burst", "1000000"),  # nor the per-address ones:
        *("--max-open-races-per-address", "1000000"),  # every client shares one loopback address
        *("--max-conns-per-address", str(args.players + 16)),
        *("--countdown", str(args.countdown)),
        *("--standings-interval", str(args.standings_interval)),
    ]
    if args.profile_server:
        return [sys.executable, "-m", "cProfile", "-o", args.profile_server, "-m", "server", *argv]
    return [sys.executable, "-m", "server", *argv]


def echo_argv(args: argparse.Namespace, answer_size: int) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--serve-echo",
        str(answer_size),
        "--subprotocol",
        args.subprotocol,
    ]


def fetch_metrics(port: int) -> dict[str, float]:
    """The game server's Prometheus counters we use (flat ``name{labels}`` -> value)."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(("terrace_move_seconds", "terrace_moves_total", "terrace_errors_total")):
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
        await asyncio.gather(*self.tasks, return_exceptions=True)
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


class Player:
    """One racing client: requests one at a time, pushes read and skipped as they come."""

    def __init__(self, n: int, ws: ClientConnection, subprotocol: str, meter: Meter, race_moves: int) -> None:
        self.n = n
        self.ws = ws
        self.subprotocol = subprotocol
        self.meter = meter
        self.race_moves = race_moves
        self.rng = random.Random(n)
        self.ids = 0
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
        welcome = await self.call({"type": "hello", "name": f"bench{self.n:03d}"})
        if welcome.get("type") != "welcome":
            raise BenchError(f"hello answered with {welcome}")

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
        for _ in range(self.race_moves):
            if not legal:
                break
            move = choose(legal, last, self.rng)
            seq += 1
            answer, sent, received, out, in_ = await self.exchange(
                {"type": "move", "race": race_id, "seq": seq, "move": move}
            )
            if answer.get("type") != "moved":
                raise BenchError(f"move answered with {answer.get('type')}: {answer}")
            self.meter.answer(sent, received, out, in_)
            if answer.get("finish"):
                self.meter.count(f"finish {answer['finish']}")
                return
            legal, last = answer["legal"], answer["move"]
        await self.call({"type": "resign", "race": race_id})
        self.meter.count("finish resigned")


async def bench_game(args: argparse.Namespace, server: ServerProcess) -> dict[str, Any]:
    sub = SUBPROTOCOL_NAMES[args.subprotocol]
    url = f"ws://{HOST}:{server.port}/ws"
    run = Run()
    clients = await open_clients(url, args.players, sub)
    try:
        players = [Player(i, ws, sub, run.meter, args.race_moves) for i, ws in enumerate(clients)]
        await run.wait(asyncio.gather(*(p.hello() for p in players)), START_TIMEOUT, "every welcome")
        matchmaker = Matchmaker(args.variant, args.seats)
        for p in players:
            run.spawn(f"player {p.n}", p.run(matchmaker))
        everyone = asyncio.gather(*(p.racing.wait() for p in players))
        await run.wait(everyone, START_TIMEOUT, "every player's first race to start")
        await run.wait(asyncio.sleep(args.warmup), args.warmup + 5, "the warm-up")
        before = await asyncio.to_thread(fetch_metrics, server.port)
        cpu0, client0 = server.cpu_seconds(), time.process_time()
        run.meter.start = time.perf_counter()
        run.meter.end = run.meter.start + args.seconds
        await run.wait(asyncio.sleep(args.seconds), args.seconds + 5, "the window")
        cpu1, client1 = server.cpu_seconds(), time.process_time()
        after = await asyncio.to_thread(fetch_metrics, server.port)
    finally:
        await run.stop()
        await close_clients(clients)
    result = summarize(run.meter, args.seconds, "game")
    result["events"] = dict(sorted(run.meter.events.items()))
    result["server_handling"] = move_handling(before, after)
    cpu = cpu_share(cpu0, cpu1, args.seconds)
    result["server_cpu"], result["server_children_cpu"] = cpu["server"], cpu["children"]
    result["client_cpu"] = (client1 - client0) / args.seconds
    return result


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


# ----- report ------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def print_table(report: dict[str, Any]) -> None:
    a = report["args"]
    game, echo, ratio = report["game"], report["echo"], report["ratio"]
    print(f"machine: {report['machine']}")
    print(f"command: {report['command']}")
    print(
        f"setup:   {a['players']} players, {a['variant']} races of {a['seats']} seats, "
        f"{a['subprotocol']}, countdown {a['countdown']:g} s, standings every {a['standings_interval']:g} s; "
        f"{a['seconds']:g} s window after {a['warmup']:g} s warm-up"
    )
    if a["profile_server"]:
        print(f"         game server under cProfile ({a['profile_server']}): its figures are not comparable")
    print()
    print(
        f"{'scenario':<24}{'players':>8}{'answers/s':>11}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'request B':>11}{'answer B':>10}{'server CPU':>12}{'workers CPU':>13}{'client CPU':>12}"
    )
    for name, r in (("game: move -> moved", game), ("echo: same frame sizes", echo)):
        print(
            f"{name:<24}{a['players']:>8}{r['per_s']:>11,.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}"
            f"{r['max_ms']:>9.1f}{r['request_bytes']:>11,}{r['answer_bytes']:>10,}"
            f"{_pct(r['server_cpu']):>12}{_pct(r['server_children_cpu']):>13}{_pct(r['client_cpu']):>12}"
        )
    print(
        f"{'game / echo':<24}{'':>8}{ratio['throughput']:>10.2f}x{ratio['p50']:>8.2f}x{ratio['p99']:>8.2f}x"
    )
    print()
    ev = game["events"]
    h = game["server_handling"]
    finishes = ", ".join(f"{k.split()[1]} {v}" for k, v in ev.items() if k.startswith("finish "))
    pushes = ", ".join(
        f"{k.split()[1]} {v}" for k, v in ev.items() if k.startswith("push ") and k != "push bytes"
    )
    print(
        f"game window: {game['answers']:,} moves answered; {ev.get('races created', 0)} races created; "
        f"finishes: {finishes or 'none'}"
    )
    print(
        f"             {ev.get('pushes', 0):,} pushes ({ev.get('push bytes', 0):,} B) skipped by clients: {pushes}"
    )
    if h["mean_ms"] is not None:
        print(
            f"             server-side move handling (terrace_move_seconds): mean {h['mean_ms']:.3f} ms, "
            + ", ".join(
                f"{h['share_over_seconds'][le]:.1%} over {float(le) * 1000:g} ms"
                for le in SHOWN_BOUNDS
                if le in h["share_over_seconds"]
            )
        )
    if h["errors"]:
        print(f"             server error answers: {h['errors']}")
    if game["server_log_errors"]:
        n, first = len(game["server_log_errors"]), game["server_log_errors"][0]
        print(f"             WARNING: {n} error lines in the game server's log, the first: {first}")
    print("(answers/s: median of per-second rates; CPU: share of one core; sizes: median frame bytes)")
    print()
    print(f"total time: {report['seconds']:.1f} s")


def print_profile(path: str, top: int = 25) -> None:
    import pstats

    print(f"\ngame server profile ({path}), top {top} by own time:", file=sys.stderr)
    pstats.Stats(path, stream=sys.stderr).sort_stats("tottime").print_stats(top)


async def bench(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    with ServerProcess("game", server_argv(args), workdir) as game_server:
        try:
            game = await bench_game(args, game_server)
            game["server_log_errors"] = [
                line for line in game_server.log().splitlines() if " ERROR " in line or "Traceback" in line
            ]
        except (BenchError, OSError, EOFError) as e:
            if not game_server.alive():
                raise BenchError(f"{e} (the game server died){game_server.tail()}") from e
            raise BenchError(f"{e}{game_server.tail()}") from e
        except Exception as e:  # a connection closed under a player, ...
            raise BenchError(f"game: {type(e).__name__}: {e}{game_server.tail()}") from e
    with ServerProcess("echo", echo_argv(args, game["answer_bytes"]), workdir) as echo_server:
        try:
            echo = await bench_echo(args, echo_server, game["request_bytes"])
        except Exception as e:
            raise BenchError(f"echo: {type(e).__name__}: {e}{echo_server.tail()}") from e
    return {"game": game, "echo": echo}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=100, help="concurrent clients (default: %(default)s)")
    p.add_argument("--seats", type=int, default=4, help="players per race, at most 8 (default: %(default)s)")
    p.add_argument("--seconds", type=float, default=10.0, help="measured window (default: %(default)s)")
    p.add_argument(
        "--warmup", type=float, default=1.0, help="seconds before the window (default: %(default)s)"
    )
    p.add_argument(
        "--variant", default="terrace", choices=list(terrace.VARIANTS), help="(default: %(default)s)"
    )
    p.add_argument(
        "--subprotocol", default="msgpack", choices=list(SUBPROTOCOL_NAMES), help="(default: %(default)s)"
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
        "--profile-server",
        metavar="FILE",
        help="run the game server under cProfile, write its stats to FILE and print the top functions",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    p.add_argument("--serve-echo", type=int, metavar="ANSWER_BYTES", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.serve_echo is not None:  # the echo server process of a run
        asyncio.run(serve_echo(args.serve_echo, SUBPROTOCOL_NAMES[args.subprotocol]))
        return 0
    if args.players < 1 or args.race_moves < 1 or not 1 <= args.seats <= 8:
        p.error("--players and --race-moves must be at least 1, --seats from 1 to 8")
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
    game, echo = scenarios["game"], scenarios["echo"]
    report: dict[str, Any] = {
        **run_info(argv),
        "args": vars(args) | {"serve_echo": None},
        **scenarios,
        "ratio": {
            "throughput": game["per_s"] / echo["per_s"],
            "p50": game["p50_ms"] / echo["p50_ms"],
            "p99": game["p99_ms"] / echo["p99_ms"],
        },
        "seconds": time.perf_counter() - start,
    }
    del report["args"]["serve_echo"]
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    if args.profile_server:
        print_profile(args.profile_server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
