"""Hindsight on the race page in a real browser: once the server's analysis is made, the page says
where each game was lost, marks the move that lost it on the board's side, and jumps to it (on a
phone too: the jump scrolls the marked board into view)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.app import RaceServer
from tests.poll import eventually
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


IN_VIEW = """e => { const r = e.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }"""


async def test_on_a_phone_the_jump_scrolls_the_marked_board_into_view(server: RaceServer, page: Any) -> None:
    await page.set_viewport_size({"width": 390, "height": 664})  # a phone, less its browser's bars
    race = await race_lost_at_189(server, await guest(server, "ann"))
    await page.goto(http_url(server, f"/race/{race}"))
    jump = page.locator('#hindsight li[data-player="ann"] button.jump')
    await jump.wait_for(timeout=30_000)
    await jump.click()  # the panel is below the boards: the button is scrolled to first
    assert await page.locator("#counter").text_content() == "move 190 of 209"
    mark = page.locator(".side .lostmark").first
    await eventually(lambda: mark.evaluate(IN_VIEW), what="the ⚑ marker within the phone's viewport")
    await shot(page, "race-hindsight-phone")


async def test_the_jump_shows_the_board_of_the_player_whose_move_it_was(
    server: RaceServer, page: Any
) -> None:
    ann, bob, cid = [await guest(server, name) for name in ("ann", "bob", "cid")]
    race = await race_lost_at_189(server, ann, bob, cid)
    await page.goto(http_url(server, f"/race/{race}"))
    jump = page.locator('#hindsight li[data-player="ann"] button.jump')
    await jump.wait_for(timeout=30_000)
    pickers = page.locator(".side select")
    for i, name in enumerate(("bob", "cid")):  # neither side shows ann
        await pickers.nth(i).select_option(
            label=next(
                t for t in await pickers.nth(i).locator("option").all_inner_texts() if t.endswith(name)
            )
        )
    assert await page.locator('.side[data-player="ann"]').count() == 0
    await jump.click()
    side = page.locator('.side[data-player="ann"]')
    assert (await side.locator(".lostmark").text_content() or "").strip() == "⚑ this move lost it (hindsight)"
    assert await page.locator('.side[data-player="cid"]').count() == 1  # the other side stays


MARKERS = """async (games) => {
  const h = await import("/static/hindsight.js");
  return games.map(([game, at]) => h.markerAt(game, at));
}"""


async def test_the_marker_is_a_red_flag_on_the_losing_move_and_a_green_tick_on_the_last_winnable(
    server: RaceServer, page: Any
) -> None:
    await page.goto(http_url(server))
    proven = {"verdict": "lost_by_move", "losing_move": 41, "last_winnable": 41, "first_lost": 42}
    undecided = {"verdict": "unknown", "losing_move": None, "last_winnable": 37, "first_lost": 214}
    got = await page.evaluate(
        MARKERS, [[proven, 42], [proven, 41], [undecided, 37], [undecided, 38], [undecided, 0]]
    )
    assert got == [
        {"cls": "lostmark", "text": "⚑ this move lost it (hindsight)"},
        None,
        {"cls": "winmark", "text": "✓ last position proven winnable (hindsight)"},
        None,
        None,
    ]


async def test_the_slider_marks_the_last_winnable_position_and_a_button_jumps_there(
    server: RaceServer, page: Any
) -> None:
    race = await race_lost_at_189(server, await guest(server, "ann"))
    await page.goto(http_url(server, f"/race/{race}"))
    winnable = page.locator('#hindsight li[data-player="ann"] button.jump-winnable')
    await winnable.wait_for(timeout=30_000)
    assert await winnable.inner_text() == "show the last winnable position (after move 189)"
    await winnable.click()  # one press, where it took 189 arrow presses
    assert await page.locator("#counter").text_content() == "move 189 of 209"
    # the marks stand on the slider where the thumb goes for their move: a click there lands on it
    tick, flag = page.locator(".marks .mark-win"), page.locator(".marks .mark-lost")
    assert await tick.get_attribute("data-step") == "189" and await flag.get_attribute("data-step") == "190"
    assert await tick.get_attribute("aria-label") == "ann: last position proven winnable, after move 189"
    await page.locator("#step").press("Home")
    slider = await page.locator("#step").bounding_box()
    mark = await tick.bounding_box()
    await page.mouse.click(mark["x"] + mark["width"] / 2, slider["y"] + slider["height"] / 2)
    assert abs(int(await page.locator("#step").input_value()) - 189) <= 2
    await page.locator("#step").press("Home")
    await flag.click()  # and a mark jumps too
    assert await page.locator("#counter").text_content() == "move 190 of 209"
    await shot(page, "race-hindsight-marks")
    await page.set_viewport_size({"width": 390, "height": 844})
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "race-hindsight-marks-phone")


async def test_the_page_asks_for_its_own_players_game_first_and_is_told_it_first(
    server: RaceServer, page: Any
) -> None:
    ann, bob = await guest(server, "ann"), await guest(server, "bob")
    race = await race_lost_at_189(server, ann, bob)  # bob resigned at once; ann played 209 moves
    record = (await ann.request("record", race=race))["race"]
    bob_id = next(r["player"]["id"] for r in record["results"] if r["player"]["name"] == "bob")
    await page.goto(http_url(server, "/"))
    await page.evaluate("id => localStorage.setItem('terrace.me', id)", bob_id)  # as the play page keeps it
    frames: list[tuple[str, Any]] = []  # what the page's own websocket sent and heard

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda f: frames.append(("sent", json.loads(f))))
        ws.on("framereceived", lambda f: frames.append(("heard", json.loads(f))))

    page.on("websocket", watch)
    await page.goto(http_url(server, f"/race/{race}"))
    # every game told in the end, the page no longer saying it looks at others
    await page.locator("#hindsight li").nth(1).wait_for(timeout=180_000)
    await page.locator("#hindsight-pending").wait_for(state="detached", timeout=180_000)
    assert await page.locator("#hindsight li").evaluate_all("ls => ls.map(l => l.dataset.player)") == [
        "ann",
        "bob",
    ]
    await shot(page, "race-hindsight-own-first")
    asked = [m for way, m in frames if way == "sent" and m.get("type") == "analysis"]
    assert asked and asked[0]["first"] == bob_id, asked  # the page names its own player's game
    # the games as the server told them: bob's first (ann's 209 moves may follow in the same answer
    # on a quick machine; never hers alone before his)
    told = [
        [g["player"]["name"] for g in m["players"]]
        for way, m in frames
        if way == "heard" and m.get("type") in ("analysing", "analysis") and m.get("players")
    ]
    assert told and told[0] in (["bob"], ["ann", "bob"]), told
