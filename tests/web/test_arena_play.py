"""An arena raced from the browser: Join on its page leads to the play page, which races it; between
races it says the last race's place and points and where you stand, as the standings do; the list
counts the players the standings show; Leave on the arena's page."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from server.app import RaceServer
from terrace.race.arena import make_spec

from .conftest import http_url, shot
from .races import guest

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_a_person_joins_an_arena_races_and_reads_the_last_race_between_races(
    server: RaceServer, page: Any
) -> None:
    start = int(time.time() * 1000)
    await server.arenas.create(make_spec("people", "terrace", "humans", start, 5, name="people cup"))
    await page.goto(http_url(server, "/arena/people"))
    await page.locator("#arena-join").click()
    await page.wait_for_url("**/play?arena=people")
    await page.locator("#name").fill("ida")
    await page.locator("#go").click()
    me = page.locator("#arena-me")
    await me.wait_for()
    assert await me.inner_text() == "You: 0 points from 0 races · rank 1 of 1."
    await shot(page, "arena-play-waiting")

    opponent = await guest(server, "opp")
    assert (await opponent.request("arena_join", arena="people"))["type"] == "arena_joined"
    started = await opponent.wait("started")
    assert (await opponent.request("resign", race=started["race"]))["type"] == "resigned"
    assert (await opponent.request("arena_leave", arena="people"))["type"] == "arena_left"  # one race only

    await page.locator('#legal button[data-move="1-F1"]').click()  # a card home: ida places first
    await page.get_by_text("move 1", exact=True).wait_for()
    page.once("dialog", lambda d: asyncio.ensure_future(d.accept()))
    await page.locator("#resign").click()
    last = page.locator("#arena-last")
    await last.wait_for()
    assert await last.inner_text() == "Last race: 1st place, +1 point."
    await page.get_by_text("You: 1 point from 1 race").wait_for()  # the push after the race counted
    details = (await server.arenas.load("people")).details(int(time.time() * 1000))
    row = next(r for r in details["standings"] if r["player"]["name"] == "ida")
    assert (row["points"], row["races"], row["rank"]) == (1, 1, 1)
    assert await me.inner_text() == "You: 1 point from 1 race · rank 1 of 2."
    assert await page.locator("#again").count() == 0  # the arena pairs the next race: no Race again
    await shot(page, "arena-play-between")

    # the list counts whoever is on the standings: opp left, but raced
    listing = await page.context.new_page()
    await listing.goto(http_url(server, "/arena"))
    players = listing.locator('tr[data-arena="people"] td.num').first
    await players.wait_for()
    assert await players.inner_text() == "2" == str(len(details["standings"]))
    await listing.goto(http_url(server, "/arena/people"))  # this browser is in it: Leave is offered here
    await listing.locator("#arena-leave").click()
    await listing.get_by_text("You left the arena").wait_for()
    await listing.locator("#arena-join").wait_for()
    assert (await server.arenas.load("people")).summary(int(time.time() * 1000))["joined"] == 0
    assert "2 players (0 joined)" in await listing.locator("#arena-meta").inner_text()
    await listing.close()
    await opponent.close()
