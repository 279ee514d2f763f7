"""The race page in a real browser: live standings without cards, then the race move by move,
verified in the page (WebCrypto SHA-256, DEAL-V1 in JavaScript), and a tampered record caught."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from typing import Any

import pytest

from bots.bot import load_bot
from bots.sdk import Racer
from server.app import RaceServer
from tests.poll import eventually

from .conftest import http_url, shot
from .races import finish, play, running

pytestmark = pytest.mark.asyncio(loop_scope="module")

CARD = re.compile(r'"(?:10|[A2-9TJQK])[cdhs]"')


async def _record(server: RaceServer, race: str) -> dict[str, Any]:
    return await eventually(lambda: server.archive.record(race), what="the record")


async def test_a_spectator_never_receives_a_card_before_finished(server: RaceServer, page: Any) -> None:
    race, clients = await running(server, "ann", "ben")
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    await play(clients[0], race, 5)
    await page.goto(http_url(server, f"/race/{race}"))
    await page.locator("table.standings").wait_for()
    await play(clients[1], race, 12)
    await page.get_by_text("12", exact=True).first.wait_for()  # ben's moves, live
    await shot(page, "race-live")
    await finish(clients, race)
    await page.locator("#verdict").wait_for()
    ends = [i for i, f in enumerate(frames) if json.loads(f).get("type") == "finished"]
    assert ends, "the page never heard the end"
    before = frames[: ends[0]]
    assert len(before) >= 3  # spectating, and standings pushes as ben moved
    assert [f for f in before if CARD.search(f)] == []
    assert CARD.search(frames[ends[0]]) is None  # `finished` has the seed, not cards: the record does
    assert any(CARD.search(f) for f in frames[ends[0] :])  # and the record came after, with moves


async def test_the_race_page_steps_through_a_finished_race_and_says_verified(
    server: RaceServer, page: Any
) -> None:
    race, clients = await running(server, "cat", "dan")
    await play(clients[0], race, 30)
    await play(clients[1], race, 20)
    await finish(clients, race)
    record = await _record(server, race)
    await page.goto(http_url(server, f"/race/{race}"))
    verdict = page.locator("#verdict")
    await verdict.wait_for()
    assert await verdict.text_content() == "✓ deal verified in this browser"
    checks = await page.locator("#verify li").all_text_contents()
    assert any("WebCrypto SHA-256" in c for c in checks)
    assert any("DEAL-V1 deals exactly the recorded first view" in c for c in checks)
    assert checks[-1].startswith("✓ places: every place follows")
    # an ordinary race: no claim of a winnable deal, no winning line to check
    assert await page.locator("#winnable").count() == 0
    assert [c for c in checks if "solution" in c] == []
    # step 0 is the deal both players saw: its terrace is the recorded first view's
    sides = page.locator(".side")
    assert await sides.count() == 2
    left = sides.nth(0)
    terrace = await left.locator('[data-place="T"] .card').evaluate_all("cs => cs.map(c => c.dataset.card)")
    assert terrace == record["first_view"]["terrace"]
    await shot(page, "race-replay-start")
    # the keys step forward: move 1 is the first player's base choice
    first = record["results"][0]
    await page.keyboard.press("ArrowRight")
    assert (
        await page.locator("#counter").text_content()
        == f"move 1 of {max(r['moves'] for r in record['results'])}"
    )
    assert f"1/{first['moves']}: {first['move_list'][0]}" in (
        await left.locator(".lastmove").text_content() or ""
    )
    assert await left.locator('[data-place="F1"] .card').count() == 1
    # the slider jumps to the end: each side shows its player's final score
    await page.locator("#step").fill(str(max(r["moves"] for r in record["results"])))
    for i, row in enumerate(record["results"][:2]):
        facts = await sides.nth(i).locator(".facts").text_content() or ""
        assert f"{row['score']} home" in facts and f"terrace {row['terrace_left']} left" in facts
    await page.keyboard.press("Home")
    assert (
        await page.locator("#counter").text_content()
        == f"move 0 of {max(r['moves'] for r in record['results'])}"
    )
    await page.keyboard.press("End")
    await shot(page, "race-replay-end")
    await page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "race-replay-phone")


async def test_a_tampered_record_makes_the_page_say_mismatch(server: RaceServer, page: Any) -> None:
    race, clients = await running(server, "eve", "fay")
    await play(clients[0], race, 10)
    await finish(clients, race)
    record = copy.deepcopy(await _record(server, race))
    record["id"] = "tampered1"
    record["first_view"]["terrace"][-1] = "Ks" if record["first_view"]["terrace"][-1] != "Ks" else "Kd"
    record["results"][0]["score"] += 1
    record["results"][1]["place"] = 1  # and the loser claims a share of first place
    await server.store.save_record(record)
    await page.goto(http_url(server, "/race/tampered1"))
    verdict = page.locator("#verdict")
    await verdict.wait_for()
    assert await verdict.text_content() == "✗ mismatch: this record does not check out"
    bad = await page.locator("#verify li.bad").all_text_contents()
    assert bad == [
        "✗ first view: the deal differs from the recorded first view in terrace",
        f"✗ eve: the replay ends with {record['results'][0]['score'] - 1} home, "
        f"{record['results'][0]['terrace_left']} terrace left, {record['results'][0]['moves']} moves; "
        f"the record says {record['results'][0]['score']}, {record['results'][0]['terrace_left']}, "
        f"{record['results'][0]['moves']}",
        f"✗ places: {record['results'][1]['player']['name']} is placed 1, the rule says 2",
    ]
    assert any("commitment" in c for c in await page.locator("#verify li.ok").all_text_contents())
    await shot(page, "race-tampered")


@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora", "louis"])
async def test_whole_games_of_every_variant_replay_and_verify_in_the_page(
    server: RaceServer, page: Any, variant: str
) -> None:
    """Two greedy bots play whole games; the page's own replay reaches every recorded result."""
    racers = [Racer(load_bot("greedy"), server.url, name=f"{variant[:5]}-{i}") for i in (1, 2)]
    try:
        results = await asyncio.gather(*(r.race(variant=variant) for r in racers))
    finally:
        for r in racers:
            await r.close()
    race = results[0].race
    record = await _record(server, race)
    assert min(r["moves"] for r in record["results"]) > 30  # whole games, not a few moves
    await page.goto(http_url(server, f"/race/{race}"))
    await page.locator("#verdict").wait_for()
    assert await page.locator("#verdict").text_content() == "✓ deal verified in this browser", (
        await page.locator("#verify li.bad").all_text_contents()
    )
    await page.keyboard.press("End")
    facts = await page.locator(".side .facts").first.text_content() or ""
    assert f"{record['results'][0]['score']} home" in facts
    await shot(page, f"race-{variant}-end")
