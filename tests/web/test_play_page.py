"""Playing in a real browser: a guest races house bots to the end by clicks on the board, a
reload mid-race resumes, a refusal shows the server's reason, and a private race's link seats a friend."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bots.house.keeper import Slot, keep_house
from server.app import RaceServer
from tests.poll import eventually
from tests.server.wire import Client

from .conftest import MakeServer, http_url, shot

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMIT = 25  # seconds: a race against bots that finish at once ends by this at the latest


@pytest_asyncio.fixture(loop_scope="module")
async def housed(make_server: MakeServer) -> AsyncIterator[RaceServer]:
    """A server with three greedy house bots waiting in the terrace queue (run in this process)."""
    server = await make_server(default_time_limit=LIMIT)
    task = asyncio.create_task(keep_house(server.url, [Slot("greedy", 3, "full")], ["terrace"]))
    await eventually(lambda: _house_waiting(server) == 3, what="three house bots in the queue")
    yield server
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def _house_waiting(server: RaceServer) -> int:
    return sum(len(w.house) for w in server.matchmaking.queues.values())


async def _hello(page: Any, server: RaceServer, name: str, path: str = "/play") -> None:
    await page.goto(http_url(server, path))
    await page.locator("#name").fill(name)
    await page.locator("#go").click()
    await page.get_by_text(f"You are {name}").wait_for()


def _choose(legal: list[str]) -> str:
    """Cards home first, then the stock, then anything (the server judges)."""
    for good in (lambda m: "-F" in m, lambda m: m.startswith("S-")):
        for m in legal:
            if good(m):
                return m
    return legal[0]


async def _click_move(page: Any, move: str) -> None:
    src, dst = move.split("-")
    await page.locator(f'[data-place="{src}"]').click()
    if src != "S":  # the stock turns with one click
        await page.locator(f'[data-place="{dst}"]').click()


async def _legal(page: Any) -> list[str]:
    return await page.locator("#legal button").evaluate_all("bs => bs.map(b => b.dataset.move)")  # type: ignore[no-any-return]


async def _next_seq(page: Any, seq: str) -> None:
    await page.wait_for_function(
        "seq => document.querySelector('#result') || (document.querySelector('#seq') || {}).textContent !== seq",
        arg=seq,
    )


async def _start_against_house(page: Any, server: RaceServer, name: str) -> None:
    await _hello(page, server, name)
    await page.locator("#queue").click()
    await page.locator(".board").wait_for()


async def test_a_person_races_house_bots_to_the_end_by_clicks(housed: RaceServer, page: Any) -> None:
    await page.goto(http_url(housed))  # from the lobby: one button, a name, and the race is on
    await page.get_by_role("link", name="terrace", exact=True).click()
    await page.locator("#name").fill("pat")
    await page.locator("#go").click()
    await page.locator(".board").wait_for()
    rows = page.locator("#standings-box tbody tr")
    await rows.nth(3).wait_for()
    assert await page.locator("#standings-box .kind.bot").count() == 3
    await shot(page, "play-start")
    clicks = drags = missed_drags = 0
    page.set_default_timeout(8_000)  # a click that waits longer met the end of the race
    while not await page.locator("#result").count():
        if await page.locator("#my-finish").count():  # done: the race ends when the bots or the clock are
            await page.locator("#result").wait_for(timeout=(LIMIT + 10) * 1000)
            break
        move, legal, seq = "", [], ""
        try:
            seq = await page.locator("#seq").text_content()
            legal = await _legal(page)
            if not legal:  # the game is over (stuck): its finish shows with the push that follows
                await page.locator("#my-finish, #result").first.wait_for(timeout=(LIMIT + 10) * 1000)
                continue
            move = _choose(legal)
            if clicks == 0:
                assert move in ("1-F1", "2-F1", "3-F1", "4-F1")
                await page.locator(f'[data-place="{move[0]}"]').click()  # legal targets light up
                targets = page.locator(".place.target")
                assert await targets.evaluate_all("ps => ps.map(p => p.dataset.place)") == ["F1"]
                await page.locator('[data-place="F1"]').click()
            elif not move.startswith("S-") and clicks % 4 == 3:  # now and then by dragging the card
                src, dst = move.split("-")
                await page.locator(f'[data-place="{src}"]').drag_to(page.locator(f'[data-place="{dst}"]'))
                try:
                    await _next_seq(page, seq or "")
                    drags += 1
                except PlaywrightTimeout:
                    # a synthetic drag can miss its drop on a loaded machine (nothing is sent, the
                    # board waits as it was): the same move by clicks, and the drag not counted
                    missed_drags += 1
                    if await page.locator("#result").count() or await page.locator("#my-finish").count():
                        continue
                    await _click_move(page, move)
            else:
                await _click_move(page, move)
            await _next_seq(page, seq or "")
            if clicks == 0:  # the base: said in the core's words (terrace.rules.news), as the terminal does
                said = await page.locator("#note").inner_text()
                assert said.startswith("Played ") and f"→ F1 ({move}). Base " in said
                assert "every foundation starts with" in said
        except PlaywrightTimeout as e:
            if await page.locator("#result").count() or await page.locator("#my-finish").count():
                continue  # the clock ended the race under our fingers
            note = await page.locator("#note").inner_text() if await page.locator("#note").count() else ""
            raise AssertionError(
                f"move {move} of {legal} at move {seq} not answered; the page says {note!r}"
            ) from e
        clicks += 1
        if clicks == 3:
            # a live place in every row's # (the place if the race ended now), as in the terminal
            await page.wait_for_function(
                "() => [...document.querySelectorAll('#standings-box tbody tr td:first-child')]"
                ".every((td) => /^[1-4]$/.test(td.textContent))"
            )
            await shot(page, "play-racing")
    await shot(page, "play-finished")
    results = await page.locator(".finished tbody tr").all_text_contents()
    assert len(results) == 4 and any("pat" in r for r in results)
    assert await page.locator("#rated-note").inner_text() == (
        "Not rated: ratings count only races of registered players (guests and house bots are not)."
    )  # the terminal's words: a person racing the house learns why no rating came of it
    assert clicks >= 3 and drags >= 1, (clicks, drags, missed_drags)
    assert await page.locator("#replay").get_attribute("href") == f"/race/{page.url.rsplit('/', 1)[1]}"


async def test_a_reload_mid_race_resumes_the_race(housed: RaceServer, page: Any) -> None:
    await _start_against_house(page, housed, "quinn")
    for _ in range(3):
        seq = await page.locator("#seq").text_content()
        await _click_move(page, _choose(await _legal(page)))
        await _next_seq(page, seq or "")
    before = await page.locator(".board").inner_html()
    assert await page.locator("#seq").text_content() == "move 3"
    await page.reload()
    await page.get_by_text("Back in the race.").wait_for()
    assert await page.locator("#seq").text_content() == "move 3"
    assert await page.locator(".board").inner_html() == before
    # and it goes on: the next move is seq 4, by typing it this time
    move = _choose(await _legal(page))
    await page.locator("#typed").fill(move)
    await page.locator("#typed").press("Enter")
    await page.get_by_text("move 4", exact=True).wait_for()
    # a refusal shows the server's reason and changes nothing
    await page.locator("#typed").fill("T-1")
    await page.locator("#typed").press("Enter")
    await page.locator("#note .error").wait_for()
    assert (await page.locator("#note").text_content() or "").startswith("Refused: ")
    assert await page.locator("#seq").text_content() == "move 4"
    await shot(page, "play-refused")
    await page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "play-phone")
    # the keyboard alone: every place is a button, and focus stays put across the redraw
    await page.set_viewport_size({"width": 1100, "height": 900})
    legal = await _legal(page)
    await page.locator('[data-place="S"]').focus()
    await page.keyboard.press("Enter")
    await page.get_by_text("move 5", exact=True).wait_for()
    assert "S-W" in legal and await page.evaluate("document.activeElement.dataset.place") == "S"
    page.once("dialog", lambda d: asyncio.ensure_future(d.accept()))
    await page.locator("#resign").click()
    await page.locator("#my-finish, #result").first.wait_for()


async def test_a_private_race_link_seats_a_friend_who_comes_with_a_token(
    server: RaceServer, page: Any, browser: Any
) -> None:
    await _hello(page, server, "rae")
    await page.locator("#create").click()
    link = await page.locator("#share").input_value()
    race = link.rsplit("/", 1)[1]
    assert link == http_url(server, f"/play/{race}")
    account = await Client.open(server.url)  # the friend has an account: they come with its token
    token = (await account.request("register", name="sol"))["token"]
    await account.close()
    friend_context = await browser.new_context()
    friend = await friend_context.new_page()
    try:
        await friend.goto(http_url(server, f"/play/{race}"))
        # before anything is pressed, the page names the race, who made it and its seats
        await friend.locator("#invite").wait_for()
        assert await friend.locator("#invite-title").inner_text() == f"rae invites you to race {race}"
        assert await friend.locator("#invite-race").inner_text() == (
            "terrace · goal terrace · 1 of 2 seats taken · starts when rae presses Start"
        )
        assert "rae" in await friend.locator("#invite-players").inner_text()
        await friend.locator("#token").fill(token)
        await friend.locator("#go").click()
        await friend.get_by_text("You are sol").wait_for()
        # an account's browser is not seated by opening the link: only the Join button seats it
        await friend.locator("#join").wait_for()
        await shot(friend, "play-invited")
        assert server.registry.get(race).race.summary()["players"][1:] == []
        assert await page.locator(".players li").count() == 1
        await friend.locator("#join").click()
        await page.locator(".players li").nth(1).wait_for()
        assert "sol" in await page.locator(".players").inner_text()
        # each knows what the race waits for: the creator's Start
        assert (
            await page.locator("#waits-for").inner_text()
            == "It starts when you press Start (share the link first)."
        )
        assert await friend.locator("#waits-for").inner_text() == "It starts when rae presses Start."
        assert (
            f"Race {race}: terrace · goal terrace · 2/"
            in await friend.locator(".waiting p").first.inner_text()
        )
        await shot(page, "play-private")
        await shot(friend, "play-private-friend")
        await page.locator("#start").click()
        await page.locator(".board").wait_for()
        await friend.locator(".board").wait_for()
        assert await page.locator("#standings-box tbody tr").count() == 2
    finally:
        await friend_context.close()


async def test_louis_plays_by_clicks_the_stock_deals_to_its_heap(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/play?variant=louis&goal=clear"))
    await page.locator("#name").fill("lou")
    await page.locator("#go").click()
    await page.locator("#seats").fill("1")
    await page.locator("#create").click()
    await page.locator("#start").click()
    await page.locator(".board.louis").wait_for()
    played: list[str] = []
    for _ in range(14):
        legal = await _legal(page)
        move = next((m for m in legal if m[-2:-1] in "AK" and not m.startswith("S-")), None)
        move = move or next(m for m in legal if m.startswith("S-"))
        seq = await page.locator("#seq").text_content()
        await _click_move(page, move)
        await _next_seq(page, seq or "")
        played.append(move)
    assert await page.locator("#seq").text_content() == "move 14"
    assert played[0] == "S-a"  # the first card goes to heap a, with one click on the stock
    heaps = await page.locator(".heaps [data-place] .card").count()
    assert heaps == sum(m.startswith("S-") for m in played) - sum(not m.startswith("S-") for m in played)
    await shot(page, "play-louis")


async def test_a_second_tab_takes_the_race_and_the_first_stays_away(housed: RaceServer, page: Any) -> None:
    """Two tabs of one browser share the session: the newer one races, the older one says so and
    stays away (it used to reconnect and take the session back, and so did the other, for ever)."""
    await _start_against_house(page, housed, "tabby")
    second = await page.context.new_page()
    await second.goto(http_url(housed, "/play"))
    await second.get_by_text("Back in the race.").wait_for()
    await page.get_by_text("Reload this page to play here.").wait_for()
    assert await page.locator("#status").text_content() == "opened elsewhere; reload to come back"
    # the second tab keeps the race: it plays a move, and its connection was never taken back
    seq = await second.locator("#seq").text_content()
    await _click_move(second, _choose(await _legal(second)))
    await _next_seq(second, seq or "")
    assert await second.locator("#status").text_content() == "live"
    assert await page.locator("#status").text_content() == "opened elsewhere; reload to come back"
    await shot(page, "play-replaced")
    await second.close()


async def test_the_link_of_a_race_under_way_offers_to_watch_it_and_race_anew(
    server: RaceServer, page: Any
) -> None:
    from .races import running

    race, clients = await running(server, "ann", "bob")
    await clients[0].wait("started")
    await _hello(page, server, "Cleo", f"/play/{race}")
    said = page.locator("#cannot-join")
    await said.wait_for()
    assert (
        await said.inner_text()
        == f"Race {race} is under way and takes nobody new: watch it, or race a new one here."
    )
    assert await said.get_by_role("link", name="watch it").get_attribute("href") == f"/race/{race}"
    assert page.url.endswith("/play")  # home again: Race now is there
    await page.locator("#queue").wait_for()
    await shot(page, "play-under-way")
    for c in clients:
        await c.close()


async def test_keyboard_only_focus_follows_the_race_from_name_to_move_box(
    housed: RaceServer, page: Any
) -> None:
    await page.goto(http_url(housed, "/play"))
    await page.locator("#name").wait_for()
    assert await page.evaluate("document.activeElement.id") == "name"  # typing starts at the name
    await page.keyboard.type("kiki")
    await page.keyboard.press("Enter")
    await page.get_by_text("You are kiki").wait_for()
    assert await page.evaluate("document.activeElement.id") == "queue"  # Race now, one Enter away
    await page.keyboard.press("Enter")
    await page.locator(".board").wait_for()
    await eventually(
        lambda: page.evaluate("document.activeElement.id == 'typed'"), what="focus in the move box"
    )
    await page.keyboard.type("1f")
    await page.keyboard.press("Enter")
    await page.get_by_text("move 1").wait_for()


async def test_friends_on_one_network_race_each_other_unrated_and_the_page_says_so_first(
    make_server: MakeServer, page: Any, browser: Any
) -> None:
    """Two accounts of one address (both browsers here are 127.0.0.1): the friend's join goes
    ahead, both pages say the race is unrated before it starts, and the race screen marks it."""
    server = await make_server(rated_seats_per_address=1)
    tokens = {}
    for name in ("rae", "sol"):
        account = await Client.open(server.url)
        tokens[name] = (await account.request("register", name=name))["token"]
        await account.close()
    await page.goto(http_url(server, "/play"))
    await page.locator("#token").fill(tokens["rae"])
    await page.locator("#go").click()
    await page.get_by_text("You are rae").wait_for()
    await page.locator("#create").click()
    race = (await page.locator("#share").input_value()).rsplit("/", 1)[1]
    assert await page.locator("#unrated").count() == 0  # alone, it may still be rated
    friend_context = await browser.new_context()
    friend = await friend_context.new_page()
    try:
        await friend.goto(http_url(server, f"/play/{race}"))
        await friend.locator("#token").fill(tokens["sol"])
        await friend.locator("#go").click()
        await friend.get_by_text("You are sol").wait_for()
        await friend.locator("#join").click()  # a link seats nobody before the click
        for p in (page, friend):
            await p.locator("#unrated").wait_for()
            assert (await p.locator("#unrated").inner_text()).startswith(
                "Unrated: two of this race's accounts play from one address"
            )
        await shot(page, "play-unrated-waiting")
        await page.locator("#start").click()
        for p in (page, friend):
            await p.locator(".board").wait_for()
            assert await p.locator("#unrated-mark").inner_text() == " · unrated"
        await shot(friend, "play-unrated-racing")
        for p in (page, friend):
            p.once("dialog", lambda d: asyncio.ensure_future(d.accept()))  # "Resign this race?"
            await p.locator("#resign").click()
            await p.wait_for_function("() => document.querySelector('#my-finish, #result')")
        await friend.locator("#rated-note").wait_for()
        assert (await friend.locator("#rated-note").inner_text()).startswith(
            "Not rated: two of its accounts play from one address"
        )
    finally:
        await friend_context.close()
