"""Plain HTTP on the websocket port (/healthz, /metrics, 404) and subprotocol negotiation."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from server.app import RaceServer
from terrace.wire.protocol import JSON, MSGPACK
from tests.poll import eventually
from tests.server.conftest import Connect
from tests.server.wire import Client


async def _get(server: RaceServer, path: str) -> tuple[int, str, str]:
    """(status, Content-Type, body) of a plain GET, from a thread so the server keeps running."""

    def fetch() -> tuple[int, str, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as r:
                return r.status, r.headers["Content-Type"], r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read().decode()

    return await asyncio.to_thread(fetch)


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert match, f"{name} not in metrics"
    return float(match.group(1))


async def _metrics(server: RaceServer) -> str:
    status, content_type, text = await _get(server, "/metrics")
    assert (status, content_type) == (200, "text/plain; version=0.0.4; charset=utf-8")
    return text


async def _health(server: RaceServer) -> dict[str, object]:
    status, content_type, body = await _get(server, "/healthz")
    assert (status, content_type) == (200, "application/json")
    health: dict[str, object] = json.loads(body)
    return health


async def _solo_race(client: Client) -> str:
    race: str = (await client.request("create", variant="terrace", seats=1))["race"]["id"]
    assert (await client.request("start", race=race))["type"] != "error"
    await client.wait("started")
    return race


# ----- /healthz ----------------------------------------------------------------------------


async def test_healthz_says_ok_with_counts(server: RaceServer, connect: Connect) -> None:
    assert await _health(server) == {"status": "ok", "store": "MemoryStore", "connections": 0, "races": 0}
    alice = await connect(name="alice")
    assert await _health(server) == {"status": "ok", "store": "MemoryStore", "connections": 1, "races": 0}
    await alice.request("create", variant="terrace", seats=2)
    bob = await connect(name="bob")
    assert await _health(server) == {"status": "ok", "store": "MemoryStore", "connections": 2, "races": 1}
    await bob.close()
    # the server counts the close when the connection's handler ends
    await eventually(lambda: len(server.connections) == 1, what="the close to be counted")
    assert await _health(server) == {"status": "ok", "store": "MemoryStore", "connections": 1, "races": 1}


async def test_healthz_ignores_a_query_string(server: RaceServer) -> None:
    status, _, body = await _get(server, "/healthz?probe=k8s")
    assert (status, json.loads(body)) == (
        200,
        {"status": "ok", "store": "MemoryStore", "connections": 0, "races": 0},
    )


# ----- /metrics ----------------------------------------------------------------------------


async def test_metrics_name_every_series_with_its_prometheus_type(server: RaceServer) -> None:
    text = await _metrics(server)
    for name, kind in [
        ("terrace_connections", "gauge"),
        ("terrace_races", "gauge"),
        ("terrace_messages_total", "counter"),
        ("terrace_moves_total", "counter"),
        ("terrace_errors_total", "counter"),
        ("terrace_races_finished_total", "counter"),
        ("terrace_move_seconds", "histogram"),
    ]:
        assert f"# TYPE {name} {kind}\n" in text, name
    assert _metric(text, "terrace_connections") == 0
    assert _metric(text, 'terrace_races{state="open"}') == 0
    assert _metric(text, "terrace_moves_total") == 0
    assert _metric(text, "terrace_move_seconds_count") == 0
    assert _metric(text, 'terrace_move_seconds_bucket{le="+Inf"}') == 0
    assert "terrace_errors_total{" not in text  # no error sent yet


async def test_three_legal_moves_count_three_moves_and_three_timings(
    server: RaceServer, connect: Connect
) -> None:
    a = await connect(name="alice")
    race = await _solo_race(a)
    for seq, move in enumerate(["1-F1", "S-W", "S-W"], 1):
        assert (await a.request("move", race=race, seq=seq, move=move))["type"] == "moved"
    text = await _metrics(server)
    assert _metric(text, "terrace_moves_total") == 3
    assert _metric(text, "terrace_move_seconds_count") == 3
    assert _metric(text, 'terrace_move_seconds_bucket{le="+Inf"}') == 3
    assert 0 < _metric(text, "terrace_move_seconds_sum") < 3
    assert _metric(text, 'terrace_messages_total{type="move"}') == 3
    assert _metric(text, "terrace_connections") == 1
    assert _metric(text, 'terrace_races{state="running"}') == 1
    assert _metric(text, 'terrace_races{state="open"}') == 0
    assert _metric(text, 'terrace_races{state="countdown"}') == 0


async def test_refused_and_resent_moves_are_not_counted_as_moves(
    server: RaceServer, connect: Connect
) -> None:
    a = await connect(name="alice")
    race = await _solo_race(a)
    assert (await a.request("move", race=race, seq=1, move="1-F1"))["type"] == "moved"
    assert (await a.request("move", race=race, seq=1, move="1-F1"))["type"] == "moved"  # a resend
    assert (await a.request("move", race=race, seq=2, move="F1-2"))["code"] == "illegal_move"
    assert (await a.request("move", race=race, seq=9, move="S-W"))["code"] == "bad_seq"
    text = await _metrics(server)
    assert _metric(text, "terrace_moves_total") == 1
    assert _metric(text, "terrace_move_seconds_count") == 1
    assert _metric(text, 'terrace_messages_total{type="move"}') == 4
    assert _metric(text, 'terrace_errors_total{code="illegal_move"}') == 1
    assert _metric(text, 'terrace_errors_total{code="bad_seq"}') == 1


async def test_each_error_sent_increments_its_code(server: RaceServer, connect: Connect) -> None:
    client = await connect()
    await client.send_raw(b"\xc1")
    await client.wait("error")
    assert _metric(await _metrics(server), 'terrace_errors_total{code="bad_message"}') == 1
    await client.send_raw(b"\xc1")
    await client.wait("error")
    assert (await client.request("join", race="r1"))["code"] == "hello_first"
    assert (await client.request("teleport"))["code"] == "unknown_type"
    text = await _metrics(server)
    assert _metric(text, 'terrace_errors_total{code="bad_message"}') == 2
    assert _metric(text, 'terrace_errors_total{code="hello_first"}') == 1
    assert _metric(text, 'terrace_errors_total{code="unknown_type"}') == 1
    assert 'terrace_errors_total{code="bad_field"}' not in text


async def test_polling_the_record_of_a_running_race_is_counted_apart_from_errors(
    server: RaceServer, connect: Connect
) -> None:
    alice = await connect(name="alice")
    race = (await alice.request("create", variant="terrace", seats=2))["race"]["id"]
    for _ in range(3):
        assert (await alice.request("record", race=race))["code"] == "not_finished"
    text = await _metrics(server)
    assert _metric(text, "terrace_not_finished_total") == 3
    assert 'terrace_errors_total{code="not_finished"}' not in text


async def test_a_finished_race_is_counted(server: RaceServer, connect: Connect) -> None:
    a = await connect(name="alice")
    race = await _solo_race(a)
    await a.request("resign", race=race)
    await a.wait("finished")
    text = await _metrics(server)
    assert _metric(text, "terrace_races_finished_total") == 1
    assert _metric(text, 'terrace_races{state="running"}') == 0


# ----- other paths -------------------------------------------------------------------------


async def test_an_unknown_path_is_404(server: RaceServer) -> None:
    status, content_type, body = await _get(server, "/nowhere")
    assert (status, content_type, body) == (
        404,
        "text/plain; charset=utf-8",
        "not found: the pages are /, /play, /top, /daily and /arena; the websocket is /ws; also /healthz and /metrics\n",
    )


async def test_a_plain_get_of_the_websocket_path_asks_for_an_upgrade(server: RaceServer) -> None:
    status, _, body = await _get(server, "/ws")
    assert status == 426
    assert "You need a WebSocket client" in body


# ----- subprotocol negotiation -------------------------------------------------------------


async def test_a_client_offering_no_subprotocol_speaks_msgpack(server: RaceServer) -> None:
    async with ws_connect(server.url) as ws:
        assert ws.subprotocol is None
        assert ws.response is not None and "Sec-WebSocket-Protocol" not in ws.response.headers
        await ws.send(msgpack.packb({"type": "hello", "id": 1, "name": "alice"}))
        welcome = msgpack.unpackb(await ws.recv())
        assert (welcome["type"], welcome["re"], welcome["player"]["name"]) == ("welcome", 1, "alice")
        await ws.send(json.dumps({"type": "ping", "id": 2}))  # text is not this subprotocol
        error = msgpack.unpackb(await ws.recv())
        assert (error["type"], error["code"]) == ("error", "bad_message")


async def test_a_client_offering_only_json_gets_json(server: RaceServer) -> None:
    async with ws_connect(server.url, subprotocols=[JSON]) as ws:  # type: ignore[list-item]
        assert ws.subprotocol == JSON
        await ws.send(json.dumps({"type": "hello", "id": 1, "name": "alice"}))
        frame = await ws.recv()
        assert isinstance(frame, str)
        welcome = json.loads(frame)
        assert (welcome["type"], welcome["re"], welcome["player"]["name"]) == ("welcome", 1, "alice")


@pytest.mark.parametrize(
    ("offer", "chosen"),
    [([MSGPACK], MSGPACK), (["other.v9", JSON], JSON), ([JSON, MSGPACK], JSON), ([MSGPACK, JSON], MSGPACK)],
)
async def test_the_first_offered_subprotocol_the_server_speaks_is_chosen(
    server: RaceServer, offer: list[str], chosen: str
) -> None:
    async with ws_connect(server.url, subprotocols=offer) as ws:  # type: ignore[arg-type]
        assert ws.subprotocol == chosen
        client = Client(ws)
        assert (await client.request("ping"))["type"] == "pong"


async def test_offering_only_unknown_subprotocols_fails_the_handshake_with_400(server: RaceServer) -> None:
    with pytest.raises(InvalidStatus) as info:
        await ws_connect(server.url, subprotocols=["chat.v1", "terrace.v2.json"])  # type: ignore[list-item]
    assert info.value.response.status_code == 400
    assert await _health(server) == {"status": "ok", "store": "MemoryStore", "connections": 0, "races": 0}


async def test_the_pages_may_not_be_framed_and_load_only_this_servers_scripts(server: RaceServer) -> None:
    def headers(path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as r:
            return r.headers

    for path in ("/", "/play", "/race/abc"):
        got = await asyncio.to_thread(headers, path)
        assert got["X-Frame-Options"] == "DENY" and got["X-Content-Type-Options"] == "nosniff"
        policy = got["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy, policy
