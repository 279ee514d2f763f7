"""The daily deal over the protocol: one deal a day for everyone, one rated attempt, commitments
a day ahead and the reveal after the day (with a test clock), nothing told early, ghost races,
and two nodes on one Redis agreeing on the deal."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

import terrace
from server.app import RaceServer
from terrace.race.audit import audit
from terrace.race.daily import shift
from terrace.rules.deal import commitment
from terrace.wire.protocol import MSGPACK
from tests.poll import eventually
from tests.server.conftest import FAST, Connect, MakeServer, servers
from tests.server.wire import Client

Message = dict[str, Any]
DAY = 1_795_000_000.0  # 2026-11-18 10:13 UTC: a fixed day for the test clock
SECRET = "11" * 32


class Clock:
    def __init__(self) -> None:
        self.now = DAY

    def __call__(self) -> float:
        return self.now

    def next_day(self) -> None:
        self.now += 86_400


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def server(clock: Clock) -> AsyncIterator[RaceServer]:
    async with servers(FAST) as make:
        srv = await make(daily_secret=SECRET)
        srv.daily.clock = clock
        yield srv


async def registered(url: str, name: str, kind: str = "human") -> Client:
    c = await Client.open(url, MSGPACK)
    answer = await c.request("register", name=name, kind=kind)
    assert answer["type"] == "registered", answer
    c.player = answer["player"]  # type: ignore[attr-defined]
    c.token = answer["token"]  # type: ignore[attr-defined]
    return c


async def play_daily(c: Client, moves: int = 0, pause: float = 0.0, **fields: Any) -> tuple[Message, Message]:
    """Start a daily attempt, play ``moves`` first-legal moves (``pause`` apart), resign; the
    ``started`` and ``finished`` messages."""
    answer = await c.request("daily_play", variant="terrace", **fields)
    assert answer["type"] == "daily_playing", answer
    race = answer["race"]
    started = await c.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    legal = started["legal"]
    for seq in range(1, moves + 1):
        if pause:  # a player's pace, which the ghost of this attempt then replays: the behaviour tested
            await asyncio.sleep(pause)
        moved = await c.request("move", race=race, seq=seq, move=legal[0])
        assert moved["type"] == "moved", moved
        legal = moved["legal"]
        if moved.get("finish"):
            break
    else:
        assert (await c.request("resign", race=race))["type"] == "resigned"
    finished = await c.wait(lambda m: m.get("type") == "finished" and m["race"] == race)
    return started, finished


async def test_two_accounts_play_the_same_deal_at_different_times(server: RaceServer) -> None:
    a, b = await registered(server.url, "Early"), await registered(server.url, "Late")
    daily = await a.request("daily", variant="terrace")
    first, _ = await play_daily(a, moves=2)
    second, _ = await play_daily(b)
    assert first["view"] == second["view"]
    assert first["commitment"] == second["commitment"] == daily["commitment"]
    assert first["race"] != second["race"]


async def test_a_second_attempt_is_refused_and_practice_comes_after_the_first(server: RaceServer) -> None:
    a = await registered(server.url, "Once")
    early = await a.request("daily_play", variant="terrace", practice=True)
    assert early["type"] == "error" and early["code"] == "daily_attempt_first", early
    await play_daily(a)
    again = await a.request("daily_play", variant="terrace")
    assert again["type"] == "error" and again["code"] == "daily_attempted", again
    assert (await a.request("daily", variant="terrace"))["attempt"]["state"] == "finished"
    answer = await a.request("daily_play", variant="terrace", practice=True)
    assert answer["type"] == "daily_playing" and answer["rated"] is False, answer
    await a.wait("started")
    assert (await a.request("resign", race=answer["race"]))["type"] == "resigned"
    rows = (await a.request("daily", variant="terrace"))["board"]
    assert [r["player"]["name"] for r in rows] == ["Once"]  # the practice made no second row


async def test_guests_see_the_board_but_race_only_past_days_deals(
    server: RaceServer, connect: Connect, clock: Clock
) -> None:
    """A guest may play any number of times, and every game of a deal shows its stock to whoever
    turns it: today's deal is for accounts, so that nobody learns it before racing it."""
    guest = await connect(MSGPACK, name="Passing")
    refused = await guest.request("daily_play", variant="terrace")
    assert refused["code"] == "daily_account_needed", refused
    daily = await guest.request("daily", variant="terrace")
    assert daily["board"] == [] and daily["total"] == 0 and "attempt" not in daily
    yesterday = daily["day"]
    clock.next_day()
    for _ in range(2):  # a past day's deal (its seed told already): as often as they like, unrated
        started, _ = await play_daily(guest, day=yesterday)
        assert started["variant"] == "terrace"


