"""HTTP hygiene: only GET and HEAD, an Origin allow-list for the websocket, and a /healthz
that says whether the store answers within a second without saying where it is."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import InvalidStatus

from server.app import RaceServer
from tests.poll import eventually
from tests.server.conftest import MakeServer
from tests.server.redis_server import RedisServer, require_redis_server
from tests.server.wire import Client


async def _ask(server: RaceServer, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    def fetch() -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", method=method)
        try:
            with urllib.request.urlopen(request, timeout=5) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    return await asyncio.to_thread(fetch)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
@pytest.mark.parametrize("path", ["/", "/healthz", "/metrics", "/nowhere"])
async def test_only_get_and_head_are_answered(make_server: MakeServer, method: str, path: str) -> None:
    server = await make_server()
    status, headers, body = await _ask(server, method, path)
    assert (status, headers["Allow"], body) == (405, "GET, HEAD", b"only GET (and HEAD) here\n")
    assert (await _ask(server, "GET", "/healthz"))[0] == 200


async def test_head_gets_the_headers_of_get_without_the_body(make_server: MakeServer) -> None:
    server = await make_server()
    got, head = await _ask(server, "GET", "/healthz"), await _ask(server, "HEAD", "/healthz")
    assert head[0] == 200 and head[2] == b"" and got[2] != b""
    assert head[1]["Content-Type"] == got[1]["Content-Type"] == "application/json"


async def test_the_websocket_upgrade_takes_only_get(make_server: MakeServer) -> None:
    server = await make_server()
    status, headers, _ = await _ask(server, "POST", "/ws")
    assert (status, headers["Allow"]) == (405, "GET")


async def test_web_pages_of_other_origins_may_not_open_the_websocket(make_server: MakeServer) -> None:
    server = await make_server(origins="https://friend.example, http://localhost:3000")
    own = f"http://127.0.0.1:{server.port}"
    for origin in (None, own, "https://friend.example", "http://localhost:3000"):
        client = await Client.open(server.url, origin=origin)  # no Origin: not a browser
        assert (await client.request("ping"))["type"] == "pong"
        await client.close()
    for origin in ("https://evil.example", "http://127.0.0.1:1", "null"):
        with pytest.raises(InvalidStatus) as info:
            await Client.open(server.url, origin=origin)
        assert info.value.response.status_code == 403
        assert info.value.response.body == b"this page's origin may not connect here\n"


async def test_any_origin_when_the_list_says_star(make_server: MakeServer) -> None:
    server = await make_server(origins="*")
    client = await Client.open(server.url, origin="https://anywhere.example")
    assert (await client.request("ping"))["type"] == "pong"
    await client.close()


async def _health(server: RaceServer) -> tuple[int, dict[str, object]]:
    status, _, body = await _ask(server, "GET", "/healthz")
    return status, json.loads(body)


async def test_a_frozen_store_is_reported_down_within_seconds_and_healthz_says_nothing_of_where_it_is(
    make_server: MakeServer,
) -> None:
    with RedisServer(require_redis_server()) as redis:
        server = await make_server(redis_url=redis.url)
        assert (await _health(server))[0] == 200
        assert redis.proc is not None
        os.kill(redis.proc.pid, signal.SIGSTOP)  # it keeps its socket, and answers nothing
        try:
            down = await eventually(
                lambda: _status_is(server, 503), timeout=10, what="/healthz to say the store is down"
            )
        finally:
            os.kill(redis.proc.pid, signal.SIGCONT)
        _, body = down
        assert set(body) == {"status", "store", "connections", "races"}
        assert body["status"] == "store_down" and str(redis.port) not in json.dumps(body)
        await eventually(lambda: _status_is(server, 200), timeout=10, what="/healthz to say ok again")


async def _status_is(server: RaceServer, status: int) -> tuple[int, dict[str, object]] | None:
    answer = await _health(server)
    return answer if answer[0] == status else None
