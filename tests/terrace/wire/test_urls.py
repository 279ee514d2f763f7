"""Hints for server URLs that cannot work."""

from __future__ import annotations

from terrace.wire.urls import url_hint, with_hint


def test_a_url_without_the_ws_path_is_pointed_at_it() -> None:
    assert url_hint("ws://127.0.0.1:8765") == "the websocket endpoint is /ws: try ws://127.0.0.1:8765/ws"
    assert url_hint("ws://h:1/") == "the websocket endpoint is /ws: try ws://h:1/ws"
    assert url_hint("ws://h:1/ws") is None
    assert url_hint("ws://h:1/ws/") is None


def test_an_http_url_and_a_bare_address_get_the_websocket_form() -> None:
    assert url_hint("http://h:1/") == "the server URL is a websocket URL: try ws://h:1/ws"
    assert url_hint("https://h/") == "the server URL is a websocket URL: try wss://h/ws"
    assert url_hint("127.0.0.1:8765") == "the server URL looks like ws://HOST:PORT/ws"


def test_wss_to_a_plain_server_suggests_ws() -> None:
    assert url_hint("wss://h:1/ws") == "if this server does not speak TLS, try ws://h:1/ws"
    assert with_hint("ws://h:1/ws", "cannot reach it") == "cannot reach it"
    assert with_hint("ws://h:1", "HTTP 200") == "HTTP 200 (the websocket endpoint is /ws: try ws://h:1/ws)"
