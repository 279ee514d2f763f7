"""What tripped a newcomer on the pages, each pinned: the race page opens on this browser's own game,
a race's or an arena's own page marks its section in the bar, the daily deal's link says before
hello that it takes an account token, a link naming an unknown variant still shows the page, and
hindsight says that a player who reached the race's goal lost nothing."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from server.app import RaceServer
from server.races.winnable import Drawn
from terrace import RULES_VERSION, new_game
from terrace.race import RaceRules
from terrace.race.arena import make_spec
from terrace.solve import solve
from tests.server.known_deal import race_lost_at_189
from tests.server.wire import Client
from tests.terrace.solve.games import LOST_AT_189, SEED

from .conftest import http_url, shot
from .races import guest

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_race_page_opens_on_this_browsers_own_game_beside_the_winners(
    server: RaceServer, page: Any
) -> None:
    ann, bob, cid = [await guest(server, n) for n in ("ann", "bob", "cid")]
    race = await race_lost_at_189(server, ann, bob, cid)  # ann plays it out; bob and cid resign
    results = (await ann.request("record", race=race))["race"]["results"]
    last = results[2]["player"]  # the one no side showed by default (places 1 and 2 did)
    await page.goto(http_url(server, "/"))
    await page.evaluate(
        "id => localStorage.setItem('terrace.me', id)", last["id"]
    )  # as the play page keeps it
    await page.goto(http_url(server, f"/race/{race}"))
    sides = page.locator(".side")
    await sides.nth(1).wait_for()
    shown = await sides.evaluate_all("ss => ss.map(s => s.dataset.player)")
    assert shown == [last["name"], results[0]["player"]["name"]], shown  # mine, beside the winner's
    await shot(page, "race-page-own-game")
    # a browser that raced nobody here: places 1 and 2, as before
    await page.evaluate("() => localStorage.removeItem('terrace.me')")
    await page.reload()
    await sides.nth(1).wait_for()
    assert await sides.evaluate_all("ss => ss.map(s => s.dataset.player)") == [
        results[0]["player"]["name"],
        results[1]["player"]["name"],
    ]


async def test_a_races_or_arenas_own_page_marks_its_section_in_the_bar(server: RaceServer, page: Any) -> None:
    for path, section in (
        ("/play/abc123", "/play"),
        ("/arena/xyz", "/arena"),
        ("/play", "/play"),
        ("/top", "/top"),
    ):
        await page.goto(http_url(server, path))
        current = page.locator('nav a[aria-current="page"]')
        await current.wait_for()
        assert await current.evaluate_all("as => as.map(a => a.getAttribute('href'))") == [section], path
    await page.goto(http_url(server, "/race/abc123"))  # a race's record is no section's own page
    await page.locator("main h1").wait_for()
    assert await page.locator("nav a[aria-current]").count() == 0


async def test_the_daily_link_says_before_hello_that_it_takes_an_account_token(
    server: RaceServer, page: Any
) -> None:
    await page.goto(http_url(server, "/play?daily=queen-of-italy"))
    said = page.locator("#daily-hello")
    await said.wait_for()
    text = await said.text_content() or ""
    assert "queen-of-italy daily deal" in text and "account token" in text, text
    assert "How to play queen-of-italy" in (await page.locator("#teach h2").text_content() or "")
    await shot(page, "daily-hello")
    # a guest name is refused there, with the server's reason, and nothing starts
    await page.locator("#name").fill("ann")
    await page.locator("#go").click()
    await page.locator("#note .error, #note [class*=error]").first.wait_for()
    assert "account" in (await page.locator("#note").text_content() or "")
    # the plain play page and an unknown variant's link say nothing of the daily
    for path in ("/play", "/play?daily=nonsense"):
        ctx = await page.context.browser.new_context()
        other = await ctx.new_page()
        await other.goto(http_url(server, path))
        await other.locator("#name").wait_for()
        assert await other.locator("#daily-hello").count() == 0, path
        await ctx.close()


async def test_a_link_naming_an_unknown_variant_still_shows_the_page(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/play?variant=nonsense&goal=nonsense"))
    await page.locator("#name").wait_for()  # the page fixture fails the test on any script error
    assert "How to play terrace" in (await page.locator("#teach h2").text_content() or "")


async def race_won_to_the_goal(server: RaceServer, winner: Client, loser: Client) -> str:
    """A race on the known deal (goal terrace): ``loser`` resigns, ``winner`` plays the solver's
    line until the terrace is empty (finish ``goal``), with the rest of the game still to play."""
    line = list(solve(new_game("terrace", SEED, rules_version=RULES_VERSION)).moves)
    driver = server.registry.new(
        RaceRules("terrace", "terrace", 2, 900, "all", "full"), None, Drawn(SEED, line)
    )
    driver.apply(driver.race.opened())
    race = driver.id
    for c in (winner, loser):
        assert (await c.request("join", race=race))["type"] == "joined"
    for c in (winner, loser):
        await c.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    assert (await loser.request("resign", race=race))["type"] == "resigned"
    for seq, move in enumerate(line, 1):
        answer = await winner.request("move", race=race, seq=seq, move=move)
        assert answer["type"] == "moved", answer
        if answer.get("finish"):
            break
    assert answer.get("finish") == "goal", answer
    await winner.wait(lambda m: m.get("type") == "finished" and m["race"] == race)
    return race


async def test_hindsight_says_the_goal_was_reached_and_offers_no_jump_to_its_end(
    server: RaceServer, page: Any
) -> None:
    race = await race_won_to_the_goal(server, await guest(server, "ann"), await guest(server, "bob"))
    await page.goto(http_url(server, f"/race/{race}"))
    ann = page.locator('#hindsight li[data-player="ann"]')
    await ann.wait_for(timeout=30_000)
    await page.locator("#hindsight-pending").wait_for(state="detached", timeout=60_000)
    text = await ann.text_content() or ""
    assert "ann: reached the race's goal: no move lost it." in text, text
    assert "still winnable" not in text
    # the solver's line on to the whole game is offered as that, not as "a win" the race missed
    assert "a win from" not in text
    summary = await ann.locator("details summary").text_content() or ""
    assert summary.startswith("the whole game (beyond the race's goal) won from after move "), summary
    assert await ann.locator(".jump-winnable").count() == 0  # the end of a won race is no place lost
    assert await page.locator('.marks .mark[title^="ann:"]').count() == 0
    bob = await page.locator('#hindsight li[data-player="bob"]').text_content() or ""
    assert "reached the race's goal" not in bob, bob  # bob resigned: the solver's own words
    await shot(page, "race-hindsight-goal-reached")


async def test_a_guests_name_on_the_player_page_says_why_there_is_no_page_and_how_to_get_one(
    server: RaceServer, page: Any
) -> None:
    await guest(server, "newbie")  # a guest who raced: no account, so no page
    await page.goto(http_url(server, "/player/newbie"))
    await page.locator("main .error").wait_for()
    assert await page.locator("main .error").text_content() == "There is no registered player 'newbie'."
    hint = await page.locator("#guest-hint").text_content() or ""
    assert "A guest (a name without an account) has no page" in hint and "terrace register NAME" in hint, hint
    assert await page.locator('#guest-hint a[href="/play"]').count() == 1


async def race_both_lost_at_189(server: RaceServer, ann: Client, bob: Client) -> str:
    """A race on the known deal where ``ann`` and ``bob`` both play the line that move 190 lost."""
    line = list(solve(new_game("terrace", SEED, rules_version=RULES_VERSION)).moves)
    rules = RaceRules("terrace", "terrace", 2, 900, "all", "full")
    driver = server.registry.new(rules, None, Drawn(SEED, line))
    driver.apply(driver.race.opened())
    race = driver.id
    for c in (ann, bob):
        assert (await c.request("join", race=race))["type"] == "joined"
    for c in (ann, bob):
        await c.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    for c in (ann, bob):
        for seq, move in enumerate(LOST_AT_189, 1):
            answer = await c.request("move", race=race, seq=seq, move=move)
            assert answer["type"] == "moved", answer
        assert answer.get("finish") == "stuck", answer
    await ann.wait(lambda m: m.get("type") == "finished" and m["race"] == race)
    return race


async def test_players_marked_on_the_same_move_share_one_mark_that_names_them_all(
    server: RaceServer, page: Any
) -> None:
    race = await race_both_lost_at_189(server, await guest(server, "ann"), await guest(server, "bob"))
    await page.goto(http_url(server, f"/race/{race}"))
    await page.locator('#hindsight li[data-player="bob"]').wait_for(timeout=60_000)
    await page.locator("#hindsight-pending").wait_for(state="detached", timeout=60_000)
    flags = page.locator(".marks .mark-lost")
    assert await flags.count() == 1  # not two buttons, one hiding the other
    title = await flags.get_attribute("title") or ""
    assert title in ("ann, bob: move 190 lost it", "bob, ann: move 190 lost it"), title
    await flags.click()
    assert await page.locator("#counter").text_content() == "move 190 of 209"
    await shot(page, "race-hindsight-shared-mark")


async def test_alone_in_an_arena_the_page_says_a_race_waits_for_someone_else(
    server: RaceServer, page: Any
) -> None:
    start = int(time.time() * 1000)
    await server.arenas.create(make_spec("lonely", "terrace", "humans", start, 5, name="lonely cup"))
    await page.goto(http_url(server, "/arena/lonely"))
    empty = await page.locator("main .empty").first.text_content() or ""
    assert "press Join to race in it from this browser" in empty, empty  # not only a bot's command
    await page.locator("#arena-join").click()
    await page.wait_for_url("**/play?arena=lonely")
    await page.locator("#name").fill("ida")
    await page.locator("#go").click()
    nxt = page.locator("#arena-next")
    await nxt.wait_for()
    text = await nxt.inner_text()
    assert text.startswith("You are the only one joined: a race needs two players or more"), text
    assert "/arena/lonely" in text
    await shot(page, "arena-alone")
    opponent = await guest(server, "opp")  # someone else joins: they are paired, and the race starts
    assert (await opponent.request("arena_join", arena="lonely"))["type"] == "arena_joined"
    await page.locator("#typed").wait_for(timeout=20_000)
    await opponent.close()


async def test_the_end_screen_says_where_you_came(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/play"))
    await page.locator("#name").fill("ann")
    await page.locator("#go").click()
    await page.locator("#create").click()
    race = (await page.locator("#share").input_value()).rsplit("/", 1)[1]
    bob = await guest(server, "bob")
    assert (await bob.request("join", race=race))["type"] == "joined"
    await page.locator("#start").click()
    started = await bob.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    assert (await bob.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
    assert (await bob.request("resign", race=race))["type"] == "resigned"  # one card home: bob is ahead
    await page.locator("#typed").wait_for()
    page.once("dialog", lambda d: asyncio.ensure_future(d.accept()))
    await page.locator("#resign").click()
    place = page.locator("#my-place")
    await place.wait_for()
    assert await place.inner_text() == "You came 2nd of 2 (resigned)."
    assert await page.locator("#note").inner_text() == "You resigned."  # not the start's "Go!"
    await shot(page, "play-my-place")
    await bob.close()


async def test_a_touch_screen_races_without_the_move_box_taking_focus(
    server: RaceServer, browser: Any
) -> None:
    focused = {}
    for touch in (False, True):
        context = await browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=touch, has_touch=touch
        )
        page = await context.new_page()
        await page.goto(http_url(server, "/play"))
        await page.locator("#name").fill(f"tap{int(touch)}")
        await page.locator("#go").click()
        await page.locator("#create").click()
        race = (await page.locator("#share").input_value()).rsplit("/", 1)[1]
        other = await guest(server, f"other{int(touch)}")
        assert (await other.request("join", race=race))["type"] == "joined"
        await page.locator("#start").click()
        await page.locator("#typed").wait_for()
        focused[touch] = await page.evaluate("document.activeElement && document.activeElement.id")
        if touch:
            await shot(page, "play-phone-racing")
        await other.close()
        await context.close()
    # a mouse and keyboard: typed moves at once; a phone: no keyboard opened over the board
    assert focused == {False: "typed", True: ""}, focused


@pytest.mark.parametrize("width", [360, 390])
async def test_on_a_phone_each_hello_label_stays_beside_its_own_box(
    server: RaceServer, page: Any, width: int
) -> None:
    await page.set_viewport_size({"width": width, "height": 800})
    await page.goto(http_url(server, "/play"))
    await page.locator("#name").wait_for()
    for box in ("name", "token"):
        label = await page.locator(f'label[for="{box}"]').bounding_box()
        field = await page.locator(f"#{box}").bounding_box()
        middle = field["y"] + field["height"] / 2
        assert label["y"] <= middle <= label["y"] + label["height"] + field["height"] / 2, (box, label, field)
        assert label["x"] < field["x"]  # on its left, not at the end of the line above