async def test_tomorrows_commitment_is_published_today_and_the_reveal_matches(
    server: RaceServer, clock: Clock
) -> None:
    a = await registered(server.url, "Checker")
    today = await a.request("daily", variant="terrace")
    assert today["day"] == "2026-11-18" and "seed" not in today
    started, _ = await play_daily(a, moves=1)
    ahead = await a.request("daily", variant="terrace", day="2026-11-19")
    assert ahead["type"] == "error" and ahead["code"] == "daily_not_yet", ahead
    never = await a.request("daily", variant="terrace", day="2026-11-17")  # no deal was published then
    assert never["type"] == "error" and never["code"] == "no_daily", never
    refused = await a.request("daily_play", variant="terrace", day="2026-11-17", practice=True)
    assert refused["code"] == "no_daily"

    clock.next_day()
    tomorrow = await a.request("daily", variant="terrace")
    assert tomorrow["day"] == "2026-11-19"
    assert tomorrow["commitment"] == today["next_commitment"]  # the seed was fixed a day ahead
    assert tomorrow["attempt"] == {"state": "none"}  # a new day, a new attempt
    past = await a.request("daily", variant="terrace", day="2026-11-18")
    seed = bytes.fromhex(past["seed"])
    assert commitment(seed) == today["commitment"] == past["commitment"]
    assert terrace.new_game("terrace", seed).view() == started["view"]
    assert terrace.replay("terrace", seed, past["solution"]).status == "won"  # proven winnable
    assert [b["player"]["name"] for b in past["best"]] == ["Checker"] and len(
        past["best"][0]["move_list"]
    ) == 1
    record = (await a.request("record", race=started["race"]))["race"]
    assert record["seed"] == past["seed"] and record["solution"] == past["solution"]
    checked = audit(record)
    assert checked.ok, checked.failed
    again, _ = await play_daily(a, day="2026-11-18")  # a past day's deal: practice, as often as wanted
    assert again["view"] == started["view"]
    rows = (await a.request("daily", variant="terrace", day="2026-11-18"))["board"]
    assert [r["player"]["name"] for r in rows] == ["Checker"]  # one row still


