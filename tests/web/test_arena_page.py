"""The arena pages in a real browser: the list linked from every page, a countdown to the start,
live standings as two bots race, the final standings and races linked to their pages."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from bots.samples.greedy import GreedyBot
from bots.sdk import play
from server.app import RaceServer
from terrace.race.arena import make_spec

from .conftest import http_url, shot

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_an_arena_page_counts_down_then_shows_standings_live_to_the_end(
    server: RaceServer, page: Any
) -> None:
    start = int(time.time() * 1000) + 7_000  # time for the pages to load on a loaded machine
    await server.arenas.create(make_spec("web-cup", "terrace", "bots", start, 8 / 60, name="web cup"))
    await page.goto(http_url(server, "/"))
    await page.get_by_role("link", name="Arenas").click()  # linked from the lobby's header
    await page.wait_for_url("**/arena")
    row = page.locator('tr[data-arena="web-cup"]')
    await row.wait_for()
    assert "starts in 0:0" in await row.locator("td.when").inner_text()
    await row.get_by_role("link", name="web cup").click()
    await page.wait_for_url("**/arena/web-cup")
    await page.get_by_role("heading", name="Arena web cup").wait_for()
    assert (await page.locator("#countdown").inner_text()).startswith("starts in 0:0")
    assert "pool bots" in await page.locator("#arena-meta").inner_text()
    await page.get_by_text("Nobody has joined yet").wait_for()
    await shot(page, "arena-upcoming")

    bots = asyncio.gather(
        *(play(GreedyBot, server.url, name=f"webbot{i}", arena="web-cup", races=None) for i in range(2))
    )
    try:
        # pushed as the first race ends: the page is not reloaded
        await page.locator("table.arena-standings tbody tr").nth(1).wait_for(timeout=20_000)
        await page.locator("ol.arena-races li a").first.wait_for(timeout=20_000)
        assert (await page.locator("#countdown").inner_text()).startswith("ends in")
        await shot(page, "arena-running")
        results = await asyncio.wait_for(bots, 60)
    finally:
        bots.cancel()
    await page.get_by_role("heading", name="Final standings").wait_for(timeout=10_000)
    assert await page.locator("#countdown").inner_text() == "finished"
    played = {r.race for rs in results for r in rs}
    links = await page.locator("ol.arena-races li a").all_inner_texts()
    await page.wait_for_function(f"document.querySelectorAll('ol.arena-races li').length === {len(played)}")
    links = await page.locator("ol.arena-races li a").all_inner_texts()
    assert set(links) == played
    cells = await page.locator("table.arena-standings tbody tr td.points").all_inner_texts()
    details = (await server.arenas.load("web-cup")).details(0)
    assert [int(c) for c in cells] == [row["points"] for row in details["standings"]]
    assert sum(int(c) for c in cells) >= len(played)  # every two-seat race gives its winner 1 point at least
    await shot(page, "arena-finished")
    await page.locator("ol.arena-races li a").first.click()
    await page.wait_for_url("**/race/*")


async def test_an_unknown_arena_says_so(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/arena/no-such"))
    alert = page.get_by_role("alert")
    await alert.wait_for()
    assert "There is no arena 'no-such'" in await alert.inner_text()
