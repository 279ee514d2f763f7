"""The online race table against a real server: the server's views, refusals, drops and resumes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from client.race_table import RaceTable
from server.app import RaceServer
from terrace import REASONS
from terrace.rules.news import news
from tests.poll import eventually
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]


async def _pair(server: RaceServer) -> tuple[RaceTable, RaceTable]:
    """Two tables queued for terrace and started."""
    tables = [RaceTable(server.url, {"name": n}) for n in ("alice", "bob")]
    for t in tables:
        await t.connect()
        assert (await t.ask("queue", variant="terrace"))["type"] == "queued"
    for t in tables:
        assert t.started is not None
        await asyncio.wait_for(t.started, 5)
    return tables[0], tables[1]


async def test_a_legal_move_shows_the_servers_view_and_an_illegal_one_its_reason_and_changes_nothing(
    server: RaceServer,
) -> None:
    alice, bob = await _pair(server)
    assert alice.view()["phase"] == "choose-base" and sorted(alice.legal()) == [
        "1-F1",
        "2-F1",
        "3-F1",
        "4-F1",
    ]
    assert alice.title.startswith("race ") and "terrace" in alice.title
    before = (alice.view(), alice.legal(), alice.seq)
    refused = await alice.move("w3")
    assert not refused.ok
    assert refused.message == REASONS["choose_base_first"]  # the server's reason, word for word
    assert (alice.view(), alice.legal(), alice.seq) == before
    done = await alice.move("1f")
    assert done.ok and done.move == "1-F1"
    assert done.message == news(done.events) and done.message.startswith("Base ")  # practice's words
    assert alice.seq == 1 and alice.view()["phase"] == "play" and alice.view()["foundations"]["F1"]
    assert "S-W" in alice.legal()
    await alice.close()
    await bob.close()


async def test_standings_pushes_reach_the_table_and_resign_ends_it(server: RaceServer) -> None:
    alice, bob = await _pair(server)
    changes: list[int] = []
    bob.on_change = lambda: changes.append(1)
    await alice.move("2f")
    await eventually(
        lambda: any(r["moves"] == 1 for r in bob.standings()), what="alice's move in bob's standings"
    )
    assert {r["player"]["name"]: r["moves"] for r in bob.standings()} == {"alice": 1, "bob": 0}
    assert changes
    assert bob.over() is None
    assert await bob.commands()["resign"]() == "You resigned."
    assert bob.over() == "You finished: resigned."
    assert await alice.commands()["resign"]() == "You resigned."
    assert alice.finished is not None
    await asyncio.wait_for(alice.finished, 5)
    assert alice.over() == "The race is over."
    await alice.close()
    await bob.close()


async def test_a_dropped_connection_reconnects_and_the_race_goes_on(server: RaceServer) -> None:
    alice, bob = await _pair(server)
    news: list[str | None] = []
    alice.on_change = lambda: news.append(alice.status_line)
    assert alice.conn is not None
    alice.conn.ws.transport.abort()
    # sent before the drop is seen: it waits for the reconnect, then is sent again (a move typed
    # once the drop is seen is not sent: tests/client/test_outage.py)
    moved = await asyncio.wait_for(alice.move("3f"), 10)
    assert moved.ok and moved.move == "3-F1" and alice.seq == 1
    assert any(n and n.startswith("⚠ The server is away: reconnecting… (try 1)") for n in news)
    assert "Reconnected: back in the race." in news
    await alice.close()
    await bob.close()


async def test_a_player_in_a_race_is_put_back_into_it_by_a_new_hello(server: RaceServer) -> None:
    alice, bob = await _pair(server)
    await alice.move("4f")
    session = alice.session
    await alice.close()
    again = RaceTable(server.url, {"name": "alice"})
    again.session = session
    await again.connect()
    assert again.started is not None
    resumed = await asyncio.wait_for(again.started, 5)
    assert resumed["resumed"] is True and again.seq == 1 and again.view()["phase"] == "play"
    await again.close()
    await bob.close()


async def test_our_own_row_is_as_of_our_last_move_before_any_push_says_so(make_server: Any) -> None:
    """The header (the move's view) and our standings row agree at once, even with standings
    pushes a minute apart: the end screen came before the last push and showed one move less."""
    server = await make_server(standings_interval=60.0)
    alice, bob = await _pair(server)
    assert [r["moves"] for r in alice.standings()] == [0, 0]
    assert (await alice.move("1f")).ok
    mine = next(r for r in alice.standings() if r["player"]["name"] == "alice")
    other = next(r for r in alice.standings() if r["player"]["name"] == "bob")
    assert (mine["moves"], mine["score"], mine["terrace_left"]) == (1, 1, alice.view()["terrace_left"])
    assert other["moves"] == 0  # the others' rows are the server's, as pushed
    await alice.close()
    await bob.close()
