"""The live lobby page at ``/``: served as HTML, and it speaks only the JSON lobby feed."""

from __future__ import annotations

import asyncio
import urllib.request

from server.app import RaceServer


async def test_root_serves_the_live_lobby_page_over_the_json_subprotocol(server: RaceServer) -> None:
    url = f"http://127.0.0.1:{server.port}/"
    response = await asyncio.to_thread(urllib.request.urlopen, url)
    page = response.read().decode()
    assert response.status == 200
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert '"terrace.v1.json"' in page
    assert 'type: "subscribe"' in page and 'topic: "lobby"' in page
    # it shows standings and summaries only: no request that could carry cards
    assert 'type: "move"' not in page and "msg.view" not in page
