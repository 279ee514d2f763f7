"""Hindsight on the race page in a real browser: once the server's analysis is made, the page says
where each game was lost, marks the move that lost it on the board's side, and jumps to it."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import RaceServer
from tests.server.known_deal import race_lost_at_189

from .conftest import http_url, shot
from .races import guest

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_race_page_marks_the_move_that_lost_the_game(server: RaceServer, page: Any) -> None:
    race = await race_lost_at_189(server, await guest(server, "ann"))
    await page.goto(http_url(server, f"/race/{race}"))
    await page.locator("#verdict").wait_for()
    line = page.locator('#hindsight li[data-player="ann"]')
    await line.wait_for(timeout=30_000)  # polled while the server analyses (`analysing`)
    assert "move 190 lost it (proven): the game was winnable before it and not after." in (
        await line.text_content() or ""
    )
    assert "stock known" in (await page.locator("#hindsight .hint").text_content() or "")
    assert await page.locator(".lostmark").count() == 0  # at the deal: no marker
    await line.locator("button.jump").click()
    assert await page.locator("#counter").text_content() == "move 190 of 209"
    side = page.locator('.side[data-player="ann"]').first  # one player: both sides show ann
    assert "190/209: 1-F2" in (await side.locator(".lastmove").text_content() or "")
    assert (await side.locator(".lostmark").text_content() or "").strip() == "⚑ this move lost it (hindsight)"
    await shot(page, "race-hindsight")
    await page.keyboard.press("ArrowRight")  # the next move has no marker
    assert await page.locator("#counter").text_content() == "move 191 of 209"
    assert await page.locator(".lostmark").count() == 0
    await page.keyboard.press("ArrowLeft")
    assert await side.locator(".lostmark").count() == 1
    summary = page.locator('#hindsight li[data-player="ann"] summary')
    assert (await summary.text_content() or "").startswith("a win from after move 189 (")
