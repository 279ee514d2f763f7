"""The shared client stack (link/) against a real server: drops, resends, giving up, pushes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from link import Connection, News, Offline, Refused, Session, fetch
from server.app import RaceServer
from tests.poll import eventually


async def test_a_request_on_a_dropped_line_waits_for_the_reconnect_and_is_answered(
    server: RaceServer,
) -> None:
    news: list[News] = []
    s = Session(server.url, name="ann", on_news=news.append)
    welcome = await s.connect()
    assert s.conn is not None
    first = s.conn
    first.ws.transport.abort()
    answer = await asyncio.wait_for(s.request("ping"), 10)
    assert answer["type"] == "pong"
    assert s.conn is not first and s.reconnects == 1
    assert s.player["name"] == welcome["player"]["name"] == "ann"
    assert [n.kind for n in news] == ["lost", "back"]
    await s.close()


async def test_a_create_whose_answer_was_lost_is_not_sent_again(server: RaceServer) -> None:
    s = Session(server.url, name="ann")
    await s.connect()
    assert s.conn is not None
    line = s.conn.ws.transport
    line.pause_reading()  # the server gets the create and answers; we never read the answer
    creating = asyncio.ensure_future(s.request("create", variant="terrace", seats=2, join=False))
    await eventually(lambda: len(server.registry.drivers) == 1, what="the race to be created")
    line.abort()
    with pytest.raises(Offline):
        await creating
    listing = await asyncio.wait_for(s.request("races"), 10)  # after the reconnect
    assert len(listing["races"]) == 1
    await s.close()


async def test_the_session_gives_up_when_the_server_stays_away(make_server: Any) -> None:
    srv: RaceServer = await make_server()
    news: list[News] = []
    s = Session(srv.url, name="ann", reconnect_for=0.5, on_news=news.append)
    await s.connect()
    waiting = asyncio.ensure_future(s.push("started"))
    await srv.stop()
    with pytest.raises(Offline, match="could not reconnect"):
        await asyncio.wait_for(waiting, 10)
    with pytest.raises(Offline, match="could not reconnect"):
        await s.request("ping")
    assert news[-1].kind == "gone" and s.gone is not None
    await s.close()


async def test_a_refused_hello_is_not_retried(server: RaceServer) -> None:
    from link import HelloRefused

    s = Session(server.url, token="not-a-token")
    with pytest.raises(HelloRefused) as info:
        await s.connect()
    assert info.value.code == "bad_token"


async def test_fetch_answers_public_requests_and_raises_refused_with_the_code(server: RaceServer) -> None:
    assert (await fetch(server.url, "races"))["type"] == "races"
    with pytest.raises(Refused) as info:
        await fetch(server.url, "record", race="nosuchrace")
    assert info.value.code == "no_race"


async def test_pushes_go_to_the_callback_or_wait_in_order(server: RaceServer) -> None:
    heard: list[str] = []
    a = await Connection.open(server.url, on_push=lambda m: heard.append(m["type"]))
    b = await Connection.open(server.url)
    for c in (a, b):
        await c.ask("subscribe", topic="lobby")
    host = await Connection.open(server.url)
    await host.ask("hello", name="host")
    await host.ask("create", variant="terrace", seats=2)
    assert (await asyncio.wait_for(b.push("race"), 5))["type"] == "race"
    await eventually(lambda: "race" in heard, what="the callback to hear the new race")
    for c in (a, b, host):
        await c.close()
    with pytest.raises(Offline):
        await b.push("race", timeout=1)


def test_the_default_server_is_local_unless_the_environment_names_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from link import default_server

    monkeypatch.delenv("TERRACE_SERVER", raising=False)
    assert default_server() == "ws://127.0.0.1:8765/ws"
    monkeypatch.setenv("TERRACE_SERVER", "ws://example:1/ws")
    assert default_server() == "ws://example:1/ws"


async def test_a_tls_url_to_a_plain_server_says_why_in_words_and_what_to_try(server: RaceServer) -> None:
    """Some failures carry no words of their own (a reset TLS handshake): the reason is never blank."""
    import re

    tls = server.url.replace("ws://", "wss://")
    with pytest.raises(Offline) as refused:
        await Connection.open(tls)
    said = str(refused.value)
    assert re.fullmatch(
        rf"cannot reach {re.escape(tls)}: \S[^()]* \(if this server does not speak TLS, try {re.escape(server.url)}\)",
        said,
    ), said
