"""An outage in the terminal, at 80x24: the real server stops mid-race and starts again (the
same store, the same port). The screen keeps the last board, says "reconnecting…" in a line
that fits, says a move typed meanwhile was not sent, and once the server is back the race
goes on from the same board."""

from __future__ import annotations

import asyncio
import dataclasses

from client import config as client_config
from client.race_table import BACK, NOT_SENT, RECONNECTING, RaceTable
from server.app import RaceServer
from server.store import MemoryStore
from tests.poll import eventually
from tests.server.conftest import FAST
from tests.server.wire import Client

from .test_screen_fit import Terminal


async def test_an_outage_keeps_the_board_says_reconnecting_and_a_move_meanwhile_is_not_sent(
    unused_tcp_port: int,
) -> None:
    store = MemoryStore()  # kept across the restart, as Redis would be
    config = dataclasses.replace(FAST, port=unused_tcp_port, grace=60)
    first = RaceServer(config, store=store)
    await first.start()
    alice = await Client.open(first.url)
    await alice.request("hello", name="alice")
    race = (await alice.request("create", variant="terrace", seats=2, start="full", join=True))["race"]["id"]
    term = Terminal(80, 24, "play", "--race", race, "--name", "bob", "--server", first.url)
    try:
        await term.shows("move>")
        await term.shows("pile 1")
        board = [r for r in term.rows() if r.startswith(("terrace ", "pile "))]
        await first.stop()
        await term.shows("reconnecting…")
        term.send("1f\r")  # the base: typed while the server is away
        shown = await term.shows(NOT_SENT)
        rows = shown.splitlines()
        assert [r for r in rows if r.startswith(("terrace ", "pile "))] == board  # the board is kept
        assert all(len(r) <= 80 for r in rows)
        status = next(r for r in rows if "reconnecting…" in r)
        assert status.strip().startswith(RECONNECTING.split("(")[0].strip())  # whole, not cut at 80
        assert "Your board is kept." in status
        assert "move>" in shown  # the prompt is there: nothing blanked the screen

        second = RaceServer(config, store=store)
        await second.start()
        try:
            await term.shows(BACK, timeout=30)
            term.send("1f\r")  # typed again once back: played
            back = await term.shows(r"· base [^?]", timeout=15)  # the base chosen, on the server's board
            assert NOT_SENT not in back and "reconnecting…" not in back
        finally:
            term.close()
            await second.stop()
    finally:
        term.close()
        await alice.close()


async def _racing_through_a_restart(port: int, *, account: str | None) -> str:
    """A terminal racing on a memory-store server that stops and starts again empty (no race, no
    account): what its screen said at the end, in one line; the command must have ended (0)."""
    config = dataclasses.replace(FAST, port=port, grace=60)
    first = RaceServer(config)  # its own memory store: a restart forgets races and accounts
    await first.start()
    who = ["--name", "bob"]
    if account is not None:
        holder = await Client.open(first.url)
        token = (await holder.request("register", name=account))["token"]
        await holder.close()
        client_config.save_token(first.url, account, token, "human")  # as `terrace register` keeps it
        who = []
    alice = await Client.open(first.url)
    await alice.request("hello", name="alice")
    race = (await alice.request("create", variant="terrace", seats=2, start="full", join=True))["race"]["id"]
    term = Terminal(80, 24, "play", "--race", race, *who, "--server", first.url)
    try:
        await term.shows("move>")
        await first.stop()
        await term.shows("reconnecting…")
        async with RaceServer(config):
            shown = await term.shows("Race again with", timeout=30)
            await eventually(lambda: not term.child.isalive(), what="the command to end")
            term.child.close()
            assert term.child.exitstatus == 0
            return " ".join(shown.split())
    finally:
        term.close()
        await alice.close()


async def test_a_server_that_comes_back_without_the_race_says_it_is_over_and_how_to_race_again(
    unused_tcp_port: int,
) -> None:
    shown = await _racing_through_a_restart(unused_tcp_port, account=None)
    assert "The server came back without this race" in shown
    assert "terrace play --queue terrace" in shown


async def test_a_server_that_forgot_the_account_says_so_and_the_command_ends(unused_tcp_port: int) -> None:
    """A registered player on a server whose memory store restarted: the hello with the old token
    is refused, and the screen once waited for ever after a raw 'bad_token'."""
    shown = await _racing_through_a_restart(unused_tcp_port, account="carol")
    assert "The server no longer knows your account" in shown and "bad_token" not in shown
    assert "Register again (terrace register NAME)" in shown


async def test_a_move_while_the_line_is_down_is_not_sent_and_says_so(make_server: object) -> None:
    server = await make_server()  # type: ignore[operator]
    tables = [RaceTable(server.url, {"name": n}) for n in ("alice", "bob")]
    for t in tables:
        await t.connect()
        await t.ask("queue", variant="terrace")
    for t in tables:
        assert t.started is not None
        await asyncio.wait_for(t.started, 5)
    alice = tables[0]
    assert alice.conn is not None
    alice.conn.ws.transport.abort()
    await eventually(alice.away, what="the line seen down")
    outcome = await asyncio.wait_for(alice.move("1f"), 1)  # answered at once, not held
    assert (outcome.ok, outcome.message) == (False, NOT_SENT)
    assert alice.seq == 0
    assert await asyncio.wait_for(alice.commands()["resign"](), 1) == "Resign " + NOT_SENT
    await eventually(lambda: alice.status_line == BACK, what="the line back")
    moved = await alice.move("1f")
    assert moved.ok and alice.seq == 1 and alice.status_line is None  # the news is cleared by play
    for t in tables:
        await t.close()
