"""The server's settings: defaults, ``TERRACE_*`` environment variables and command-line flags.

Every setting has one flag and one variable: ``--max-frame`` is ``TERRACE_MAX_FRAME``.
Flags win over the environment, the environment over the defaults.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8765
    public_url: str = ""  # how clients reach this node; derived from host and port when empty
    redis_url: str = ""  # the shared store; empty: the embedded memory store
    # limits
    max_frame: int = 65_536  # bytes per websocket message; larger closes with 1009
    rate: float = 200.0  # messages per second per connection (token bucket refill)
    burst: int = 1_000  # token bucket size: a whole game's moves at full speed
    max_conns_per_address: int = 128
    max_pending: int = 32  # requests waiting on one connection before `busy`
    max_bad_messages: int = 20  # bad or refused-by-rate messages in a row before close 1008
    max_seats: int = 8
    max_time_limit: int = 7_200  # seconds
    # race timing, seconds
    default_time_limit: int = 900
    countdown: float = 3.0
    grace: float = 60.0  # a disconnected player may come back within this
    queue_seats: int = 4
    queue_wait: float = 10.0  # start a queue group of two or more after the oldest waited this long
    standings_interval: float = 0.1  # standings pushes are coalesced over this window
    keep_finished: int = 1_000  # finished race records kept in memory
    search_workers: int = 2  # processes for the lost-game search

    @property
    def url(self) -> str:
        return self.public_url or f"ws://{self.host}:{self.port}/ws"


_HELP = {
    "host": "address to listen on",
    "port": "port to listen on (0 picks a free one)",
    "public_url": "the websocket URL clients use to reach this node",
    "redis_url": "Redis URL for accounts, records, leaderboards and live races (empty: in memory)",
    "max_frame": "largest websocket message in bytes",
    "rate": "messages per second allowed per connection",
    "burst": "messages a connection may send at once before the rate applies",
    "max_conns_per_address": "open connections allowed from one address",
    "max_pending": "requests that may wait on one connection",
    "max_bad_messages": "bad messages in a row before the connection is closed",
    "max_seats": "most seats a race may have",
    "max_time_limit": "longest race time limit in seconds",
    "default_time_limit": "race time limit in seconds when `create` names none",
    "countdown": "seconds between a race starting and its first view",
    "grace": "seconds a disconnected player has to come back",
    "queue_seats": "players the matchmaking queue puts in one race",
    "queue_wait": "seconds the queue waits for a full race before starting one of two or more",
    "standings_interval": "seconds over which standings pushes are coalesced",
    "keep_finished": "finished race records kept in memory",
    "search_workers": "worker processes for the lost-game search (kept off the event loop)",
}


def env_name(field: str) -> str:
    return "TERRACE_" + field.upper()


def parse(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """A Config from flags over ``TERRACE_*`` variables over the defaults."""
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="terrace-server",
        description="Run the Terrace Race server (protocol v1 on ws://HOST:PORT/ws, /healthz, /metrics).",
    )
    base = Config()
    values: dict[str, object] = {}
    for f in fields(Config):
        kind = type(getattr(base, f.name))
        default = getattr(base, f.name)
        if env_name(f.name) in environ:
            raw = environ[env_name(f.name)]
            try:
                default = kind(raw)
            except ValueError:
                parser.error(f"{env_name(f.name)}={raw!r} is not a valid {kind.__name__}")
        values[f.name] = default
        parser.add_argument(
            "--" + f.name.replace("_", "-"),
            *_ALIASES.get(f.name, ()),
            type=kind,
            default=default,
            metavar=kind.__name__.upper(),
            help=f"{_HELP[f.name]} (env {env_name(f.name)}, default {getattr(base, f.name)!r})",
        )
    args = parser.parse_args(argv)
    config = dataclasses.replace(base, **vars(args))
    problems = [f"--{k.replace('_', '-')} must be positive" for k in _POSITIVE if not getattr(config, k) > 0]
    problems += [
        f"--{k.replace('_', '-')} must not be negative" for k in _NOT_NEGATIVE if not getattr(config, k) >= 0
    ]
    problems += [
        f"--{f.name.replace('_', '-')} must be a finite number"
        for f in fields(Config)
        if isinstance(getattr(config, f.name), float) and not math.isfinite(getattr(config, f.name))
    ]
    if not 0 <= config.port <= 65_535:
        problems.append("--port must be 0..65535")
    if config.queue_seats < 2:
        problems.append("--queue-seats must be at least 2 (matchmaking makes races of two or more)")
    if not 0 < config.default_time_limit <= config.max_time_limit:
        problems.append("--default-time-limit must be positive and at most --max-time-limit")
    if problems:
        parser.error("; ".join(problems))
    return config


_ALIASES = {"redis_url": ("--redis",)}

_POSITIVE = (
    "max_frame",
    "rate",
    "burst",
    "search_workers",
    "max_conns_per_address",
    "max_pending",
    "max_seats",
    "max_time_limit",
)
_NOT_NEGATIVE = (
    "countdown",
    "grace",
    "queue_wait",
    "standings_interval",
    "max_bad_messages",
    "keep_finished",
)
