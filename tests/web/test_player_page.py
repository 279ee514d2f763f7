"""The ladder in a real browser: the bots' rating board with races played, a bot's name linking to
its page, which shows its ratings, the rating after each rated race as a line, and those races."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.app import RaceServer

from .conftest import http_url, shot
from .races import finish, play
from .test_top_page import _registered

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_ladder_board_counts_races_and_a_bots_page_shows_its_rating_history(
    server: RaceServer, page: Any
) -> None:
    a, b = await _registered(server, "Ladderbot"), await _registered(server, "Rungbot")
    for _ in range(3):  # rated races of the bots' pool: Ladderbot plays a few cards home, both resign
        race = (await a.request("create", variant="terrace", seats=2))["race"]["id"]
        assert (await b.request("join", race=race))["type"] == "joined"
        await a.request("start", race=race)
        await asyncio.gather(play(a, race, 12), b.wait("started"))
        await finish([a, b], race)
    await a.close()
    await b.close()
    await page.goto(http_url(server, "/top?board=rating&variant=terrace&pool=bots"))
    rows = page.locator("table.leaderboard tbody tr")
    await rows.nth(1).wait_for()
    assert await page.locator("table.leaderboard thead th").all_inner_texts() == [
        "rank",
        "player",
        "rating",
        "races",
    ]
    assert await rows.locator("td.races").all_inner_texts() == ["3", "3"]
    await shot(page, "ladder-board")
    await page.get_by_role("link", name="Ladderbot").click()
    await page.wait_for_url("**/player/Ladderbot")
    await page.locator("#ratings").wait_for()
    cells = await page.locator("#ratings tbody td").all_inner_texts()
    assert cells[0] == "bots" and cells[1] == "terrace" and cells[4] == "3"
    history = page.locator("#history tbody tr")
    assert await history.count() == 3
    assert await page.locator("#rating-line circle").count() == 3
    page_answer = await server.leaderboards.player("Ladderbot")
    newest = page_answer["history"][0]
    assert (await history.first.locator("td").last.inner_text()) == f"{newest['rating']:.1f}"
    ticks = [float(t) for t in await page.locator("#rating-line text.y-tick").all_text_contents()]
    ratings = [h["rating"] for h in page_answer["history"]]
    assert min(ticks) <= min(ratings) and max(ratings) <= max(ticks)  # the scale holds every rating
    await shot(page, "bot-page")
    await page.set_viewport_size({"width": 390, "height": 844})  # a phone: the line shrinks to fit
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "bot-page-phone")
    await page.set_viewport_size({"width": 1100, "height": 900})
    await history.first.get_by_role("link").click()
    await page.wait_for_url(f"**/race/{newest['race']}")


async def test_an_unknown_player_page_says_so(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/player/Nobody"))
    alert = page.get_by_role("alert")
    await alert.wait_for()
    assert "There is no registered player 'Nobody'" in await alert.inner_text()


CHART = """async ([ratings, width]) => {
  const { ratingLine } = await import("/static/player.js");
  const box = document.createElement("div");
  box.style.width = width + "px";
  document.body.replaceChildren(box);
  box.append(ratingLine(ratings.map((rating, i) => ({ rating, race: "r" + i })).reverse()));
  const chart = box.querySelector("svg"), r = chart.getBoundingClientRect();
  const [yAxis, xAxis] = [...chart.querySelectorAll("line.axis-line")].map((l) => l.getBoundingClientRect());
  const inside = [...chart.querySelectorAll("circle")].every((c) => {
    const d = c.getBoundingClientRect(), cx = d.x + d.width / 2, cy = d.y + d.height / 2;
    return cx > yAxis.x && cx <= xAxis.right && cy >= yAxis.y && cy < xAxis.y;
  });
  return { width: r.width, axes: chart.querySelectorAll("line.axis-line").length,
    y: [...chart.querySelectorAll("text.y-tick")].map((t) => t.textContent),
    x: [...chart.querySelectorAll("text.x-tick")].map((t) => t.textContent),
    dots: chart.querySelectorAll("circle").length, line: chart.querySelectorAll("polyline").length, inside };
}"""


@pytest.mark.parametrize("ratings", [[12.5], [3.0, 7.25, 6.0, 9.5]], ids=["one race", "four races"])
async def test_the_rating_chart_has_axes_and_spans_its_box_with_one_race_or_four(
    server: RaceServer, page: Any, ratings: list[float]
) -> None:
    """One rated race used to be a lone dot, four a half-width line with no axes."""
    await page.goto(http_url(server, "/"))
    for width in (640, 360):  # a desktop's column and a phone's
        got = await page.evaluate(CHART, [ratings, width])
        assert got["width"] == width and got["axes"] == 2 and got["inside"], got
        assert got["x"] == [str(i + 1) for i in range(len(ratings))]
        ys = [float(v) for v in got["y"]]
        assert len(ys) == 3 and ys[0] < ys[1] < ys[2] and ys[0] <= min(ratings) and max(ratings) <= ys[2]
        assert got["dots"] == len(ratings) and got["line"] == (1 if len(ratings) > 1 else 0)
    await page.evaluate(CHART, [ratings, 640])
    await shot(page, f"rating-chart-{len(ratings)}")
