"""Plain HTTP on the websocket port (/healthz, /metrics, 404) and subprotocol negotiation."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from server.app import RaceServer
from terrace.protocol import JSON, MSGPACK

from .wire import Client

Connect = Callable[..., Awaitable[Client]]


async def _get(server: RaceServer, path: str) -> tuple[int, str, str]:
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


async def test_healthz_says_ok_with_counts(server: RaceServer, connect: Connect) -> None:
    await connect(name="alice")
    status, content_type, body = await _get(server, "/healthz")
    assert (status, content_type) == (200, "application/json")
    assert json.loads(body) == {"status": "ok", "connections": 1, "races": 0}


async def test_metrics_count_moves_errors_connections_and_races(server: RaceServer, connect: Connect) -> None:
    a = await connect(name="alice")
    race = (await a.request("create", variant="terrace", seats=1))["race"]["id"]
    await a.request("start", race=race)
    await a.wait("started")
    for seq, move in enumerate(["1-F1", "S-W", "S-W"], 1):
        assert (await a.request("move", race=race, seq=seq, move=move))["type"] == "moved"
    assert (await a.request("move", race=race, seq=9, move="S-W"))["code"] == "bad_seq"

    status, content_type, text = await _get(server, "/metrics")
    assert status == 200 and content_type.startswith("text/plain; version=0.0.4")
    assert _metric(text, "terrace_moves_total") == 3
    assert _metric(text, "terrace_move_seconds_count") == 3
    assert _metric(text, 'terrace_errors_total{code="bad_seq"}') == 1
    assert _metric(text, "terrace_connections") == 1
    assert _metric(text, 'terrace_races{state="running"}') == 1
    assert _metric(text, 'terrace_races{state="open"}') == 0
    assert _metric(text, 'terrace_messages_total{type="move"}') == 4
    assert 'terrace_move_seconds_bucket{le="0.001"}' in text


async def test_an_unknown_path_is_404(server: RaceServer) -> None:
    status, _, body = await _get(server, "/nowhere")
    assert status == 404 and "/ws" in body


async def test_a_client_offering_no_subprotocol_speaks_msgpack(server: RaceServer) -> None:
    async with ws_connect(server.url) as ws:
        assert ws.subprotocol is None
        await ws.send(msgpack.packb({"type": "ping", "id": 1}))
        assert msgpack.unpackb(await ws.recv())["type"] == "pong"


@pytest.mark.parametrize("offer", [[JSON], ["other.v9", JSON], [JSON, MSGPACK]])
async def test_the_first_offered_subprotocol_the_server_speaks_is_chosen(
    server: RaceServer, offer: list[str]
) -> None:
    async with ws_connect(server.url, subprotocols=offer) as ws:  # type: ignore[arg-type]
        assert ws.subprotocol == JSON
        await ws.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(await ws.recv())["type"] == "pong"


async def test_offering_only_unknown_subprotocols_fails_the_handshake_with_400(server: RaceServer) -> None:
    with pytest.raises(InvalidStatus) as info:
        await ws_connect(server.url, subprotocols=["chat.v1"])  # type: ignore[list-item]
    assert info.value.response.status_code == 400
