"""The lobby page in a real browser: a running race's real standings from the moment it opens."""

from __future__ import annotations

import re
from typing import Any

import pytest

from server.app import RaceServer
from tests.server.wire import Client

from .conftest import http_url, shot

pytestmark = pytest.mark.asyncio(loop_scope="module")

CARD = re.compile(r'"(?:10|[A2-9TJQK])[cdhs]"')


async def _guest(server: RaceServer, name: str, kind: str = "human") -> Client:
    c = await Client.open(server.url)
    welcome = await c.request("hello", name=name, kind=kind)
    assert welcome["type"] == "welcome", welcome
    return c


async def test_the_lobby_shows_a_running_races_real_standings_on_arrival(
    server: RaceServer, page: Any
) -> None:
    alice = await _guest(server, "alice")
    robo = await _guest(server, "robo", kind="bot")
    race = (await alice.request("create", variant="terrace", seats=2))["race"]["id"]
    assert (await robo.request("join", race=race))["type"] == "joined"
    await alice.request("start", race=race)
    started = await alice.wait("started")
    await robo.wait("started")
    moves = [started["legal"][0], "S-W", "S-W"]
    for seq, move in enumerate(moves, 1):
        moved = await alice.request("move", race=race, seq=seq, move=move)
        assert moved["type"] == "moved", moved
    await alice.wait(lambda m: m["type"] == "standings" and any(r["moves"] == 3 for r in m["rows"]))
    open_race = (await (await _guest(server, "carol")).request("create", variant="louis", seats=3))["race"][
        "id"
    ]

    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    await page.goto(http_url(server))  # after the moves: only the snapshot can tell
    card = page.locator(f'article[data-race="{race}"]')
    await card.locator("table.standings").wait_for()
    rows = card.locator("tbody tr")
    assert await rows.count() == 2
    cells = {}
    for i in range(2):
        row = [(await c.text_content() or "").strip() for c in await rows.nth(i).locator("td").all()]
        cells[row[1].split()[0]] = row
    # place, player (kind), terrace left, cards home, moves, finish
    assert cells["alice"][1:] == ["alice person", "11 left", "1", "3", ""]
    assert cells["robo"][1:] == ["robo bot", "11 left", "0", "0", ""]
    assert await card.locator(".state").text_content() == "running"
    opened = page.locator(f'article[data-race="{open_race}"]')
    assert "1/3 seats" in await opened.inner_text()
    assert await opened.get_by_role("link", name="Join").get_attribute("href") == f"/play/{open_race}"
    await shot(page, "lobby-running")
    weight = await page.evaluate(
        """() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
                 .reduce((n, e) => n + e.encodedBodySize, 0)"""
    )
    assert 10_000 < weight < 100_000, weight  # the whole first page, as the browser loaded it
    await page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "lobby-phone")
    await page.set_viewport_size({"width": 1100, "height": 900})

    # pushes keep it right: a resignation shows as a finish, the end moves it to "recently finished"
    await robo.request("resign", race=race)
    await card.get_by_text("resigned").wait_for()
    robo_finish = await card.locator("tbody tr", has_text="robo").locator("td").last.text_content()
    assert re.fullmatch(r"resigned \d:\d\d\.\d", robo_finish or ""), robo_finish  # tenths, as in the terminal
    await alice.request("resign", race=race)
    finished = page.locator(f'table.finished tr[data-race="{race}"]')
    await finished.wait_for()
    assert "terrace" in await finished.inner_text()
    won_with = (await finished.locator("td").nth(4).text_content() or "").strip()
    assert won_with == "1 card home"  # what won (nobody reached the goal), not "resigned 0:01.2"
    await card.wait_for(state="detached")
    await shot(page, "lobby-finished")
    await page.set_viewport_size({"width": 390, "height": 844})  # the finished table fits a phone too
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await page.set_viewport_size({"width": 1100, "height": 900})
    assert len(frames) >= 5 and not [f for f in frames if CARD.search(f)]  # the lobby never hears a card
    for c in (alice, robo):
        await c.close()


async def test_the_lobby_reconnects_by_itself_and_is_right_again(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server))
    await page.get_by_text("No race is open or running").wait_for()
    for conn in list(server.connections):  # the connection drops (as a server restart would drop it)
        await conn.ws.close(1001)
    await page.get_by_text("disconnected; reconnecting…").wait_for()
    dana = await _guest(server, "dana")
    race = (await dana.request("create", variant="signora", seats=2))["race"]["id"]
    # created while the page was away: it hears of it only by subscribing again
    await page.locator(f'article[data-race="{race}"]').wait_for()
    assert await page.locator("#status").text_content() == "live"
    await dana.close()


async def test_a_finished_race_won_by_the_goal_shows_the_goal_and_its_time(
    server: RaceServer, page: Any
) -> None:
    """The winner's column says what won: the goal in its time (a race nobody took to the goal
    says the cards home instead: above)."""
    from server.races.winnable import Drawn
    from terrace import RULES_VERSION, new_game
    from terrace.race import RaceRules
    from terrace.solve import solve
    from tests.terrace.solve.games import SEED

    await page.goto(http_url(server))
    await page.locator("h2").first.wait_for()
    line = list(solve(new_game("terrace", SEED, rules_version=RULES_VERSION)).moves)
    driver = server.registry.new(
        RaceRules("terrace", "terrace", 1, 900, "all", "full"), None, Drawn(SEED, line)
    )
    driver.apply(driver.race.opened())
    ada = await _guest(server, "ada")
    assert (await ada.request("join", race=driver.id))["type"] == "joined"
    await ada.wait("started")
    for seq, move in enumerate(line, 1):
        answer = await ada.request("move", race=driver.id, seq=seq, move=move)
        assert answer["type"] == "moved", answer
        if answer.get("finish"):
            break
    assert answer.get("finish") == "goal", answer
    finished = page.locator(f'table.finished tr[data-race="{driver.id}"]')
    await finished.wait_for()
    won_with = (await finished.locator("td").nth(4).text_content() or "").strip()
    assert re.fullmatch(r"goal in \d+:\d\d\.\d", won_with), won_with
    await ada.close()


async def test_on_a_phone_the_header_takes_two_lines_the_pages_on_one(server: RaceServer, page: Any) -> None:
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.goto(http_url(server, "/top"))
    await page.locator("#status.live").wait_for()
    tops = await page.locator("nav a").evaluate_all("as => as.map(a => a.getBoundingClientRect().top)")
    assert len(tops) == 5 and len(set(tops)) == 1, tops  # every page's link on one line
    brand, status = page.locator("header .brand"), page.locator("#status")
    b, s = await brand.bounding_box(), await status.bounding_box()
    assert abs(b["y"] - s["y"]) < b["height"], (b, s)  # the status beside the name, not below
    header = await page.locator("header").bounding_box()
    assert header["height"] < 3 * b["height"], header
