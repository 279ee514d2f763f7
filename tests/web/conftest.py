"""Fixtures for the web pages: a real server on a free port and a real Chromium driven by Playwright.

The browser is Debian's ``chromium`` (Playwright cannot download its own here); ``.ci/run``
installs it. Without it these tests skip on a workstation and fail under ``CI=true``.
One browser serves a whole module; each test gets a fresh context (its own localStorage).
Screenshots go to ``test-output/web/`` (ignored by git) for people to look at.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from server.app import RaceServer
from server.config import Config
from tests.needs import missing
from tests.server.conftest import MakeServer, servers

CHROMIUM = os.environ.get("TERRACE_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "web"
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Every browser and test client shares 127.0.0.1, so a rated race may seat several accounts of it.
WEB = Config(
    host="127.0.0.1",
    port=0,
    countdown=0.3,
    grace=5.0,
    queue_wait=0.3,
    standings_interval=0.05,
    rated_seats_per_address=0,
    # accounts a test makes count on the boards at once (tests/server/players/test_fairplay.py
    # holds the server's own defaults)
    established_races=0,
    established_hours=0.0,
)


def _need_browser() -> None:
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    _need_browser()
    try:
        from playwright.async_api import async_playwright
    except ImportError:  # pragma: no cover - the test extra installs it
        pytest.fail("playwright is not installed: pip install -e '.[test]'")
    async with async_playwright() as p:  # launch() gives the browser a fresh, temporary profile
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        await b.close()


@pytest_asyncio.fixture(loop_scope="module")
async def make_server() -> AsyncIterator[MakeServer]:
    async with servers(WEB) as make:
        yield make


@pytest_asyncio.fixture(loop_scope="module")
async def server(make_server: MakeServer) -> RaceServer:
    return await make_server()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Any, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A page in a fresh context; it fails the test on any script error in the page."""
    context = await browser.new_context(viewport={"width": 1100, "height": 900})
    pg = await context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.script_errors = errors
    yield pg
    await context.close()
    assert errors == [], f"errors in the page: {errors}"


async def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path


def http_url(server: RaceServer, path: str = "/") -> str:
    return f"http://127.0.0.1:{server.port}{path}"
