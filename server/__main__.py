"""``terrace-server``: run the race server until SIGTERM or SIGINT (``terrace-server arena ...``:
the operator's arena commands, in :mod:`server.features.arena_cli`; ``terrace-server admin ...``:
the fair-play commands, in :mod:`server.players.admin_cli`)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence

from terrace.wire.house import ENV_KEY

from . import config as config_module
from .app import RaceServer
from .collector import Collector
from .store import StoreDown
from .workers import child


async def serve(config: config_module.Config) -> None:
    server = RaceServer(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the listen line: a signal right after it is ours
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    # What start-up made (modules, tables, the server's parts, the races taken on) lives as
    # long as the process: out of every later collection's scan (gc.freeze).
    gc.collect()
    gc.freeze()
    every = config.gc_young_every
    young = loop.create_task(Collector().run(every)) if every > 0 else None
    host = config.host
    print(f"terrace-server listening on ws://{host}:{server.port}/ws", flush=True)
    print(f"  live page http://{host}:{server.port}/", flush=True)
    print(
        f"  health http://{host}:{server.port}/healthz  metrics http://{host}:{server.port}/metrics",
        flush=True,
    )
    print(f"  event loop {'uvloop' if type(loop).__module__.startswith('uvloop') else 'asyncio'}", flush=True)
    if config.public_url:
        print(f"  public URL {config.public_url}", flush=True)
    house = _house(config, server.port, server.accounts.house_key)
    await stop.wait()
    print("terrace-server shutting down: closing connections (1001)", flush=True)
    if house is not None:
        house.terminate()
        await asyncio.to_thread(house.wait)
    if young is not None:
        young.cancel()
    await server.stop()


def _house(config: config_module.Config, port: int, key: str) -> subprocess.Popen[bytes] | None:
    """``--house``: ``terrace-bot house`` for the variants named, as a child that dies with us
    (started from the loop's thread: the kernel's death signal follows the thread that forked),
    given the server's house key in its environment, whatever file the server keeps it in."""
    if not config.house:
        return None
    variants = config_module.house_variants(config.house)
    host = "127.0.0.1" if config.host in ("", "0.0.0.0") else "[::1]" if config.host == "::" else config.host
    host = f"[{host}]" if ":" in host and not host.startswith("[") else host
    argv = [sys.executable, "-m", "bots", "house", "--server", f"ws://{host}:{port}/ws"]
    for variant in variants:
        argv += ["--variant", variant]
    print(f"  house bots waiting: {', '.join(variants)}", flush=True)  # (fits 80 columns, all four)
    env = {**os.environ, ENV_KEY: key} if key else None
    return child(argv, env=env)


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop the ``event_loop`` setting names (None: asyncio's own); raises ImportError
    for ``uvloop`` when it is not installed. ``auto`` is uvloop where it can be imported (a move
    costs 7-12% less CPU on it: docs/BENCHMARKS.md, "Server"), else asyncio's own."""
    if name in ("uvloop", "auto"):
        try:
            import uvloop
        except ImportError:
            if name == "uvloop":
                raise
            return None
        return uvloop.new_event_loop
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["arena"]:  # the operator's arena commands (server.features.arena_cli)
        from server.features.arena_cli import main as arena_main

        return arena_main(args[1:])
    if args[:1] == ["admin"]:  # the operator's fair-play commands (server.players.admin_cli)
        from server.players.admin_cli import main as admin_main

        return admin_main(args[1:])
    config = config_module.parse(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # websockets says every connection opened and closed and every HTTP answer, with no path or
    # peer: a health check every second made a third of a node's log of it
    logging.getLogger("websockets").setLevel(logging.WARNING)
    thresholds = config_module.gc_thresholds(config.gc_thresholds)
    assert thresholds is not None  # (parse checked it)
    gc.set_threshold(*thresholds)
    try:
        factory = loop_factory(config.event_loop)
    except ImportError:
        print(
            "terrace-server: --event-loop uvloop needs uvloop: pip install uvloop (not on Windows)",
            file=sys.stderr,
        )
        return 1
    try:
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(serve(config))
    except StoreDown as e:
        print(f"terrace-server: cannot reach the store at {config.redis_url}: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the port is taken, the host does not exist, ...
        print(f"terrace-server: cannot listen on {config.host}:{config.port}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
