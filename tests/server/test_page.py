"""The web pages over plain HTTP: one shell for every page path, its modules and style, 404 else.

What the pages do is tested in a real browser (tests/web/); here, what the server sends.
"""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from server.app import RaceServer

STATIC = Path(__file__).resolve().parents[2] / "server" / "static"


async def _get(server: RaceServer, path: str) -> tuple[int, str, bytes]:
    def fetch() -> tuple[int, str, bytes]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}") as r:
                return r.status, r.headers["Content-Type"], r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read()

    return await asyncio.to_thread(fetch)


@pytest.mark.parametrize("path", ["/", "/top", "/play", "/play/9f3a61c2", "/race/9f3a61c2", "/race/x?y=1"])
async def test_every_page_path_serves_the_one_shell(server: RaceServer, path: str) -> None:
    status, kind, body = await _get(server, path)
    assert (status, kind) == (200, "text/html; charset=utf-8")
    assert b'<script type="module" src="/static/app.js">' in body


async def test_modules_and_style_are_served_with_their_types(server: RaceServer) -> None:
    status, kind, body = await _get(server, "/static/app.js")
    assert (status, kind) == (200, "text/javascript; charset=utf-8")
    assert body == (STATIC / "app.js").read_bytes()
    assert (await _get(server, "/static/style.css"))[1] == "text/css; charset=utf-8"


@pytest.mark.parametrize(
    "path", ["/static/nope.js", "/static/../http.py", "/static/index.html", "/race/", "/race/a/b", "/lobby"]
)
async def test_other_paths_are_not_found(server: RaceServer, path: str) -> None:
    assert (await _get(server, path))[0] == 404


def test_the_first_page_weighs_under_100_kb() -> None:
    """The lobby loads the shell, its style, app.js and the modules lobby.js imports, statically."""
    seen: set[str] = set()

    def load(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        text = (STATIC / name).read_text()
        for dep in re.findall(r'from "\./([\w-]+\.js)"', text):
            load(dep)

    for name in ("app.js", "net.js", "lobby.js"):
        load(name)
    total = sum((STATIC / n).stat().st_size for n in [*seen, "index.html", "style.css"])
    assert total < 100_000, total
