"""The server benchmark's clients: racing players and the echo baseline's clients.

A :class:`Player` races over its own websocket with a simple view-only policy (:func:`choose`),
one request in flight, pushes read and skipped as they come; races are formed client-side by a
:class:`Matchmaker` (a free player creates one, the next free players join it). A :class:`Run`
holds one scenario's clients, its :class:`~benchmarks.common.Meter` and the first failure of any
of them. :class:`ClientStalls` measures what holds this process's own event loop during a window.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from benchmarks.common import BenchError, Meter, percentile
from terrace.rules.moves import Move
from terrace.wire.protocol import JSON, MSGPACK, decode, encode

HOST = "127.0.0.1"
MAX_FRAME = 65_536  # the server's default max_frame; the echo server uses the same
START_TIMEOUT = 30.0  # seconds for a server process to listen, or for every player's first race
CONNECTS_AT_ONCE = 25  # websocket handshakes in flight while the clients connect
SUBPROTOCOL_NAMES = {"msgpack": MSGPACK, "json": JSON}

# ----- measuring ---------------------------------------------------------------------------


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
        task.add_done_callback(retrieve_failure)
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


def retrieve_failure(task: asyncio.Task[None]) -> None:
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

    async def run(self, matchmaker: Matchmaker, races: int | None = None) -> None:
        """Race one race after another: for ever, or ``races`` of them."""
        done = 0
        while races is None or done < races:
            done += 1
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


# ----- the echo baseline: its clients ---------------------------------------------------------


def padded(base: dict[str, Any], size: int, subprotocol: str) -> dict[str, Any]:
    """``base`` with a ``pad`` string making its encoded frame ``size`` bytes (or just under)."""
    n = max(0, size - frame_size(encode({**base, "pad": ""}, subprotocol)))
    while n > 0 and frame_size(encode({**base, "pad": "x" * n}, subprotocol)) > size:
        n -= 1
    return {**base, "pad": "x" * n}


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
