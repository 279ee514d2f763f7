"""The daily page in a real browser: the day's commitments, the board updating live as attempts
finish, and, once the day is over (a test clock), the revealed seed checked against its commitment."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import RaceServer
from terrace.rules.deal import commitment
from tests.server.features.test_daily import Clock, play_daily, registered

from .conftest import http_url, shot

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_daily_board_updates_live_and_a_past_day_shows_its_checked_seed(
    make_server: Any, page: Any
) -> None:
    server: RaceServer = await make_server(daily_secret="33" * 32)  # a known deal: known scores
    clock = Clock()
    server.daily.clock = clock
    await page.goto(http_url(server, "/daily?variant=terrace&pool=humans"))
    await page.get_by_text("Nobody on this board yet").wait_for()
    first = await registered(server.url, "Dawn")
    daily = await first.request("daily", variant="terrace")
    assert await page.locator("#commitment").inner_text() == daily["commitment"]
    assert await page.locator("#next-commitment").inner_text() == daily["next_commitment"]
    assert "2026-11-18" in await page.locator("#day").inner_text()
    assert await page.locator("#later").is_disabled()

    await play_daily(first, moves=2)
    rows = page.locator("#daily-board tbody tr")
    await rows.first.wait_for()  # pushed: the page was not reloaded
    assert [t.split() for t in await rows.all_inner_texts()] == [["1", "Dawn", "person", "–", "1"]]
    second = await registered(server.url, "Dusk")
    await play_daily(second)
    await rows.nth(1).wait_for()
    assert [t.split()[1] for t in await rows.all_inner_texts()] == ["Dawn", "Dusk"]
    assert "2 attempts" in await page.locator("h2").inner_text()
    assert await page.locator("#seed").count() == 0  # nothing told while the day lasts
    await shot(page, "daily-today")

    clock.next_day()
    await page.reload()  # (the page asks again by itself when the day ends by its own clock)
    await page.get_by_text("Nobody on this board yet").wait_for()
    await page.locator("#earlier").click()  # yesterday: its board, deal and best lines are kept
    await page.locator("#seed").wait_for()
    seed = await page.locator("#seed").inner_text()
    assert commitment(bytes.fromhex(seed)) == daily["commitment"]
    assert "matches the commitment" in await page.locator("#seed-check").inner_text()
    assert [t.split()[0] for t in await page.locator("#best li").all_inner_texts()] == ["Dawn", "Dusk"]
    assert [t.split()[1] for t in await rows.all_inner_texts()] == ["Dawn", "Dusk"]
    await shot(page, "daily-revealed")
    await page.locator("#later").click()  # back to today: a new day, an empty board
    await page.get_by_text("Nobody on this board yet").wait_for()
    assert await page.locator("#commitment").inner_text() == daily["next_commitment"]
    await page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await page.locator("#earlier").click()
    await page.locator("#best li a").first.click()  # the best line's record, checked in the browser
    verdict = page.locator("#verdict")
    await verdict.wait_for()
    assert await verdict.text_content() == "✓ deal verified in this browser"
