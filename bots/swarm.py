"""The swarm: many bot connections racing at once, to measure a server's load from outside.

``N`` players queue for races over their own connections and play them with
a sample bot, until ``M`` races have ended. Every move's answer time is
measured at the client (send to answer, rate-limit waits included); the
report gives moves per second, answer latency p50/p99/max, errors by code and
the connections held at the peak.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from link import Connection, Offline
from terrace.wire.conversation import Message

from .bot import BotFactory, load_bot
from .sdk import _decide
from .stats import percentile


@dataclass
class SwarmReport:
    players: int
    races: int  # races that ended with swarm players in them
    moves: int  # moves the server accepted
    seconds: float
    latencies: list[float] = field(default_factory=list, repr=False)  # seconds per accepted move
    errors: Counter[str] = field(default_factory=Counter)
    connections_peak: int = 0
    rate_limited: int = 0

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        return {
            "players": self.players,
            "races": self.races,
            "moves": self.moves,
            "seconds": round(self.seconds, 3),
            "moves_per_s": round(self.moves / self.seconds, 1) if self.seconds else 0.0,
            "latency_ms": {
                "p50": _ms(percentile(lat, 50) if lat else None),
                "p99": _ms(percentile(lat, 99) if lat else None),
                "max": _ms(lat[-1] if lat else None),
                "mean": _ms(statistics.fmean(lat) if lat else None),
            },
            "errors": dict(sorted(self.errors.items())),
            "connections_peak": self.connections_peak,
            "rate_limited": self.rate_limited,
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


class _Swarm:
    def __init__(self, url: str, factory: BotFactory, variant: str, races: int, players: int) -> None:
        self.url = url
        self.factory = factory
        self.variant = variant
        self.target = races
        self.report = SwarmReport(players=players, races=0, moves=0, seconds=0.0)
        self.ended: set[str] = set()
        self.open = 0
        self.done = asyncio.Event()

    async def player(self, n: int) -> None:
        try:
            link = await Connection.open(self.url)
        except Offline:
            self.report.errors["connect_failed"] += 1
            return
        self.open += 1
        self.report.connections_peak = max(self.report.connections_peak, self.open)
        try:
            welcome = await link.request("hello", name=f"swarm-{n}")
            if welcome["type"] != "welcome":
                self.report.errors[welcome.get("code", "hello_failed")] += 1
                return
            while not self.done.is_set():
                queued = await link.request("queue", variant=self.variant, pool="all")
                if queued["type"] != "queued":
                    self.report.errors[queued.get("code", "queue_failed")] += 1
                    return
                started = await self._wait(link, "started")
                if started is None:
                    return
                await self._race(link, started)
        except Offline:
            self.report.errors["connection_lost"] += 1
        finally:
            self.report.rate_limited += link.rate_limited
            self.open -= 1
            await link.close()

    async def _wait(self, link: Connection, *types: str, race: str | None = None) -> Message | None:
        """A push, or None once the swarm is done (players still queued stop waiting)."""
        waiter = asyncio.ensure_future(link.push(*types, race=race))
        done = asyncio.ensure_future(self.done.wait())
        await asyncio.wait({waiter, done}, return_when=asyncio.FIRST_COMPLETED)
        if waiter.done():
            done.cancel()
            return waiter.result()
        waiter.cancel()
        return None

    async def _race(self, link: Connection, started: Message) -> None:
        race, view, legal, seq = started["race"], started["view"], started["legal"], 0
        bot = self.factory()
        bot.start({"race": race, "variant": self.variant, "goal": started.get("goal", "terrace")})
        while legal:
            choice = await _decide(bot, view, legal)
            if choice is None:
                await link.request("resign", race=race)
                break
            answer, took = await link.timed("move", race=race, seq=seq + 1, move=choice)
            if answer["type"] != "moved":
                self.report.errors[answer.get("code", "?")] += 1
                if answer.get("code") != "illegal_move":
                    break
                await link.request("resign", race=race)
                break
            self.report.moves += 1
            self.report.latencies.append(took)
            seq, view, legal = answer["seq"], answer["view"], answer["legal"]
            if answer.get("finish"):
                break
        await link.push("finished", race=race)
        if race not in self.ended:
            self.ended.add(race)
            self.report.races = len(self.ended)
            if len(self.ended) >= self.target:
                self.done.set()


async def swarm(
    url: str, players: int, races: int, *, bot: str = "greedy", variant: str = "terrace"
) -> SwarmReport:
    """Run ``players`` connections until ``races`` races have ended; returns the report."""
    if players < 2 or races < 1:
        raise ValueError("a swarm needs at least 2 players and 1 race")
    s = _Swarm(url, load_bot(bot), variant, races, players)
    t0 = time.perf_counter()
    await asyncio.gather(*(s.player(n) for n in range(1, players + 1)))
    s.report.seconds = time.perf_counter() - t0
    return s.report