async def test_nobody_learns_the_deal_before_the_day_ends(
    server: RaceServer, connect: Connect, clock: Clock
) -> None:
    watcher = await connect(MSGPACK)  # a spectator: no hello
    assert (await watcher.request("subscribe", topic="lobby"))["type"] == "subscribed"
    assert (await watcher.request("subscribe", topic="daily"))["type"] == "subscribed"
    other = await registered(server.url, "Other")
    a = await registered(server.url, "Secretive")
    answer = await a.request("daily_play", variant="terrace")
    race = answer["race"]
    started = await a.wait("started")
    assert (await a.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
    for asker in (watcher, other):  # while the attempt runs: no race, no standings, no row
        assert (await asker.request("races"))["races"] == []
        refused = await asker.request("spectate", race=race)
        assert refused["type"] == "error" and refused["code"] == "no_race", refused
        assert (await asker.request("record", race=race))["code"] == "no_race"
        assert (await asker.request("daily", variant="terrace"))["board"] == []
    assert (await a.request("resign", race=race))["type"] == "resigned"
    finished = await a.wait("finished")
    assert "seed" not in finished  # not even to its player, before the day ends
    own = (await a.request("record", race=race))["race"]
    assert "seed" not in own and "solution" not in own and own["results"][0]["move_list"]

    pushed = await watcher.wait("daily_board")
    for rows in (pushed["board"], (await other.request("daily", variant="terrace"))["board"]):
        assert [set(r) for r in rows] == [{"rank", "player", "time", "score", "goal"}]
        assert rows[0]["score"] == 1 and rows[0]["time"] is None
    assert (await other.request("record", race=race))["code"] == "no_race"
    await watcher.caught_up()  # anything else the watcher was sent is here by now
    told = [m for m in watcher.inbox if m.get("race") == race or race in str(m)]
    assert told == [] and not [m for m in watcher.inbox if m.get("type") in ("race", "standings")]

    clock.next_day()  # the day is over: the record is everyone's
    record = (await other.request("record", race=race))["race"]
    assert commitment(bytes.fromhex(record["seed"])) == started["commitment"]


async def test_a_ghost_race_shows_the_earlier_attempt_at_its_recorded_pace(server: RaceServer) -> None:
    a, b = await registered(server.url, "Pacer"), await registered(server.url, "Chaser")
    await play_daily(a, moves=3, pause=0.3)
    record = await a.request("record", race=(await a.request("daily", variant="terrace"))["attempt"]["race"])
    times = record["race"]["move_times"]
    assert len(times) == 3 and times[2] >= 600

    answer = await b.request("daily_play", variant="terrace", ghosts=3)
    assert answer["ghosts"] == 1
    await b.wait("started")
    zero = time.time() * 1000
    seen: dict[int, float] = {}  # ghost moves -> when B first saw that many, ms after its first view
    while True:
        standings = await b.wait("standings", timeout=10)
        ghost = [r for r in standings["rows"] if r["player"].get("ghost")]
        assert len(ghost) == 1 and ghost[0]["player"]["name"] == "Pacer"
        assert set(ghost[0]) == {
            "player",
            "score",
            "terrace_left",
            "moves",
            "finished",
            "finish",
            "time",
            "place",
            "connected",
            "live",  # the place now: a count too, never a card
        }
        seen.setdefault(ghost[0]["moves"], time.time() * 1000 - zero)
        if ghost[0]["finished"]:
            break
    assert {1, 2, 3} <= set(seen), seen  # it advanced move by move
    for n in (1, 2, 3):  # never ahead of the pace it was played at
        assert seen[n] >= times[n - 1] - 100, (seen, times)
    # no card of the ghost's reaches the chaser: its own first view is the only view it was sent
    assert [m["type"] for m in b.inbox if "view" in m or "legal" in m or "move_list" in m] == []
    assert (await b.request("resign", race=answer["race"]))["type"] == "resigned"
    final = await b.wait(lambda m: m.get("type") == "standings" and m["state"] == "finished")
    assert sorted(r["place"] for r in final["rows"]) in ([1, 2], [1, 1])


async def test_bad_daily_requests_are_refused_with_a_code(server: RaceServer, connect: Connect) -> None:
    guest = await connect(MSGPACK)
    bad = await guest.request("daily", variant="terrace", day="18-11-2026")
    assert bad["type"] == "error" and bad["code"] == "bad_field" and bad["field"] == "day", bad
    for day in ("yesterday", "2026-1-1"):  # too short, too: the message says the form either way
        worded = await guest.request("daily", variant="terrace", day=day)
        assert worded["message"] == "Field 'day' must be a day as YYYY-MM-DD.", worded
    nobody = await guest.request("daily_play", variant="terrace")
    assert nobody["code"] == "hello_first"
    a = await registered(server.url, "Busy")
    answer = await a.request("daily_play", variant="terrace")
    twice = await a.request("daily_play", variant="terrace", practice=True)
    assert twice["type"] == "error" and twice["code"] == "already_in_race", twice
    await a.wait("started")
    assert (await a.request("resign", race=answer["race"]))["type"] == "resigned"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_two_nodes_on_one_redis_deal_the_same_day_and_share_one_attempt(
    redis_url: str, make_server: MakeServer
) -> None:
    nodes: list[RaceServer] = []
    for _ in range(2):  # no secret set: the first node makes one and keeps it in the store
        port = _free_port()
        nodes.append(
            await make_server(port=port, public_url=f"ws://127.0.0.1:{port}/ws", redis_url=redis_url)
        )
    a, b = await registered(nodes[0].url, "NodeOne"), await registered(nodes[1].url, "NodeTwo")
    watcher = await Client.open(nodes[1].url, MSGPACK)  # the board of the other node's attempts, live
    assert (await watcher.request("subscribe", topic="daily"))["type"] == "subscribed"
    daily_a = await a.request("daily", variant="terrace")
    daily_b = await b.request("daily", variant="terrace")
    assert daily_a["commitment"] == daily_b["commitment"]
    assert daily_a["next_commitment"] == daily_b["next_commitment"]
    first, _ = await play_daily(a)
    pushed = await watcher.wait("daily_board", timeout=10)
    assert [r["player"]["name"] for r in pushed["board"]] == ["NodeOne"]
    second, _ = await play_daily(b)
    assert first["view"] == second["view"]
    a_elsewhere = await Client.open(nodes[1].url, MSGPACK)  # the first account, on the other node
    assert (await a_elsewhere.request("hello", token=a.token))["type"] == "welcome"  # type: ignore[attr-defined]
    again = await a_elsewhere.request("daily_play", variant="terrace")
    assert again["type"] == "error" and again["code"] == "daily_attempted", again
    rows = (await b.request("daily", variant="terrace"))["board"]
    assert sorted(r["player"]["name"] for r in rows) == ["NodeOne", "NodeTwo"]


async def test_daily_prepare_draws_today_and_tomorrow_ahead_and_a_draw_under_way_never_holds_shutdown(
    make_server: MakeServer,
) -> None:
    srv = await make_server(daily_secret=SECRET, daily_prepare=600.0)
    today = srv.daily.today()

    async def drawn() -> bool:
        ahead = [await srv.store.daily_get(f"deal:terrace:{d}") for d in (today, shift(today, 1))]
        return None not in ahead

    await eventually(drawn, timeout=60)
    kept = await srv.store.daily_get(f"deal:terrace:{today}")
    assert (
        kept is not None
        and terrace.replay("terrace", bytes.fromhex(kept["seed"]), kept["solution"]).status == "won"
    )
    # the other variants are being drawn now (signora takes minutes): stopping does not wait for them
    await asyncio.wait_for(srv.stop(), timeout=30)


async def test_ghosts_are_the_attempts_nearest_the_players_rating_when_there_are_more(
    server: RaceServer,
) -> None:
    ratings = {"Strong": (40.0, 1.0), "Close": (23.0, 1.0), "Weak": (10.0, 1.0), "Chooser": (25.0, 1.0)}
    clients = {name: await registered(server.url, name) for name in ratings}
    await server.store.set_ratings(
        "humans",
        "terrace",
        {c.player["id"]: ratings[n] for n, c in clients.items()},  # type: ignore[attr-defined]
    )
    for name in ("Strong", "Close", "Weak"):
        await play_daily(clients[name])
    chooser = clients["Chooser"]
    answer = await chooser.request("daily_play", variant="terrace", ghosts=1)
    assert answer["ghosts"] == 1
    standings = await chooser.wait("standings")
    assert [r["player"]["name"] for r in standings["rows"] if r["player"].get("ghost")] == ["Close"]
    await chooser.request("resign", race=answer["race"])


async def test_practice_waits_for_an_attempt_under_way_on_another_node(
    redis_url: str, make_server: MakeServer
) -> None:
    nodes = []
    for _ in range(2):
        port = _free_port()
        nodes.append(
            await make_server(port=port, public_url=f"ws://127.0.0.1:{port}/ws", redis_url=redis_url)
        )
    a = await registered(nodes[0].url, "Busy")
    answer = await a.request("daily_play", variant="terrace")
    await a.wait("started")
    elsewhere = await Client.open(nodes[1].url, MSGPACK)
    assert (await elsewhere.request("hello", token=a.token))["type"] == "welcome"  # type: ignore[attr-defined]
    practice = await elsewhere.request("daily_play", variant="terrace", practice=True)
    assert practice["type"] == "error" and practice["code"] == "daily_unfinished", practice
    rated = await elsewhere.request("daily_play", variant="terrace")
    assert rated["code"] == "daily_attempted"
    assert (await elsewhere.request("daily", variant="terrace"))["attempt"] == {
        "state": "playing",
        "race": answer["race"],
    }
