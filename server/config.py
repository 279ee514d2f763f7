"""The server's settings: defaults, ``TERRACE_*`` environment variables and command-line flags.

Every setting has one flag and one variable: ``--max-frame`` is ``TERRACE_MAX_FRAME``.
Flags win over the environment, the environment over the defaults.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import math
import os
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from terrace.race.arena import parse_schedules
from terrace.rules.variants import VARIANTS

Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


def proxy_networks(spec: str) -> Networks:
    """The networks of ``--trusted-proxies`` (``"10.0.0.5, 10.1.0.0/16"``); ValueError names a bad one."""
    networks = []
    for part in (p.strip() for p in spec.split(",")):
        if part:
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part!r} is not an address or a network") from None
    return tuple(networks)


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
    # open connections in all; past it a handshake is answered 503 (kept under the open-files
    # limit, which the server lowers it to: past that limit accepting fails and floods the log)
    max_connections: int = 12_000
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
    # ----- holding under attack: every limit on one connection, address or player -----
    max_write_buffer: int = 131_072  # unsent bytes past which a connection is cut off at its next write
    send_buffer: int = 262_144  # the kernel's send buffer per socket (0: the kernel's own, megabytes)
    slow_reader_deadline: float = 10.0  # seconds a connection may stay behind (over 32 KiB unsent)
    bytes_per_token: int = 1_024  # a message costs 1 token plus 1 per this many bytes
    address_rate: float = 1_000.0  # tokens per second shared by every connection from one address
    address_burst: int = 5_000  # and its bucket size; kept while the address is away
    control_frames: float = 10.0  # websocket pings and pongs a connection may send per second
    handshake_timeout: float = 5.0  # seconds from accept to a finished websocket handshake
    max_open_races_per_player: int = 3  # races a player created that have not started
    max_open_races_per_address: int = 20  # the same, from every player of one address
    open_race_timeout: float = 1_800.0  # seconds an unstarted race waits before it is cancelled
    races_page: int = 200  # races in one `races` or `subscribe` answer
    registrations_per_hour: int = 20  # accounts one address may register in an hour
    # the key that lets the operator's house take names beginning with "house" (terrace.wire.house);
    # empty: the key file's, made the first time
    house_key: str = ""
    house_key_file: str = ""  # where the key is kept when house_key is empty ("": the default place)
    origins: str = ""  # web origins besides the server's own pages that may open /ws ("*": any)
    trusted_proxies: str = ""  # proxies whose X-Forwarded-For names the client (addresses or networks)
    rated_seats_per_address: int = 1  # registered players of one address one race may seat (0: any)
    # ----- boards a scout cannot top (server.players.fairplay) -----
    established_races: int = 3  # finished rated races before a human account counts on the boards
    established_hours: float = 24.0  # and its age (a daily attempt: made before the day before began)
    pace_check: bool = True  # hold back and flag a human's result played faster than a person plays
    winnable_seconds: float = 8.0  # longest a `create {deals: "winnable"}` waits for a proven deal
    restore_budget: float = 2.0  # seconds of log replay a starting server waits for before it accepts
    memory_sessions: int = 5_000  # sessions the in-memory store keeps (the oldest go first)
    analysis_nodes: int = 40_000  # hindsight (`analysis`): positions searched per position asked about
    analysis_probes: int = (
        12  # hindsight: one player's game's budget, in questions' worth (nodes * probes positions)
    )
    # ----- many nodes, one game (shared sessions, queues and races)
    session_ttl: float = 86_400.0  # seconds a session stays good after its last hello, on every node
    redis_mode: str = "single"  # "single": one Redis (or a primary); "cluster": Redis Cluster seed URL
    redis_replica_acks: int = 0  # replicas that must have a move's log entry before it is answered
    # ----- speed
    event_loop: str = "auto"  # "auto" (uvloop where installed: 7-12% less CPU a move), "asyncio", "uvloop"
    # the garbage collector's thresholds (gen0,gen1,gen2; Python's own are 700,10,10): a full
    # collection scans every live object (0.1-0.3 s with 1,000 players), so it waits for 300
    # collections of the middle generation; the middle one, kept small, every 3 young ones
    gc_thresholds: str = "700,3,300"
    gc_young_every: float = 0.05  # seconds between young collections on a timer (0: CPython's counts only)
    # ----- the daily deal
    daily_secret: str = ""  # hex key the daily seeds come from; empty: made once and kept in the store
    daily_prepare: float = 0.0  # seconds between draws ahead of today's and tomorrow's deals (0: on demand)
    # ----- arenas (server.arenas)
    arena_schedule: str = ""  # "VARIANT POOL LENGTHm every PERIODm", ";"-separated; empty: none
    # ----- the house (bots.house, run as a child process that dies with the server)
    house: str = ""  # variants the house bots wait in ("all" or "terrace,louis"); empty: no house


_HELP = {
    "host": "address to listen on",
    "port": "port to listen on (0 picks a free one)",
    "public_url": "the websocket URL clients use to reach this node",
    "redis_url": "Redis URL for accounts, records, leaderboards and live races (empty: in memory)",
    "max_frame": "largest websocket message in bytes",
    "rate": "messages per second allowed per connection",
    "burst": "messages a connection may send at once before the rate applies",
    "max_conns_per_address": "open connections allowed from one address",
    "max_connections": "open connections allowed in all (lowered to fit the open-files limit)",
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
    # holding under attack
    "max_write_buffer": "unsent bytes (beyond the kernel's send buffer) past which a connection is cut off",
    "send_buffer": "kernel send buffer per socket in bytes (0: the kernel's own, which grows to megabytes)",
    "slow_reader_deadline": "seconds a connection may stay behind in reading before it is cut off",
    "bytes_per_token": "a message costs one token plus one per this many bytes",
    "address_rate": "tokens per second shared by every connection from one address",
    "address_burst": "tokens one address may spend at once (its bucket outlives its connections)",
    "control_frames": "websocket control frames (ping, pong) a connection may send per second",
    "handshake_timeout": "seconds a new connection has to finish its websocket handshake",
    "max_open_races_per_player": "unstarted races one player may have created",
    "max_open_races_per_address": "unstarted races the players of one address may have created",
    "open_race_timeout": "seconds an unstarted race waits before it is cancelled",
    "races_page": "races listed in one `races` or lobby `subscribe` answer",
    "registrations_per_hour": "accounts one address may register in an hour",
    "house_key": "the key house bots show to take names beginning with 'house' (empty: the key file's)",
    "house_key_file": "file the house key is kept in when --house-key is empty, made the first time "
    "(empty: $XDG_DATA_HOME/terrace-race/house.key); terrace-bot house reads the same",
    "origins": "comma-separated web origins (besides the server's own pages) allowed to open /ws; * for any",
    "rated_seats_per_address": (
        "registered players from one address one race may seat (0: no limit); in an arena's race, people (guests too)"
    ),
    "established_races": "finished rated races a human account needs before its results count on the boards",
    "established_hours": "hours a human account must have existed before its results count on the boards",
    "pace_check": "hold back (and flag) a human account's result whose moves came faster than a person plays",
    "trusted_proxies": "comma-separated addresses or networks of proxies in front of the server: for a connection from one,"
    " the per-address limits count the client its X-Forwarded-For names, not the proxy",
    "winnable_seconds": "longest a winnable-only create searches for a winnable deal before refusing",
    "restore_budget": "seconds a starting server spends replaying race logs before it accepts connections",
    "memory_sessions": "sessions the in-memory store keeps; past it the one put longest ago goes",
    "analysis_nodes": "hindsight analysis: solver positions per position of a finished game asked about",
    "analysis_probes": "hindsight analysis: one player's game's budget, in questions of analysis_nodes positions",
    # ----- many nodes, one game
    "session_ttl": "seconds a session stays good on every node after its last hello",
    "redis_mode": "'single' for one Redis, 'cluster' for Redis Cluster (--redis-url names any node)",
    "redis_replica_acks": "Redis replicas that must have each move before it is answered (WAIT)",
    # ----- speed
    "event_loop": "'auto' (uvloop where it is installed, as it is by default except on Windows; else asyncio), "
    "'asyncio' (the standard library's) or 'uvloop'",
    "gc_thresholds": "the garbage collector's thresholds 'GEN0,GEN1,GEN2' (Python's own: 700,10,10); "
    "a larger GEN2 spaces out the full collections that stall the event loop",
    "gc_young_every": "seconds between collections of the garbage collector's youngest generation on a "
    "timer, which keeps each one short (0: only when CPython's allocation count says)",
    "daily_secret": "hex key the daily deals' seeds are drawn from, the same on every node (empty: made once, kept in the store)",
    "daily_prepare": "seconds between checks that today's and tomorrow's daily deals are drawn (0: drawn when first asked for)",
    # ----- arenas
    "arena_schedule": "arenas made by the clock: 'VARIANT POOL LENGTHm every PERIODm', ';'-separated",
    "house": "start house bots (terrace-bot house) waiting in these variants' queues, 'all' or "
    "comma-separated; --house alone: all; they stop with the server",
}


def env_name(field: str) -> str:
    return "TERRACE_" + field.upper()


def _switch(text: str) -> bool:
    """A yes/no setting: true, yes, on or 1; false, no, off or 0."""
    word = text.strip().lower()
    if word in ("true", "yes", "on", "1"):
        return True
    if word in ("false", "no", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is neither true nor false")


def _kind_name(kind: Callable[[str], object]) -> str:
    return "bool" if kind is _switch else getattr(kind, "__name__", "value")


def parse(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """A Config from flags over ``TERRACE_*`` variables over the defaults."""
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="terrace-server",
        description="Run the Terrace Race server (protocol v1 on ws://HOST:PORT/ws, /healthz, /metrics).",
        epilog=(
            "terrace-server arena create|list ... makes and lists arenas (terrace-server arena --help); "
            "terrace-server admin flags|void|restore ... sees and acts on fair-play flags (terrace-server admin --help)."
        ),
    )
    base = Config()
    values: dict[str, object] = {}
    for f in fields(Config):
        kind: Callable[[str], object] = (
            _switch if isinstance(getattr(base, f.name), bool) else type(getattr(base, f.name))
        )
        default = getattr(base, f.name)
        if env_name(f.name) in environ:
            raw = environ[env_name(f.name)]
            try:
                default = kind(raw)
            except (ValueError, argparse.ArgumentTypeError):
                parser.error(f"{env_name(f.name)}={raw!r} is not a valid {_kind_name(kind)}")
        values[f.name] = default
        parser.add_argument(
            "--" + f.name.replace("_", "-"),
            *_ALIASES.get(f.name, ()),
            **_BARE.get(f.name, {}),
            type=kind,
            default=default,
            metavar=_kind_name(kind).upper(),
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
    if config.redis_url and urllib.parse.urlsplit(config.redis_url).scheme not in REDIS_SCHEMES:
        problems.append(
            f"--redis-url {config.redis_url!r} needs a scheme: redis://HOST:PORT/DB, rediss:// (TLS) or unix://PATH"
        )
    if config.redis_mode not in REDIS_MODES:
        problems.append(f"--redis-mode must be one of {', '.join(REDIS_MODES)}")
    if config.event_loop not in EVENT_LOOPS:
        problems.append(f"--event-loop must be one of {', '.join(EVENT_LOOPS)}")
    if gc_thresholds(config.gc_thresholds) is None:
        problems.append("--gc-thresholds must be three positive integers: GEN0,GEN1,GEN2 (e.g. 700,3,300)")
    if config.daily_secret:
        try:
            if len(bytes.fromhex(config.daily_secret)) < 16:
                problems.append("--daily-secret must be at least 16 bytes (32 hex digits)")
        except ValueError:
            problems.append("--daily-secret must be hexadecimal digits, two for each byte (an even count)")
    if config.public_url and urllib.parse.urlsplit(config.public_url).scheme not in ("ws", "wss"):
        problems.append(f"--public-url {config.public_url!r} must be a ws:// or wss:// URL")
    try:
        proxy_networks(config.trusted_proxies)
    except ValueError as e:
        problems.append(f"--trusted-proxies: {e}")
    try:
        parse_schedules(config.arena_schedule)
    except ValueError as e:
        problems.append(f"--arena-schedule: {e}")
    try:
        house_variants(config.house)
    except ValueError as e:
        problems.append(f"--house: {e}")
    if problems:
        parser.error("; ".join(problems))
    return config


def gc_thresholds(text: str) -> tuple[int, int, int] | None:
    """The ``gc_thresholds`` setting as gc.set_threshold's three numbers, or None if it is not
    three positive integers (0 would turn collection off: cycles would pile up for ever)."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and int(p) > 0 for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


