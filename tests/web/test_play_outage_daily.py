"""The play page through an outage (a real relay between browser and server, cut and mended): the
board stays, "reconnecting…" is said, and a move made meanwhile is said not to be played, then the
race goes on. The daily deal: the page asks before the day's one rated attempt, and the race says
it is the daily."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from server.app import RaceServer
from tests.server.features.test_daily import Clock, registered

from .conftest import http_url, shot
from .proxy import Relay

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module")
async def relay(server: RaceServer) -> AsyncIterator[Relay]:
    r = Relay(server.port)
    await r.start()
    yield r
    await r.cut()


async def test_an_outage_keeps_the_board_and_says_what_became_of_a_move(
    server: RaceServer, relay: Relay, page: Any
) -> None:
    await page.goto(f"http://127.0.0.1:{relay.port}/play")
    await page.locator("#name").fill("otto")
    await page.locator("#go").click()
    await page.locator("#seats").fill("1")
    await page.locator("#create").click()
    await page.locator("#start").click()
    await page.locator(".board").wait_for()
    await page.locator('#legal button[data-move="1-F1"]').click()
    await page.get_by_text("move 1", exact=True).wait_for()
    board = await page.locator(".board").inner_html()

    await relay.cut()
    outage = page.locator("#outage")
    await outage.wait_for()
    assert "reconnecting…" in await outage.inner_text()
    assert await page.locator(".board").inner_html() == board  # the last board stays
    button = page.locator("#legal button").first
    words = await button.inner_text()
    move = await button.get_attribute("data-move")
    await button.click()
    note = page.locator("#note .error")
    await note.wait_for()
    assert (await note.inner_text()).startswith(f"Not played: {words} ({move}) was not sent")
    assert await page.locator("#seq").inner_text() == "move 1"
    assert await page.locator(".board").inner_html() == board
    await shot(page, "play-outage")

    await relay.start()  # the same port: the page's reconnection finds the server again
    await page.get_by_text("Back in the race.").wait_for(timeout=15_000)
    said = await page.locator("#note").inner_text()
    assert f"Your move {words} ({move}), made while the connection was down, was not played" in said
    assert await outage.count() == 0
    assert await page.locator("#seq").inner_text() == "move 1"
    await page.locator("#legal button").first.click()  # and the race goes on from there
    await page.get_by_text("move 2", exact=True).wait_for()
    # a reconnection tried while the relay was cut is logged by Chromium as a failed websocket:
    # the outage this test makes, not a fault of the page
    page.script_errors[:] = [e for e in page.script_errors if "WebSocket connection to" not in e]


async def test_the_daily_asks_before_its_one_rated_attempt(make_server: Any, page: Any) -> None:
    server: RaceServer = await make_server(daily_secret="44" * 32)
    server.daily.clock = Clock()
    account = await registered(server.url, "Dana")
    await account.close()
    await page.goto(http_url(server, "/daily?variant=terrace"))
    await page.locator("#daily-play").click()  # the daily page leads to the play page...
    await page.locator("#token").fill(account.token)  # type: ignore[attr-defined]
    await page.locator("#go").click()
    ask = page.locator("#daily-ask")  # ...which asks first, and nothing is spent by asking
    await ask.wait_for()
    assert (await ask.inner_text()).startswith("This is your one rated attempt today at terrace")
    checker = await registered(server.url, "Dana2")
    before = await checker.request("daily", variant="terrace")
    assert before["total"] == 0
    await shot(page, "daily-confirm")
    await page.locator("#daily-cancel").click()  # "Not now": home, no attempt
    await page.locator("#queue").wait_for()
    await page.goto(http_url(server, "/play?daily=terrace"))
    await page.locator("#daily-start").click()
    title = page.locator("#race-title")
    await title.wait_for()
    assert await title.inner_text() == "Daily deal, 2026-11-18 · your rated attempt"
    await shot(page, "daily-racing")
    await page.reload()  # a reload keeps saying it
    await page.get_by_text("Back in the race.").wait_for()
    assert await title.inner_text() == "Daily deal, 2026-11-18 · your rated attempt"
    page.once("dialog", lambda d: asyncio.ensure_future(d.accept()))
    await page.locator("#resign").click()
    result = page.locator("#result")
    await result.wait_for()
    assert await result.inner_text() == "The race is over · Daily deal, 2026-11-18"
    await checker.close()
