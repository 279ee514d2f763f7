"""PROTOCOL.md against the server: each test quotes what the reference says and checks the server does it.

These are the points an independent client, written from PROTOCOL.md alone, ran into.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

import terrace
from server.app import RaceServer
from terrace.rules.deal import commitment
from terrace.wire.protocol import JSON as JSON_SUBPROTOCOL
from terrace.wire.protocol import MSGPACK
from tests.poll import eventually
from tests.server.races.test_races import open_race

from .conftest import Connect, MakeServer
from .wire import Client

DOC = (Path(__file__).resolve().parents[2] / "PROTOCOL.md").read_text()


def says(text: str) -> None:
    """The reference says ``text`` (whitespace-insensitive)."""
    assert " ".join(text.split()) in " ".join(DOC.split()), text


def _json_after(marker: str) -> dict[str, object]:
    block = DOC.split(marker, 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    block = block.replace("<player>, ...", "").replace("<player>", "{}")
    return json.loads(block)  # type: ignore[no-any-return]


def test_the_started_example_is_the_deal_its_own_seed_makes() -> None:
    says("This example is a real deal: its seed (revealed in the `finished` example below)")
    started = _json_after("### Countdown and `started` (push)")
    section = DOC.split("### `finished` (push)", 1)[1]
    seed = bytes.fromhex(re.search(r'"seed": "([0-9a-f]{64})"', section).group(1))  # type: ignore[union-attr]
    assert started["commitment"] == commitment(seed)
    assert started["view"] == terrace.new_game("terrace", seed).view()


async def test_seq_0_is_bad_seq_and_a_negative_seq_is_bad_field(connect: Connect) -> None:
    says("(`seq` 0 is never a move: it is `bad_seq`; a negative `seq` is `bad_field`.)")
    race, (a,), _ = await open_race(connect, [MSGPACK])
    zero = await a.request("move", race=race, seq=0, move="1-F1")
    assert (zero["code"], zero["expected"], zero["seq"]) == ("bad_seq", 1, 0)
    negative = await a.request("move", race=race, seq=-1, move="1-F1")
    assert (negative["code"], negative["field"]) == ("bad_field", "seq")


async def test_retry_after_is_a_number_of_seconds_with_decimals(make_server: MakeServer) -> None:
    says("`retry_after` (seconds, a number with up to three decimals, e.g. `0.005`; never 0)")
    server = await make_server(rate=200, burst=1)
    client = await Client.open(server.url)
    for i in (1, 2):
        await client.send({"type": "ping", "id": i})
    limited = await client.wait(lambda m: m.get("re") == 2)
    assert limited["code"] == "rate_limited"
    assert isinstance(limited["retry_after"], float) and 0 < limited["retry_after"] <= 0.005
    assert round(limited["retry_after"], 3) == limited["retry_after"]
    await client.close()


async def test_twenty_refusals_in_a_row_are_answered_and_the_21st_is_answered_and_closes(
    server: RaceServer,
) -> None:
    says(
        "| refused messages in a row (bad or `rate_limited`) | 20 | each is answered; the 21st in a row is"
        " answered too and then closes with 1008 (an accepted message starts the count again) |"
    )
    assert server.config.max_bad_messages == 20
    client = await Client.open(server.url)
    for _ in range(20):
        await client.send_raw(b"\xc1")
    assert [(await client.wait("error"))["code"] for _ in range(20)] == ["bad_message"] * 20
    assert (await client.request("ping"))["type"] == "pong"  # still open; and the count starts again
    for _ in range(21):
        await client.send_raw(b"\xc1")
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1008
    assert len(client.take_all("error")) == 21


async def test_a_refusal_made_while_reading_may_overtake_an_earlier_answer(
    make_server: MakeServer,
) -> None:
    says(
        "a request refused while it is being read (`bad_message`, `unknown_type`, `bad_field`, `rate_limited`, `busy`) is answered at once"
    )
    says("Match answers to requests by `re`, never by position.")
    from tests.terrace.positions import SLOW_MOVE, slow_search_position

    server = await make_server()
    player = await Client.open(server.url)
    await player.request("hello", name="slowpoke")
    race_id = (await player.request("create", variant="signora", seats=1))["race"]["id"]
    await player.request("start", race=race_id)
    await player.wait("started")
    next(iter(server.registry.drivers[race_id].race.seats.values())).game = slow_search_position()
    await player.send({"type": "move", "id": 1, "race": race_id, "seq": 1, "move": SLOW_MOVE})
    await eventually(lambda: server.registry.searches._running, what="the slow move's search")
    await player.send({"type": "nonsense", "id": 2})
    refused = await player.wait(lambda m: m.get("re") == 2)
    moved = await player.wait(lambda m: m.get("re") == 1, timeout=10)
    assert refused["code"] == "unknown_type" and moved["type"] == "moved"
    order = [m.get("re") for m in (refused, moved)]
    assert order == [2, 1]


async def test_coming_back_during_the_countdown_gets_the_race_summary_then_started(
    make_server: MakeServer,
) -> None:
    says(
        "If you come back while the race is still counting down, you get a `race` push with its summary instead"
    )
    server = await make_server(countdown=1.0)
    alice = await Client.open(server.url)
    welcome = await alice.request("hello", name="alice")
    race = (await alice.request("create", variant="terrace", seats=1))["race"]["id"]
    await alice.request("start", race=race)
    await alice.close()
    again = await Client.open(server.url)
    await again.request("hello", session=welcome["session"])
    summary = await again.wait("race")
    assert (summary["race"]["id"], summary["race"]["state"]) == (race, "countdown")
    assert "starts_at" in summary["race"]
    started = await again.wait("started", timeout=10)
    assert started["race"] == race and started["resumed"] is False
    await again.close()


async def test_spectating_a_race_that_is_over_is_no_race(connect: Connect) -> None:
    says("Spectating a race that is over (finished or cancelled) is `no_race`")
    race, (a,), _ = await open_race(connect, [MSGPACK])
    await a.request("resign", race=race)
    await a.wait("finished")
    watcher = await connect(None)
    answer = await watcher.request("spectate", race=race)
    assert (answer["code"], answer["race"]) == ("no_race", race)


async def test_tied_places_share_and_the_next_place_skips(connect: Connect) -> None:
    says("two players tied for second make the next one fourth (1, 2, 2, 4)")
    from terrace.race import Standing, places

    tied = Standing.of(goal_time=None, score=5, terrace_left=3, last_home=900)
    assert places(
        [
            Standing.of(goal_time=10, score=0, terrace_left=0, last_home=None),
            tied,
            tied,
            Standing.of(goal_time=None, score=1, terrace_left=9, last_home=5),
        ]
    ) == [1, 2, 2, 4]
    # and on the wire: three players who never put a card home share second place
    race, (a, b, c, d), started = await open_race(connect, [MSGPACK] * 4)
    await a.request("move", race=race, seq=1, move=started[0]["legal"][0])  # the base card goes home
    for p in (b, c, d, a):
        await p.request("resign", race=race)
    finished = await a.wait("finished")
    assert [r["place"] for r in finished["results"]] == [1, 2, 2, 2]


def test_the_base_card_goes_to_the_lowest_empty_foundation_and_the_deal_order_is_as_written() -> None:
    says("then card 15 goes to the pile just emptied and cards 16..20 to piles 5..9, in that order")
    says("A card of the base rank always goes to the lowest-numbered empty foundation")
    from terrace.rules.cards import NAME
    from terrace.rules.deal import shuffle

    checked = 0
    for deal in range(1, 200):
        deck = [NAME[c] for c in shuffle(range(104), deal)]
        g = terrace.new_game("terrace", deal=deal)
        g.play("3-F1")
        view = g.view()
        assert view["piles"]["3"] == [deck[15]]
        assert [view["piles"][str(i)] for i in range(5, 10)] == [[card] for card in deck[16:21]]
        empty = tuple(f"-F{i}" for i in range(2, 9))
        homes = [m for m in g.legal_moves() if m.endswith(empty)]
        assert all(m.endswith("-F2") for m in homes), homes
        checked += bool(homes)
    assert checked >= 10  # deals where a second base card could start a foundation


async def test_a_text_frame_that_is_not_utf8_closes_with_1007(server: RaceServer) -> None:
    says("1007 (a text frame that is not UTF-8)")
    import websockets

    async with websockets.connect(server.url, subprotocols=[JSON_SUBPROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(b'{"type": "ping", "id": 1, "x": "\xff"}', text=True)
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 1007
