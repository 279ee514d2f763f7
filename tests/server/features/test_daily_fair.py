"""Fair play on the daily deal and challenges: a deal told only when none of its attempts can
still run; one rated attempt per account on any number of nodes, whatever path; attempts that
outlive their node; private attempts nobody else learns of, even from the metrics."""

from __future__ import annotations

import asyncio
import signal
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.app import RaceServer
from server.races import nodes
from terrace.race.daily import day_end
from terrace.wire.protocol import MSGPACK
from tests.poll import eventually
from tests.server.conftest import FAST, MakeServer, servers
from tests.server.features.test_daily import SECRET, Clock, registered
from tests.server.races.test_durability import Launch, launch
from tests.server.races.test_nodes import _free_port
from tests.server.wire import Client

__all__ = ["launch"]  # a fixture

Message = dict[str, Any]
BEFORE_MIDNIGHT = day_end("2026-11-18") - 10  # ten seconds before the day ends


@pytest.fixture
def clock() -> Clock:
    clock = Clock()
    clock.now = BEFORE_MIDNIGHT
    return clock


@pytest.fixture
async def server(clock: Clock) -> AsyncIterator[RaceServer]:
    async with servers(FAST) as make:
        srv = await make(daily_secret=SECRET)
        srv.daily.clock = clock
        yield srv


async def _start(c: Client, **fields: Any) -> tuple[str, Message]:
    answer = await c.request("daily_play", variant="terrace", **fields)
    assert answer["type"] == "daily_playing", answer
    started = await c.wait(lambda m: m.get("type") == "started" and m["race"] == answer["race"])
    return str(answer["race"]), started


