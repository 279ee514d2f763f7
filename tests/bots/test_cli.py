"""The real ``terrace-bot`` command against a real server: run, register, swarm, usage errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from server.app import RaceServer
from tests.poll import eventually
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]

BIN = Path(sys.executable).parent / "terrace-bot"


async def _cli(*args: str, timeout: float = 60, token: str = "") -> tuple[int, str, str]:
    env = {**os.environ, "TERRACE_TOKEN": token, "TERRACE_SERVER": ""}
    proc = await asyncio.create_subprocess_exec(
        str(BIN), *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_register_prints_a_token_that_run_then_races_with(server: RaceServer) -> None:
    code, out, err = await _cli("register", "robo", "--server", server.url, "--json")
    assert code == 0, err
    registered = json.loads(out)
    assert registered["player"]["kind"] == "bot"

    async def opponent() -> tuple[int, str, str]:
        return await _cli("run", "random", "--server", server.url, "--name", "rival", "--json")

    (code, out, err), (code2, _, err2) = await asyncio.gather(
        _cli("run", "greedy", "--server", server.url, "--token", registered["token"], "--json"), opponent()
    )
    assert (code, code2) == (0, 0), err + err2
    result = json.loads(out)
    assert result["variant"] == "terrace" and result["players"] == 2 and result["place"] in (1, 2)


async def test_register_writes_the_token_to_a_file_of_its_own_that_run_races_with(
    server: RaceServer, tmp_path: Path
) -> None:
    path = tmp_path / "robo.token"
    code, out, err = await _cli("register", "robo", "--server", server.url, "--token-file", str(path))
    assert code == 0, err
    token = path.read_text().strip()
    assert len(token) == 48 and token not in out + err  # never shown, never on a command line
    assert path.stat().st_mode & 0o777 == 0o600
    again = await _cli("register", "robo2", "--server", server.url, "--token-file", str(path))
    assert again[0] == 2 and "exists" in again[2]  # an old token is never overwritten
    assert await server.store.account_by_name("robo2") is None

    async def opponent() -> tuple[int, str, str]:
        return await _cli("run", "random", "--server", server.url, "--name", "rival", "--json")

    (code, out, err), (code2, _, err2) = await asyncio.gather(
        _cli("run", "greedy", "--server", server.url, "--token-file", str(path), "--json"), opponent()
    )
    assert (code, code2) == (0, 0), err + err2
    assert json.loads(out)["players"] == 2


async def test_run_takes_the_token_from_the_environment_and_says_so_of_a_bad_file(
    server: RaceServer, tmp_path: Path
) -> None:
    code, _out, err = await _cli("run", "random", "--server", server.url, token="not-a-token")
    assert code == 1 and "hello refused: bad_token" in err  # TERRACE_TOKEN was read
    missing = tmp_path / "none.token"
    code, _out, err = await _cli("run", "random", "--server", server.url, "--token-file", str(missing))
    assert code == 2 and f"--token-file {missing}" in err


async def test_register_twice_is_refused_with_exit_1_and_one_line(server: RaceServer) -> None:
    assert (await _cli("register", "robo", "--server", server.url))[0] == 0
    code, _out, err = await _cli("register", "robo", "--server", server.url)
    assert code == 1
    assert err.startswith("terrace-bot: register refused: name_taken: ")
    assert len(err.strip().splitlines()) == 1


async def test_run_with_a_bad_token_exits_1_with_the_servers_reason(server: RaceServer) -> None:
    code, _out, err = await _cli("run", "random", "--server", server.url, "--token", "nope")
    assert code == 1
    assert "hello refused: bad_token" in err and "Traceback" not in err
    assert "is in the process list for anyone on this machine to read" in err  # --token still works, warned


async def test_run_against_no_server_exits_1(unused_tcp_port: int) -> None:
    code, _, err = await _cli(
        "run", "random", "--server", f"ws://127.0.0.1:{unused_tcp_port}/ws", "--name", "x1"
    )
    assert code == 1
    assert "cannot reach" in err and "Traceback" not in err


async def test_usage_errors_exit_2() -> None:
    for args in (("run", "nosuchbot"), ("run", "random", "--races", "-1"), ("swarm", "--players", "1")):
        code, _, err = await _cli(*args)
        assert code == 2, args
        assert "usage:" in err and "Traceback" not in err
    code, _, err = await _cli("run", "no.such.module:Bot")
    assert code == 2 and "cannot import no.such.module" in err


async def test_swarm_prints_its_figures(server: RaceServer) -> None:
    code, out, err = await _cli("swarm", "--server", server.url, "--players", "4", "--races", "2", "--json")
    assert code == 0, err
    figures = json.loads(out)
    assert figures["races"] >= 2 and figures["moves"] > 0 and figures["connections_peak"] == 4
    assert set(figures["latency_ms"]) == {"p50", "p99", "max", "mean"}


async def test_house_keeps_a_bot_waiting_for_a_person_and_stops_after_its_races(
    server: RaceServer, connect: Connect
) -> None:
    house = asyncio.create_task(_cli("house", "--server", server.url, "--bots", "random:1", "--races", "1"))
    await eventually(lambda: server.matchmaking.queues, what="the house bot in the queue")
    alice = await connect(name="alice")
    await alice.request("queue", variant="terrace")
    started = await alice.wait("started", timeout=5)
    assert [p["name"] for p in started["players"]] == ["alice", "house-random-1"]
    await alice.request("resign", race=started["race"])
    code, _, err = await house
    assert code == 0, err
    assert "house-random-1: race " + started["race"] in err  # the house logs each race


async def test_every_command_has_help() -> None:
    for cmd in ("run", "house", "register", "swarm"):
        code, out, _ = await _cli(cmd, "--help")
        assert code == 0 and "--server" in out


async def test_run_with_an_arena_races_until_the_arena_ends_without_races_given(server: RaceServer) -> None:
    import time

    from bots.samples.greedy import GreedyBot
    from bots.sdk import play
    from terrace.race.arena import make_spec

    await server.arenas.create(make_spec("cli", "terrace", "all", int((time.time() + 0.5) * 1000), 6 / 60))
    rival = asyncio.ensure_future(play(GreedyBot, server.url, name="rival", arena="cli", races=None))
    code, out, err = await _cli(
        "run", "greedy", "--server", server.url, "--name", "solo", "--arena", "cli", "--json"
    )
    await asyncio.wait_for(rival, 30)
    assert code == 0, err
    races = [json.loads(line)["race"] for line in out.splitlines()]
    assert len(races) >= 2 and len(set(races)) == len(races)  # raced on, not one race and home
