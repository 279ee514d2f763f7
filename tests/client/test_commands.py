"""The ``terrace`` command's data commands against a real server: races, watch, top, help, usage."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from server.app import RaceServer
from tests.poll import eventually
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]
TERRACE = str(Path(sys.executable).parent / "terrace")


async def _run(
    *args: str, stdin: bytes = b"", timeout: float = 30, columns: int = 120
) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        TERRACE,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": str(columns)},
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_races_lists_open_races_as_a_table_and_as_json(server: RaceServer, connect: Connect) -> None:
    alice = await connect(name="alice")
    created = await alice.request("create", variant="signora", seats=3)
    race = created["race"]["id"]
    code, out, _ = await _run("races", "--server", server.url)
    assert code == 0
    line = next(line for line in out.splitlines() if race in line)
    assert "signora" in line and "open" in line and "1/3" in line and "alice" in line
    code, out, _ = await _run("races", "--server", server.url, "--json")
    assert code == 0
    assert [r["id"] for r in json.loads(out)["races"]] == [race]


async def test_races_shows_finished_races_with_their_winner(server: RaceServer, connect: Connect) -> None:
    alice = await connect(name="alice")
    created = await alice.request("create", variant="queen-of-italy", seats=1, start="full")
    race = created["race"]["id"]
    await alice.wait("started")
    assert (await alice.request("resign", race=race))["type"] == "resigned"
    await alice.wait("finished")
    code, out, _ = await _run("races", "--server", server.url)
    assert code == 0
    line = next(line for line in out.splitlines() if race in line)
    assert "queen-of-italy" in line and "alice" in line
    assert out.splitlines()[out.splitlines().index(line) + 1].split()[0] == "(resigned,"  # under its name
    code, out, _ = await _run("races", "--server", server.url, "--json")
    [brief] = json.loads(out)["finished"]
    assert brief["id"] == race and brief["results"][0]["player"]["name"] == "alice"


async def test_races_at_80_columns_never_cut_a_players_name(server: RaceServer, connect: Connect) -> None:
    # as long as the house's own names (23 letters), which once were cut and left lone commas
    names = ["robot-planner-terrace-2", "robot-greedy-terrace-10", "robot-greedy-terrace-11", "newcomer"]
    players = [await connect(name=n) for n in names]
    created = await players[0].request("create", variant="queen-of-italy", seats=4, start="full")
    race = created["race"]["id"]
    for p in players[1:]:
        assert (await p.request("join", race=race))["type"] == "joined"
    for p in players:
        await p.wait("started")
        assert (await p.request("resign", race=race))["type"] == "resigned"
    await players[0].wait("finished")
    code, out, _ = await _run("races", "--server", server.url, columns=80)
    assert code == 0
    assert all(len(line) <= 80 for line in out.splitlines()), out
    words = out.replace(",", " ").split()
    assert all(n in words for n in names), out  # each name whole on one line
    assert not any(line.strip() == "," for line in out.splitlines()), out


async def test_watch_the_lobby_as_json_lines_sees_a_race_being_created(
    server: RaceServer, connect: Connect
) -> None:
    proc = await asyncio.create_subprocess_exec(
        TERRACE, "watch", "--server", server.url, "--json", stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    await eventually(lambda: server.audience.subscribers, what="the watcher to subscribe")
    alice = await connect(name="alice")
    created = await alice.request("create", variant="louis", seats=2)
    line = json.loads(await asyncio.wait_for(proc.stdout.readline(), 10))
    assert line["type"] == "race" and line["race"]["id"] == created["race"]["id"]
    assert line["race"]["variant"] == "louis"
    proc.send_signal(signal.SIGINT)  # Ctrl-C: the way watching ends, so a success
    assert await asyncio.wait_for(proc.wait(), 10) == 0


async def test_top_shows_the_boards_a_rated_race_changed(server: RaceServer) -> None:
    players = []
    for name in ("alice", "bob"):
        c = await Client.open(server.url)
        assert (await c.request("register", name=name))["type"] == "registered"
        players.append(c)
    created = await players[0].request("create", variant="terrace", seats=2, start="full")
    race = created["race"]["id"]
    await players[1].request("join", race=race)
    await players[0].wait("started")
    await players[0].request("move", race=race, seq=1, move="1f")  # alice scores, then both resign
    for c in reversed(players):
        await c.request("resign", race=race)
    await players[0].wait("finished")

    async def on_the_wins_board() -> bool:  # boards are written just after the race ends
        rows = (await players[0].request("leaderboard", board="wins", variant="terrace"))["rows"]
        return [r["player"]["name"] for r in rows] == ["alice"]

    await eventually(on_the_wins_board, what="alice on the wins board")

    code, out, _ = await _run("top", "wins", "--server", server.url)
    assert code == 0
    assert "terrace · wins  (1 player)" in out.splitlines()[0]  # one line, however narrow the table
    assert any(line.split()[:3] == ["1", "alice", "1"] for line in out.splitlines())
    code, out, _ = await _run("top", "--server", server.url, "--json")  # rating, humans, by default
    assert code == 0
    answer = json.loads(out)
    assert (answer["board"], answer["pool"]) == ("rating", "humans")
    assert [r["player"]["name"] for r in answer["rows"]] == ["alice", "bob"]
    code, out, _ = await _run("top", "fastest", "--period", "week", "--server", server.url)
    assert code == 0 and "Nobody on this board yet." in out
    code, _, err = await _run("top", "wins", "--around", "nobody", "--server", server.url)
    assert code == 1 and err.strip() == "terrace: That player is not on the wins board."


async def test_an_unreachable_server_is_one_line_and_exit_1(unused_tcp_port: int) -> None:
    code, _out, err = await _run("races", "--server", f"ws://127.0.0.1:{unused_tcp_port}/ws")
    assert code == 1
    assert err.startswith("terrace: cannot reach ") and "Traceback" not in err


async def test_practice_reads_moves_from_a_pipe_and_prints_each_change() -> None:
    code, out, _ = await _run(
        "practice", "--variant", "terrace", "--deal", "7", stdin=b"2f\nw3\nundo\nquit\n"
    )
    assert code == 0
    assert "practice – terrace, deal 7" in out
    assert "2-F1" in out and "Took back 2-F1." in out
    assert "✗" in out  # w3 refused with the engine's reason


async def test_every_command_has_help_and_bad_usage_exits_2() -> None:
    for cmd in ("play", "practice", "races", "watch", "top", "register", "replay", "verify"):
        code, out, _ = await _run(cmd, "--help")
        assert code == 0 and "usage: terrace" in out, cmd
    code, _, err = await _run("practice", "--variant", "nosuch")
    assert code == 2 and "invalid choice" in err
    code, _, err = await _run("play", "--queue", "terrace", "--race", "abc")
    assert code == 2 and "not allowed with" in err


async def test_play_uses_the_registered_token_and_a_refusal_is_one_line_and_exit_1(
    server: RaceServer,
) -> None:
    code, out, err = await _run("register", "robo", "--server", server.url)
    assert code == 0, err
    code, out, err = await _run("play", "--server", server.url, "--race", "nosuch")
    assert code == 1
    assert "Connected to" in out and "robo" in out  # the stored account, not a guest
    assert err.strip() == "terrace: There is no race 'nosuch'."


async def test_playing_as_a_bot_account_by_default_says_so_and_how_to_race_as_another(
    server: RaceServer,
) -> None:
    assert (await _run("register", "robo", "--bot", "--server", server.url))[0] == 0
    code, out, err = await _run("play", "--server", server.url, stdin=b"q\n")
    assert code == 0, err
    said = " ".join(out.split())
    assert "Connected to" in said and "robo is a bot account: its races count among the bots'." in said
    assert "`terrace play --name NAME` races as another of your accounts, or as a guest." in said
    code, out, _ = await _run("play", "--server", server.url, "--name", "pers", stdin=b"q\n")
    assert code == 0 and "bot account" not in out  # a guest: nothing to say


async def test_piped_practice_prints_only_what_each_move_changed() -> None:
    code, out, _ = await _run(
        "practice", "--variant", "terrace", "--deal", "7", stdin=b"1f\nd\nd\nd\nd\nquit\n"
    )
    assert code == 0
    lines = out.splitlines()
    assert sum(line.startswith("terrace ") for line in lines) == 1  # the board once, then its changes
    assert sum(line.strip() == "S-W" for line in lines) == 4  # every answer, even the same again
    assert len(lines) < 45, out


async def test_a_url_without_ws_gets_a_hint_in_its_one_line(server: RaceServer) -> None:
    bare = server.url.removesuffix("/ws")
    code, _out, err = await _run("races", "--server", bare)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.strip().endswith(f"(the websocket endpoint is /ws: try {server.url})"), err


async def test_queueing_where_nobody_waits_says_so_at_once_and_again_after_a_while(
    server: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse
    import io

    from rich.console import Console

    from client import play
    from tests.poll import eventually

    monkeypatch.setattr(play, "STILL_WAITING", 0.3)
    buf = io.StringIO()
    args = argparse.Namespace(
        server=server.url, name="lonely", queue="signora", goal=None, race=None, create=None, seats=2
    )
    task = asyncio.create_task(play.play(args, Console(file=buf, width=200)))
    try:
        await eventually(lambda: "Still waiting after" in buf.getvalue(), what="the second word")
        text = buf.getvalue()
        assert "Queued for signora (goal terrace), position 1." in text
        assert "Nobody else is waiting for signora now" in text
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _open_races(srv: RaceServer, connect: Connect, count: int) -> list[str]:
    """``count`` unstarted races nobody sits in, three per guest (the per-player cap)."""
    ids: list[str] = []
    for n in range((count + 2) // 3):
        guest = await connect(name=f"maker{n}", srv=srv)
        for _ in range(min(3, count - len(ids))):
            created = await guest.request("create", variant="terrace", join=False)
            ids.append(created["race"]["id"])
    return ids


@pytest.fixture
async def paged(make_server: Callable[..., Awaitable[RaceServer]]) -> RaceServer:
    """A server that lists 5 races a page."""
    return await make_server(races_page=5)


async def test_races_reads_every_page_of_a_lobby_longer_than_one(paged: RaceServer, connect: Connect) -> None:
    ids = await _open_races(paged, connect, 12)
    code, out, _ = await _run("races", "--server", paged.url, "--json")
    assert code == 0
    listing = json.loads(out)
    assert sorted(r["id"] for r in listing["races"]) == sorted(ids)
    assert listing["total"] == 12
    code, out, _ = await _run("races", "--server", paged.url)
    assert code == 0
    assert all(any(race in line for line in out.splitlines()) for race in ids)
    assert "Showing" not in out


async def test_races_stops_at_its_limit_and_says_how_many_it_left_out(
    paged: RaceServer, connect: Connect
) -> None:
    ids = await _open_races(paged, connect, 12)
    code, out, _ = await _run("races", "--server", paged.url, "--json", "--limit", "7")
    assert code == 0
    listing = json.loads(out)
    assert len(listing["races"]) == 7 and set(r["id"] for r in listing["races"]) <= set(ids)
    assert listing["total"] == 12
    code, out, _ = await _run("races", "--server", paged.url, "--limit", "7")
    assert code == 0
    assert sum(any(race in line for race in ids) for line in out.splitlines()) == 7
    assert "Showing 7 of 12 races; --limit 12 shows them all." in out
    code, _, err = await _run("races", "--server", paged.url, "--limit", "0")
    assert code == 2 and "--limit must be at least 1" in err


async def test_watch_reads_every_page_of_the_lobby_before_following_it(
    paged: RaceServer, connect: Connect
) -> None:
    ids = await _open_races(paged, connect, 12)
    proc = await asyncio.create_subprocess_exec(
        TERRACE,
        "watch",
        "--server",
        paged.url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "COLUMNS": "120"},
    )
    pages = paged.metrics.messages.counts
    await eventually(lambda: pages.get("races", 0) >= 2, what="the watcher to read pages 2 and 3")
    await paged.stop()  # the watcher's connection closes: it prints its last table and exits
    out, _ = await asyncio.wait_for(proc.communicate(), 10)
    assert proc.returncode == 1
    shown = out.decode()
    assert all(any(race in line for line in shown.splitlines()) for race in ids), shown


# ----- usage errors: the subcommand's own usage -----------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--race", "abc", "--winnable"], "--winnable goes with --queue or --create"),
        (["play", "--create", "terrace", "--seats", "0"], "--seats must be at least 1"),
        (["play", "--queue", "terrace", "--seats", "3"], "--seats goes with --create"),
        (["play", "--goal", "clear"], "--goal goes with --queue or --create"),
        (["practice", "--deal", "0"], "--deal must be at least 1"),
        (["top", "--count", "101"], "--count must be 1..100"),
        (["top", "--page", "0"], "--page must be at least 1"),
        (["races", "--limit", "0"], "--limit must be at least 1"),
        (["daily", "--ghosts", "9"], "--ghosts must be 0..8"),
        (["daily", "--board", "--practice"], "argument --practice: not allowed with argument --board"),
        (["verify"], "give a race id, or --file with a saved record"),
        (
            ["verify", "--file", "x.json", "--save", "y.json"],
            "--save goes with a race id (it saves the record fetched from the server)",
        ),
        (["arena", "join"], "join needs an arena id"),
        (
            ["play", "--queue", "terrace", "--race", "abc"],
            "argument --race: not allowed with argument --queue",
        ),
    ],
)
async def test_a_usage_error_prints_that_commands_usage(args: list[str], said: str) -> None:
    code, out, err = await _run(*args)
    assert code == 2 and out == ""
    assert err.startswith(f"usage: terrace {args[0]} "), err  # not `usage: terrace [-h] COMMAND ...`
    assert err.rstrip().endswith(f"terrace {args[0]}: error: {said}"), err


# ----- --json: errors as JSON too ---------------------------------------------------------


async def test_json_errors_are_json_with_the_same_exit_code(server: RaceServer, tmp_path: Path) -> None:
    for command in ("verify", "replay"):
        code, out, err = await _run(command, "deadbeef", "--json", "--server", server.url)
        assert code == 1 and err == ""
        assert json.loads(out) == {"error": "no_race", "message": "There is no race 'deadbeef'."}
    code, out, _ = await _run("verify", "--file", str(tmp_path / "missing.json"), "--json")
    assert code == 2 and json.loads(out)["error"] == "cannot_read"
    code, out, _ = await _run("replay", "deadbeef", "--json", "--server", server.url, "--no-hindsight")
    assert code == 1 and json.loads(out)["error"] == "no_race"
    code, out, _ = await _run("top", "--around", "nobody", "--json", "--server", server.url)
    assert code == 1 and json.loads(out)["error"] == "not_on_board"


async def test_json_says_an_unreachable_server_in_json(unused_tcp_port: int) -> None:
    code, out, err = await _run("races", "--json", "--server", f"ws://127.0.0.1:{unused_tcp_port}/ws")
    assert code == 1 and err == ""
    said = json.loads(out)
    assert said["error"] == "offline" and said["message"].startswith("cannot reach ")


async def _a_race_alice_resigned(connect: Connect) -> str:
    """A finished one-seat terrace race: alice joined, the deal was dealt, she resigned."""
    alice = await connect(name="alice")
    created = await alice.request("create", variant="terrace", seats=1, start="full")
    race = str(created["race"]["id"])
    await alice.wait("started")
    await alice.request("resign", race=race)
    await alice.wait("finished")
    return race


async def test_a_replay_of_a_player_not_in_the_race_is_a_json_error(
    server: RaceServer, connect: Connect
) -> None:
    race = await _a_race_alice_resigned(connect)
    code, out, _ = await _run(
        "replay", race, "--player", "zed", "--json", "--no-hindsight", "--server", server.url
    )
    assert code == 1
    assert json.loads(out) == {
        "error": "no_player",
        "message": f"no player zed in race {race}; its players: alice",
    }


# ----- a closed stdout: quiet, exit 141 -------------------------------------------------------


async def _into_a_closed_pipe(*args: str, stdin: bytes = b"") -> tuple[int, str]:
    """Run ``terrace ARGS`` writing into a pipe nobody reads (its reader already gone)."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = await asyncio.create_subprocess_exec(
            TERRACE, *args, stdin=asyncio.subprocess.PIPE, stdout=write, stderr=asyncio.subprocess.PIPE
        )
    finally:
        os.close(write)
    _, err = await asyncio.wait_for(proc.communicate(stdin), 30)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_every_command_stops_quietly_when_its_output_is_closed(
    server: RaceServer, connect: Connect
) -> None:
    race = await _a_race_alice_resigned(connect)
    url = ["--server", server.url]
    for args, stdin in [
        (["--help"], b""),
        (["races", *url], b""),
        (["races", "--json", *url], b""),
        (["top", *url], b""),
        (["verify", race, *url], b""),
        (["verify", race, "--json", *url], b""),
        (["replay", race, "--all", "--no-hindsight", *url], b""),
        (["register", "newcomer", *url], b""),
        (["practice", "--deal", "7"], b"1f\nquit\n"),
        (["play", "--create", "terrace", "--seats", "1", "--name", "piped", *url], b"d\nd\nresign\ny\n"),
    ]:
        code, err = await _into_a_closed_pipe(*args, stdin=stdin)
        assert (code, err) == (141, ""), (args, code, err)


