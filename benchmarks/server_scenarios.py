"""The server benchmark's scenarios: each starts its servers, runs its clients over a measured
window after a warm-up, and returns its figures.

A round (:func:`one_round`) is the game on the memory store, the echo baseline with the game's
frame sizes, and the game on Redis (with the check that every acknowledged move is in Redis's
append-only file); the long scenarios are idle connections beside racing players
(:func:`bench_idle`), players at a human pace (:func:`bench_human`) and two nodes sharing one
Redis (:func:`bench_nodes`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.server import ServerConnection, serve

from benchmarks.common import BenchError, summarize
from benchmarks.server_client import (
    HOST,
    MAX_FRAME,
    START_TIMEOUT,
    SUBPROTOCOL_NAMES,
    ClientStalls,
    Ledger,
    Matchmaker,
    Player,
    Run,
    Style,
    close_clients,
    echo_client,
    open_clients,
    padded,
)
from benchmarks.server_idle import IdleClients
from benchmarks.server_processes import (
    RedisProcess,
    ServerProcess,
    cpu_share,
    echo_argv,
    fetch_metrics,
    free_port,
    load_average,
    move_handling,
    rss_mib,
    server_argv,
    server_stalls,
)
from terrace.wire.protocol import decode, encode


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


# ----- scenarios -------------------------------------------------------------------------------


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
