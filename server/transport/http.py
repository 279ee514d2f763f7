"""Plain HTTP on the websocket port: ``/healthz``, ``/metrics``, the web pages, and 404 for the rest.

``process_request`` hands every HTTP request here before any websocket handshake;
``/ws`` goes on to the handshake (unless the address has too many connections, or the
page asking is from an origin not allowed). Only GET and HEAD are answered (405 else).
``/healthz`` tells whether the store answers, never where it is.
"""

from __future__ import annotations

import dataclasses
import functools
import http
import json
import math
import re
from importlib import resources
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.transport.host import Host
from server.transport.limits import client_address
from terrace.rules.teach import teach_data

HANDSHAKE_COST = 10  # tokens of the address's bucket a websocket handshake costs


def address(server: Host, connection: ServerConnection, request: Request | None = None) -> str:
    """The address a connection's per-address limits count: its peer's, or behind a trusted
    proxy (``--trusted-proxies``) the client's that the proxy forwarded (server.transport.limits)."""
    remote = connection.remote_address
    if not remote:
        return "?"
    request = request if request is not None else connection.request
    forwarded = ",".join(request.headers.get_all("X-Forwarded-For")) if request is not None else None
    return client_address(str(remote[0]), forwarded, server.guard.proxies)


def route(server: Host, connection: ServerConnection, request: Request) -> Response | None:
    """The answer to a plain HTTP request, or None to go on with the websocket handshake."""
    path = request.path.split("?", 1)[0]
    if request.method not in ("GET", "HEAD") or (path == "/ws" and request.method != "GET"):
        refused = connection.respond(http.HTTPStatus.METHOD_NOT_ALLOWED, "only GET (and HEAD) here\n")
        refused.headers["Allow"] = "GET" if path == "/ws" else "GET, HEAD"
        return refused
    answer = _route(server, connection, request, path)
    if request.method == "HEAD" and answer is not None:  # the GET's headers, no body
        return dataclasses.replace(answer, body=b"")
    return answer


def _route(server: Host, connection: ServerConnection, request: Request, path: str) -> Response | None:
    if path == "/ws":
        if not origin_allowed(server.config.origins, request):
            return connection.respond(http.HTTPStatus.FORBIDDEN, "this page's origin may not connect here\n")
        admission = getattr(connection, "admission", "in")
        if admission == "full":
            return connection.respond(
                http.HTTPStatus.SERVICE_UNAVAILABLE, "the server is full; try again later\n"
            )
        if admission != "in":
            return connection.respond(
                http.HTTPStatus.TOO_MANY_REQUESTS, "too many connections from your address\n"
            )
        bucket = server.guard.buckets[address(server, connection, request)]
        wait = bucket.wait(HANDSHAKE_COST)
        bucket.charge(HANDSHAKE_COST)  # a new connection is work: it costs its address tokens
        if wait:
            return connection.respond(
                http.HTTPStatus.TOO_MANY_REQUESTS,
                f"too many requests from your address; try again in {math.ceil(wait)} s\n",
            )
        return None
    if PAGES.fullmatch(path):  # every page is the one shell; its script reads the path
        page = response(200, _static("index.html"), "text/html; charset=utf-8")
        page.headers.update(PAGE_HEADERS)
        return page
    if path == "/static/teach.js":  # written from the core, so the pages teach the terminal's lines
        return response(200, _teach_js(), TYPES["js"])
    if (asset := ASSET.fullmatch(path)) is not None and asset[1] in _assets():
        return response(200, _static(asset[1]), TYPES[asset[2]])
    if path == "/healthz":
        return _health(server)
    if path == "/metrics":
        server.refresh_gauges()
        return response(200, server.metrics.text().decode(), "text/plain; version=0.0.4; charset=utf-8")
    return connection.respond(
        http.HTTPStatus.NOT_FOUND,
        "not found: the pages are /, /play, /top, /daily and /arena; the websocket is /ws; also /healthz and /metrics\n",
    )


# The web pages (lobby, leaderboards, a race, playing) and their files: plain ES modules, no build step.
PAGES = re.compile(
    r"/|/top|/daily|/play|/play/[A-Za-z0-9_-]{1,64}|/race/[A-Za-z0-9_-]{1,64}|/arena|/arena/[a-z0-9-]{1,48}|/player/[A-Za-z0-9_-]{1,64}"
)
ASSET = re.compile(r"/static/([a-z0-9-]+\.(js|css))")
TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"}


@functools.cache
def _assets() -> frozenset[str]:
    return frozenset(f.name for f in resources.files("server").joinpath("static").iterdir())


@functools.cache
def _static(name: str) -> str:
    return resources.files("server").joinpath("static", name).read_text(encoding="utf-8")


@functools.cache
def _teach_js() -> str:
    data = json.dumps(teach_data(), ensure_ascii=False, indent=1)
    return f"// Written by the server from terrace/rules/teach.py: the rules the terminal's help says.\nexport const TEACH = {data};\n"


def _health(server: Host) -> Response:
    body: dict[str, Any] = {"status": "ok" if server.store_down is None else "store_down", **server.health()}
    return response(200 if server.store_down is None else 503, json.dumps(body) + "\n", "application/json")


def origin_allowed(allowed: str, request: Request) -> bool:
    """Whether a websocket handshake may go on, by its Origin: a client that sends none (not a
    browser), the server's own pages (the Origin's host is the Host asked for), or an origin
    in ``allowed`` (comma-separated ``scheme://host[:port]``; ``*`` allows every origin)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    origins = {o.strip().rstrip("/") for o in allowed.split(",") if o.strip()}
    if "*" in origins or origin.rstrip("/") in origins:
        return True
    host = request.headers.get("Host")
    return host is not None and origin in (f"http://{host}", f"https://{host}")


# The pages load their own scripts and styles only, talk to this server only, and may not be
# framed by another site (a click on a framed Race now or Resign would be someone else's).
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


def response(status: int, body: str, content_type: str) -> Response:
    data = body.encode()
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(data)))])
    return Response(status, http.HTTPStatus(status).phrase, headers, data)