async def test_play_into_head_stops_quietly_when_head_has_read_enough(server: RaceServer) -> None:
    """``terrace play ... | head -5``: the race screen is printed on; head exits after 5 lines."""
    read, write = os.pipe()
    args = ["play", "--create", "terrace", "--seats", "1", "--name", "headed", "--server", server.url]
    proc = await asyncio.create_subprocess_exec(
        TERRACE, *args, stdin=asyncio.subprocess.PIPE, stdout=write, stderr=asyncio.subprocess.PIPE
    )
    os.close(write)
    assert proc.stdin is not None and proc.stderr is not None
    with os.fdopen(read, "rb") as head:
        loop = asyncio.get_running_loop()
        first = [await asyncio.wait_for(loop.run_in_executor(None, head.readline), 15) for _ in range(5)]
    assert b"Created race" in b"".join(first)
    for _ in range(3):  # each answer is printed: into a pipe head has closed
        proc.stdin.write(b"d\n")
        await proc.stdin.drain()
    err = await asyncio.wait_for(proc.stderr.read(), 15)
    assert await asyncio.wait_for(proc.wait(), 15) == 141
    assert err == b"", err.decode()


async def test_watch_json_stops_quietly_when_its_reader_goes_during_a_push(
    server: RaceServer, connect: Connect
) -> None:
    """The write that fails is in a push callback, not in the command's own code."""
    read, write = os.pipe()
    os.close(read)
    proc = await asyncio.create_subprocess_exec(
        TERRACE, "watch", "--json", "--server", server.url, stdout=write, stderr=asyncio.subprocess.PIPE
    )
    os.close(write)
    await eventually(lambda: server.audience.subscribers, what="the watcher to subscribe")
    alice = await connect(name="alice")
    await alice.request("create", variant="louis", seats=2)  # the lobby push it prints
    assert proc.stderr is not None
    err = await asyncio.wait_for(proc.stderr.read(), 15)
    assert await asyncio.wait_for(proc.wait(), 15) == 141
    assert err == b"", err.decode()


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ws://127.0.0.1:99999/ws", "Port out of range 0-65535"),
        ("ws://[::1/ws", "Invalid IPv6 URL"),
        ("", "is not a websocket URL (ws://HOST:PORT/ws)"),
        ("http://127.0.0.1:8765/ws", "is not a websocket URL (ws://HOST:PORT/ws)"),
    ],
)
async def test_a_server_url_that_cannot_be_one_is_a_usage_error_not_a_traceback(url: str, why: str) -> None:
    code, out, err = await _run("races", "--server", url)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("usage: terrace races ") and f"argument --server: {url!r}" in err and why in err