_ALIASES = {"redis_url": ("--redis",)}
_BARE: dict[str, dict[str, Any]] = {"house": {"nargs": "?", "const": "all"}}  # the flag alone means this


def house_variants(spec: str) -> list[str]:
    """The variants of the ``house`` setting (``"all"``, ``"terrace, louis"``); ValueError names a bad one."""
    names = [p.strip() for p in spec.split(",") if p.strip()]
    if "all" in names:
        return list(VARIANTS)
    for name in names:
        if name not in VARIANTS:
            raise ValueError(f"{name!r} is not a variant ({', '.join(VARIANTS)} or all)")
    return list(dict.fromkeys(names))


REDIS_SCHEMES = ("redis", "rediss", "unix")
REDIS_MODES = ("single", "cluster")
EVENT_LOOPS = ("auto", "asyncio", "uvloop")

_POSITIVE = (
    "max_frame",
    "rate",
    "burst",
    "search_workers",
    "winnable_seconds",
    "analysis_nodes",
    "analysis_probes",
    "max_conns_per_address",
    "max_connections",
    "max_pending",
    "max_seats",
    "max_time_limit",
    # holding under attack
    "max_write_buffer",
    "slow_reader_deadline",
    "bytes_per_token",
    "address_rate",
    "address_burst",
    "control_frames",
    "handshake_timeout",
    "max_open_races_per_player",
    "max_open_races_per_address",
    "open_race_timeout",
    "races_page",
    "registrations_per_hour",
    "session_ttl",
    "memory_sessions",
)
_NOT_NEGATIVE = (
    "countdown",
    "grace",
    "queue_wait",
    "standings_interval",
    "max_bad_messages",
    "keep_finished",
    "send_buffer",
    "rated_seats_per_address",
    "established_races",
    "established_hours",
    "redis_replica_acks",
    "restore_budget",
    "daily_prepare",
    "gc_young_every",
)


def store_options(parser: argparse.ArgumentParser, suppress: bool = False) -> None:
    """``--redis-url`` (``--redis``) and ``--redis-mode`` for an operator's command that talks to the
    servers' store, by default from ``$TERRACE_REDIS_URL`` and ``$TERRACE_REDIS_MODE``
    (``suppress``: no default, so the options may follow a subcommand as well as lead it)."""
    url = argparse.SUPPRESS if suppress else os.environ.get(env_name("redis_url"), "")
    mode = argparse.SUPPRESS if suppress else os.environ.get(env_name("redis_mode"), "single")
    parser.add_argument("--redis-url", "--redis", default=url, help="the servers' Redis ($TERRACE_REDIS_URL)")
    parser.add_argument("--redis-mode", default=mode, choices=["single", "cluster"])
