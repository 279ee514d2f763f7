"""The leaderboards page in a real browser: live as rated races finish, with pages and "around me"."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.app import RaceServer
from tests.server.wire import Client

from .conftest import http_url, shot
from .races import finish, play

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _registered(server: RaceServer, name: str) -> Client:
    c = await Client.open(server.url)
    answer = await c.request("register", name=name, kind="bot")
    assert answer["type"] == "registered", answer
    return c


async def _rated_race(server: RaceServer, winner: str, loser: str) -> None:
    """Two registered bots race; ``winner`` plays a few cards home, both resign: a rated race."""
    a, b = await _registered(server, winner), await _registered(server, loser)
    race = (await a.request("create", variant="terrace", seats=2))["race"]["id"]
    assert (await b.request("join", race=race))["type"] == "joined"
    await a.request("start", race=race)
    await asyncio.gather(play(a, race, 12), b.wait("started"))
    await finish([a, b], race)
    await a.close()
    await b.close()


async def test_leaderboards_change_live_when_a_rated_race_finishes(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/top?board=wins&variant=terrace"))
    await page.get_by_text("Nobody on this board yet").wait_for()
    await shot(page, "top-empty")
    await _rated_race(server, "Wanda", "Lou")
    row = page.locator("table.leaderboard tbody tr")
    await row.first.wait_for()  # pushed: the page was not reloaded
    assert [t.split() for t in await row.all_inner_texts()] == [["1", "Wanda", "bot", "1"]]
    # the rating board of the bots' pool has both
    await page.locator("#board-kind").select_option("rating")
    await page.locator("#pool").select_option("bots")
    await row.nth(1).wait_for()
    names = [t.split()[1] for t in await row.all_inner_texts()]
    assert sorted(names) == ["Lou", "Wanda"] and names[0] == "Wanda"
    assert "null" not in await page.locator("form").inner_text()
    await shot(page, "top-rating")


async def test_leaderboards_page_through_and_centre_on_a_player(server: RaceServer, page: Any) -> None:
    await asyncio.gather(*(_rated_race(server, f"Win{i:02}", f"Lose{i:02}") for i in range(6)))
    await page.goto(http_url(server, "/top?board=rating&variant=terrace&pool=bots"))
    rows = page.locator("table.leaderboard tbody tr")
    await rows.nth(9).wait_for()
    assert await rows.count() == 10
    assert "rows 1–10 of 12" in await page.locator(".pager").inner_text()
    hint = await page.locator("#rating-hint").inner_text()  # what a rating (below 0, even) means
    assert hint.startswith("A rating is a cautious estimate of skill") and "may go below 0" in hint
    await page.locator("#next").click()
    await page.get_by_text("rows 11–12 of 12").wait_for()
    assert await rows.count() == 2
    assert await page.locator("#next").is_disabled()
    await page.locator("#prev").click()
    await page.get_by_text("rows 1–10 of 12").wait_for()
    last = (await rows.nth(9).inner_text()).split()[1]
    await page.locator("#around").fill(last)
    await page.locator("#around-go").click()
    me = page.locator("tr.me")
    await me.wait_for()
    assert (await me.inner_text()).split()[1] == last
    await page.locator("#around").fill("nobody")
    await page.locator("#around").press("Enter")  # Enter in the box does what the button does
    await page.get_by_text("nobody is not on this board yet.").wait_for()
    await shot(page, "top-around")
    await page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "top-phone")