async def test_the_pick_asks_again_after_a_race_id_that_is_not_there_and_reads_a_pipe_quietly(
    server: RaceServer,
) -> None:
    code, out, err = await _run("play", "--server", server.url, "--name", "frank", stdin=b"zzz\nq\n")
    assert code == 0, err
    assert "There is no race 'zzz'. Type one of the ids above, a variant, or q." in out
    assert out.count("Join or queue (") == 2  # asked again, not sent back to the shell
    assert "Input is not a terminal" not in out + err  # a pipe gets no terminal prompt


async def test_watching_or_joining_a_race_that_is_over_says_so_and_where_to_look(
    server: RaceServer, connect: Connect
) -> None:
    race = await _a_race_alice_resigned(connect)
    code, out, err = await _run("watch", race, "--server", server.url)
    assert code == 0, err
    assert f"Race {race} is over." in out and "alice" in out and "resigned" in out
    assert f"step through it: terrace replay {race} --server {server.url}" in " ".join(out.split())
    code, out, _ = await _run("watch", race, "--json", "--server", server.url)
    assert code == 0 and json.loads(out)["race"]["id"] == race
    code, out, err = await _run("play", "--race", race, "--name", "bob", "--server", server.url)
    assert code == 1
    assert f"Race {race} is over: `terrace replay {race} --server {server.url}` shows it." in " ".join(
        err.split()
    )