async def test_an_attempt_over_midnight_keeps_its_days_deal_secret_until_it_is_over(
    server: RaceServer, clock: Clock
) -> None:
    late = await registered(server.url, "Late")
    scout = await registered(server.url, "Scout")
    race, started = await _start(late)
    assert (await late.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
    clock.now = day_end("2026-11-18") + 3_600  # an hour into the next day: the attempt still runs
    for asker in (scout, late):
        day = await asker.request("daily", variant="terrace", day="2026-11-18")
        assert "seed" not in day and "solution" not in day and "best" not in day, day
        assert day["reveals_at"] > clock.now * 1000  # at the latest end of the attempt under way
        refused = await asker.request("daily_play", variant="terrace", day="2026-11-18", practice=True)
        assert refused["type"] == "error" and refused["code"] == "not_revealed", refused
        assert refused["reveals_at"] == day["reveals_at"]
    assert (await late.request("resign", race=race))["type"] == "resigned"
    finished = await late.wait("finished")
    assert "seed" not in finished

    async def told() -> Message | None:
        day = await scout.request("daily", variant="terrace", day="2026-11-18")
        return day if "seed" in day else None

    day = await eventually(told, what="the deal told once its last attempt is over")
    assert "reveals_at" not in day and day["solution"]
    record = (await scout.request("record", race=race))["race"]
    assert record["seed"] == day["seed"]


async def test_a_day_just_over_is_told_only_after_a_margin_for_attempts_still_starting(
    server: RaceServer, clock: Clock
) -> None:
    a = await registered(server.url, "Early")
    assert (await a.request("daily", variant="terrace"))["day"] == "2026-11-18"  # the day's deal, drawn
    clock.now = day_end("2026-11-18") + 5  # five seconds into the next day, nobody racing
    day = await a.request("daily", variant="terrace", day="2026-11-18")
    assert "seed" not in day and day["reveals_at"] == int(day_end("2026-11-18") * 1000) + 60_000
    clock.now = day_end("2026-11-18") + 61
    assert "seed" in await a.request("daily", variant="terrace", day="2026-11-18")


async def test_ones_own_attempt_is_analysed_once_its_deal_is_told(server: RaceServer, clock: Clock) -> None:
    a = await registered(server.url, "Curious")
    race, _ = await _start(a)
    assert (await a.request("resign", race=race))["type"] == "resigned"
    await a.wait("finished")
    early = await a.request("analysis", race=race)
    assert early["type"] == "error" and early["code"] == "not_revealed", early
    clock.now = day_end("2026-11-18") + 120
    later = await a.request("analysis", race=race)
    assert later["type"] in ("analysis", "analysing"), later


async def test_nobody_else_learns_an_attempt_exists_not_even_from_the_metrics(
    server: RaceServer,
) -> None:
    a = await registered(server.url, "Private")
    other = await registered(server.url, "Nosy")
    url = server.url.replace("ws://", "http://").replace("/ws", "/metrics")

    def moves_counted() -> float:
        text = urllib.request.urlopen(url).read().decode()
        line = next(x for x in text.splitlines() if x.startswith("terrace_move_seconds_count"))
        return float(line.split()[-1])

    before = await asyncio.to_thread(moves_counted)
    race, started = await _start(a)
    legal = started["legal"]
    for seq in (1, 2, 3):
        moved = await a.request("move", race=race, seq=seq, move=legal[0])
        assert moved["type"] == "moved"
        legal = moved["legal"]
    for request in ("join", "spectate", "record", "leave", "start"):
        refused = await other.request(request, race=race)
        assert refused["type"] == "error" and refused["code"] == "no_race", (request, refused)
    assert (await other.request("move", race=race, seq=1, move=legal[0]))["code"] == "no_race"
    assert await asyncio.to_thread(moves_counted) == before  # not while it runs
    assert (await a.request("resign", race=race))["type"] == "resigned"
    await a.wait("finished")

    async def counted() -> bool:
        return await asyncio.to_thread(moves_counted) == before + 3

    await eventually(counted, what="its moves counted once it is over")


async def test_two_nodes_never_grant_two_rated_attempts_after_a_cancelled_countdown(
    redis_url: str, make_server: MakeServer
) -> None:
    node_settings = {"redis_url": redis_url, "daily_secret": SECRET, "countdown": 5.0}
    nodes_ = []
    for _ in range(2):
        port = _free_port()
        nodes_.append(await make_server(port=port, public_url=f"ws://127.0.0.1:{port}/ws", **node_settings))
    for attempt in range(10):
        here = await registered(nodes_[0].url, f"Twice{attempt}")
        there = await Client.open(nodes_[1].url, MSGPACK)
        assert (await there.request("hello", token=here.token))["type"] == "welcome"  # type: ignore[attr-defined]
        answer = await here.request("daily_play", variant="terrace")
        assert answer["type"] == "daily_playing" and answer["rated"], answer
        assert (await here.request("leave", race=answer["race"]))["type"] == "left"  # in its countdown

        async def given_back(c: Client = here) -> bool:
            return bool((await c.request("daily", variant="terrace"))["attempt"] == {"state": "none"})

        await eventually(given_back, what="the cancelled attempt given back")
        both = await asyncio.gather(
            here.request("daily_play", variant="terrace"), there.request("daily_play", variant="terrace")
        )
        granted = [b for b in both if b["type"] == "daily_playing"]
        assert len(granted) == 1 and granted[0]["rated"], both
        refused = [b for b in both if b["type"] == "error"]
        assert [r["code"] for r in refused] == ["daily_attempted"], both
        await here.close()
        await there.close()


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
async def test_a_daily_attempt_outlives_its_node(
    how: signal.Signals, launch: Launch, make_server: MakeServer, redis_url: str
) -> None:
    port = _free_port()
    proc, a_url = launch(
        "--port", str(port), "--public-url", f"ws://127.0.0.1:{port}/ws", "--daily-secret", SECRET
    )
    b_port = _free_port()
    b = await make_server(
        port=b_port, public_url=f"ws://127.0.0.1:{b_port}/ws", redis_url=redis_url, daily_secret=SECRET
    )
    player = await registered(a_url, "Survivor")
    race, started = await _start(player)
    moved = await player.request("move", race=race, seq=1, move=started["legal"][0])
    assert moved["type"] == "moved"
    proc.send_signal(how)
    await asyncio.to_thread(proc.wait, 10)

    async def adopted() -> bool:
        return race in b.registry.drivers

    await eventually(adopted, timeout=nodes.LEASE_TTL + 10, what="the attempt taken on by the other node")
    again = await Client.open(b.url, MSGPACK)
    assert (await again.request("hello", token=player.token))["type"] == "welcome"  # type: ignore[attr-defined]
    resumed = await again.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    assert resumed["resumed"] is True and resumed["seq"] == 1 and resumed["view"] == moved["view"]
    assert resumed["clock"]["started_at"] == started["clock"]["started_at"]  # the clock never stopped
    last = await again.request("move", race=race, seq=2, move=resumed["legal"][0])
    assert last["type"] == "moved"
    assert (await again.request("resign", race=race))["type"] == "resigned"
    finished = await again.wait("finished")
    assert "seed" not in finished

    async def on_the_board() -> Message | None:
        day = await again.request("daily", variant="terrace")
        return day if day["board"] and day["attempt"]["state"] == "finished" else None

    day = await eventually(on_the_board, what="the attempt on the day's board")
    assert [r["player"]["name"] for r in day["board"]] == ["Survivor"]
    assert day["board"][0]["score"] == last["view"]["score"]  # both nodes' moves counted
    refused = await again.request("daily_play", variant="terrace")
    assert refused["code"] == "daily_attempted"  # still the one rated attempt of the day
    await player.close()
    await again.close()


async def test_a_challenge_is_told_only_once_no_attempt_of_it_runs(server: RaceServer) -> None:
    maker = await registered(server.url, "Maker")
    racer = await registered(server.url, "Racer")
    late = await registered(server.url, "Latecomer")
    made = await maker.request("challenge_create", variant="terrace")
    assert made["type"] == "challenge_playing", made
    cid = made["challenge"]
    await maker.wait("started")
    assert (await maker.request("resign", race=made["race"]))["type"] == "resigned"
    await maker.wait("finished")
    playing = await racer.request("challenge_play", challenge=cid)
    assert playing["type"] == "challenge_playing"
    await racer.wait("started")
    asked = await maker.request("challenge_reveal", challenge=cid)
    assert asked["type"] == "challenge" and asked["revealed"] is False and "seed" not in asked, asked
    assert asked["reveals_at"] > 0
    closed = await late.request("challenge_play", challenge=cid)
    assert closed["type"] == "error" and closed["code"] == "challenge_closing", closed
    assert (await racer.request("resign", race=playing["race"]))["type"] == "resigned"
    await racer.wait("finished")

    async def told() -> Message | None:
        answer = await late.request("challenge", challenge=cid)
        return answer if answer["revealed"] else None

    answer = await eventually(told, what="the challenge told once its last attempt is over")
    assert answer["seed"] and answer["solution"]
    practice = await late.request("challenge_play", challenge=cid)
    assert practice["type"] == "challenge_playing"  # a revealed deal: practice, never on its board
    await late.wait("started")
    assert (await late.request("resign", race=practice["race"]))["type"] == "resigned"
    await late.wait("finished")

    async def kept() -> bool:  # the practice attempt's writes are done
        return await server.attempts.running(f"challenge-running:{cid}") == 0 and not server.attempts._tasks

    await eventually(kept, what="the practice attempt kept")
    board = (await late.request("challenge", challenge=cid))["board"]
    assert sorted(r["player"]["name"] for r in board) == ["Maker", "Racer"]


async def test_a_reveal_while_an_attempt_is_being_prepared_leaves_that_attempt_off_the_board(
    server: RaceServer,
) -> None:
    """The creator's reveal once landed between an attempt's first read of its challenge and its
    running mark: the reveal counted no attempt, told the deal, and the attempt still counted
    (its player then raced the solution to the top). The reveal is put in that window on purpose
    here (the real reveal, sent by the creator while the attempt loads its ghosts)."""
    maker = await registered(server.url, "Maker")
    racer = await registered(server.url, "Racer")
    made = await maker.request("challenge_create", variant="terrace")
    cid = made["challenge"]
    await maker.wait("started")
    assert (await maker.request("resign", race=made["race"]))["type"] == "resigned"
    await maker.wait("finished")
    ghosts = server.challenges._ghosts
    told: list[Message] = []

    async def ghosts_then_the_reveal(*args: Any) -> Any:
        out = await ghosts(*args)
        told.append(await maker.request("challenge_reveal", challenge=cid))
        return out

    server.challenges._ghosts = ghosts_then_the_reveal  # type: ignore[method-assign]
    playing = await racer.request("challenge_play", challenge=cid)
    assert told and told[0]["revealed"] is True and told[0]["seed"]  # the creator has the deal now
    assert playing["type"] == "challenge_playing", playing
    await racer.wait("started")
    assert (await racer.request("resign", race=playing["race"]))["type"] == "resigned"
    await racer.wait("finished")

    async def kept() -> bool:
        return await server.attempts.running(f"challenge-running:{cid}") == 0 and not server.attempts._tasks

    await eventually(kept, what="the attempt kept")
    board = (await racer.request("challenge", challenge=cid))["board"]
    assert [r["player"]["name"] for r in board] == ["Maker"]  # a practice game on a told deal


async def test_another_node_tells_nobody_else_an_attempt_exists(
    redis_url: str, make_server: MakeServer
) -> None:
    nodes_ = []
    for _ in range(2):
        port = _free_port()
        nodes_.append(
            await make_server(
                port=port, public_url=f"ws://127.0.0.1:{port}/ws", redis_url=redis_url, daily_secret=SECRET
            )
        )
    player = await registered(nodes_[0].url, "Hidden")
    race, _ = await _start(player)
    nosy = await registered(nodes_[1].url, "Elsewhere")
    for request in ("join", "spectate", "record", "leave", "start"):
        refused = await nosy.request(request, race=race)
        assert refused["type"] == "error" and refused["code"] == "no_race", (request, refused)
    own = await Client.open(nodes_[1].url, MSGPACK)  # its own player, on the other node: sent there
    assert (await own.request("hello", token=player.token))["type"] == "welcome"  # type: ignore[attr-defined]
    sent = await own.request("record", race=race)
    assert sent["type"] in ("redirect", "error") and sent.get("code", "not_finished") == "not_finished", sent
    await own.close()
