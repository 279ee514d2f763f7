"""The bot SDK against a real server: whole races, reconnects, rate limits, refusals."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bots import Bot
from bots.samples.random_bot import RandomBot
from bots.sdk import Racer, RaceResult, SDKError, play
from server.app import RaceServer
from tests.poll import eventually
from tests.server.conftest import MakeServer
from tests.server.redis_server import RedisServer, require_redis_server
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]


class Counting(RandomBot):
    """A random bot that remembers every view it was asked about."""

    asked: ClassVar[list[int]] = []

    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        type(self).asked.append(view["moves"])
        return super().choose(view, legal)


async def _open_race(connect: Connect, seats: int = 1, **create: Any) -> str:
    """A race that starts as soon as ``seats`` players join, its creator not among them."""
    host = await connect(name="host")
    created = await host.request("create", variant="terrace", seats=seats, start="full", join=False, **create)
    assert created["type"] == "created", created
    return str(created["race"]["id"])


async def _record_if_any(connect: Connect, race: str) -> dict[str, Any] | None:
    c = await connect()
    answer = await c.request("record", race=race)
    await c.close()
    return dict(answer["race"]) if answer["type"] == "record" else None


async def _record(connect: Connect, race: str) -> dict[str, Any]:
    c = await connect()
    answer = await c.request("record", race=race)
    assert answer["type"] == "record", answer
    return dict(answer["race"])


def _check_result(result: RaceResult, record: dict[str, Any], name: str) -> None:
    row = next(r for r in record["results"] if r["player"]["name"] == name)
    assert (result.place, result.finish, result.score, result.moves) == (
        row["place"],
        row["finish"],
        row["score"],
        row["moves"],
    )
    assert result.moves == len(row["move_list"])  # every move applied exactly once
    assert result.seed == record["seed"]
    assert hashlib.sha256(b"terrace-commit:" + bytes.fromhex(result.seed)).hexdigest() == record["commitment"]


async def test_two_sdk_bots_queue_and_race_to_the_end(server: RaceServer, connect: Connect) -> None:
    a, b = await asyncio.gather(
        play(RandomBot, server.url, name="alpha", variant="signora"),
        play(RandomBot, server.url, name="beta", variant="signora"),
    )
    assert len(a) == len(b) == 1
    assert a[0].race == b[0].race
    assert (a[0].variant, a[0].goal, a[0].players) == ("signora", "terrace", 2)
    record = await _record(connect, a[0].race)
    _check_result(a[0], record, "alpha")
    _check_result(b[0], record, "beta")
    assert a[0].finish in ("goal", "stuck", "resigned")


async def test_races_n_plays_that_many_races_in_a_row(server: RaceServer, connect: Connect) -> None:
    seen: list[RaceResult] = []
    a, b = await asyncio.gather(
        play(RandomBot, server.url, name="alpha", races=3, on_result=seen.append),
        play(RandomBot, server.url, name="beta", races=3),
    )
    assert len(a) == len(b) == 3
    assert len({r.race for r in a}) == 3
    assert [r.race for r in a] == [r.race for r in b]
    assert seen == a


async def test_a_registered_bot_plays_with_its_token_and_joins_a_named_race(
    server: RaceServer, connect: Connect
) -> None:
    reg = await (await connect()).request("register", name="robo", kind="bot")
    race = await _open_race(connect)
    [result] = await play(RandomBot, server.url, token=reg["token"], race=race)
    assert result.race == race
    record = await _record(connect, race)
    assert record["results"][0]["player"] == {**reg["player"], **record["results"][0]["player"]}
    _check_result(result, record, "robo")


async def test_an_async_choose_is_awaited(server: RaceServer, connect: Connect) -> None:
    class Slowpoke(RandomBot):
        async def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:  # type: ignore[override]
            await asyncio.sleep(0)
            return RandomBot.choose(self, view, legal)

    race = await _open_race(connect)
    [result] = await play(Slowpoke, server.url, name="slow", race=race)
    _check_result(result, await _record(connect, race), "slow")


async def test_the_bot_is_told_the_race_at_start_and_its_result_at_finish(
    server: RaceServer, connect: Connect
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    class Watched(RandomBot):
        def start(self, race: dict[str, Any]) -> None:
            calls.append(("start", race))
            super().start(race)

        def finish(self, result: dict[str, Any]) -> None:
            calls.append(("finish", result))

    race = await _open_race(connect)
    [result] = await play(Watched, server.url, name="watched", race=race)
    assert calls == [
        ("start", {"race": race, "variant": "terrace", "goal": "terrace"}),
        ("finish", result.to_dict()),
    ]


@pytest.mark.parametrize("answer_lost", [False, True], ids=["move-never-arrived", "answer-lost"])
async def test_a_dropped_connection_reconnects_and_resends_the_move_once(
    server: RaceServer, connect: Connect, answer_lost: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="terrace.bot")
    race = await _open_race(connect)
    racer: Racer
    resumed_at: list[int] = []

    class Dropper(Counting):
        asked: ClassVar[list[int]] = []

        def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
            move = super().choose(view, legal)
            if view["moves"] == 12 and not resumed_at:
                resumed_at.append(view["moves"])
                assert racer.link is not None
                assert racer.link.conn is not None
                ws = racer.link.conn.ws
                send = ws.send

                async def send_then_drop(frame: Any) -> None:
                    if answer_lost:  # the server gets the move and answers; we never read it
                        ws.transport.pause_reading()
                        await send(frame)
                        seats = server.registry.drivers[race].race.seats.values()
                        mine = next(s for s in seats if s.player["name"] == "dropper")
                        await eventually(lambda: mine.seq == 13, what="the server to play move 13")
                    ws.transport.abort()

                ws.send = send_then_drop  # type: ignore[method-assign]
            return move

    racer = Racer(Dropper, server.url, name="dropper")
    await racer.connect()
    result = await racer.race(race=race)
    await racer.close()
    assert result.reconnects == 1
    record = await _record(connect, race)
    _check_result(result, record, "dropper")
    # the bot was asked once per position: the lost move was sent again, not chosen again
    assert Dropper.asked == list(range(result.moves + (result.finish == "resigned")))
    # move 13 was in flight: applied before the drop only when its answer was the part lost
    back = [r.getMessage() for r in caplog.records if "back in race" in r.getMessage()]
    assert back == [f"dropper: back in race {race} at seq {13 if answer_lost else 12}"]


async def test_rate_limited_moves_are_sent_again_after_retry_after(
    make_server: Any, connect: Connect
) -> None:
    srv = await make_server(rate=40.0, burst=5)
    host = await connect(name="host", srv=srv)
    created = await host.request("create", variant="terrace", seats=1, start="full", join=False)
    racer = Racer(RandomBot, srv.url, name="hasty")
    await racer.connect()
    link = racer.link
    result = await racer.race(race=created["race"]["id"])
    await racer.close()
    assert link is not None and link.rate_limited > 0
    assert result.moves > 20 and result.illegal == 0


async def test_a_bot_that_keeps_playing_illegal_moves_is_resigned_after_three(
    server: RaceServer, connect: Connect
) -> None:
    class Stubborn(Bot):
        def choose(self, view: dict[str, Any], legal: list[str]) -> str:
            return "W-9"  # the waste is empty at the start: always refused

    race = await _open_race(connect)
    [result] = await play(Stubborn, server.url, name="stubborn", race=race)
    assert (result.finish, result.illegal, result.moves) == ("resigned", 3, 0)


async def test_a_bot_returning_none_resigns(server: RaceServer, connect: Connect) -> None:
    class Quitter(Bot):
        def choose(self, view: dict[str, Any], legal: list[str]) -> None:
            return None

    race = await _open_race(connect)
    [result] = await play(Quitter, server.url, name="quitter", race=race)
    assert (result.finish, result.moves, result.place) == ("resigned", 0, 1)


@pytest.mark.parametrize("failure", ["returns a number", "raises"])
async def test_a_bot_that_fails_gives_up_its_seat_and_the_error_reaches_its_author(
    server: RaceServer, connect: Connect, failure: str
) -> None:
    class Broken(Bot):
        def choose(self, view: dict[str, Any], legal: list[str]) -> Any:
            if failure == "raises":
                raise ZeroDivisionError("the bot's own bug")
            return 42

    race = await _open_race(connect)
    expected = ZeroDivisionError if failure == "raises" else TypeError
    with pytest.raises(expected) as caught:
        await play(Broken, server.url, name="broken", race=race)
    if failure == "returns a number":
        assert str(caught.value).startswith("Broken.choose returned 42: a move is a string such as ")
        assert str(caught.value).endswith("(one of the legal moves), or None to resign")
    record = await eventually(lambda: _record_if_any(connect, race), what="the race's record")
    [row] = record["results"]
    assert (row["player"]["name"], row["finish"]) == ("broken", "resigned")  # its seat given up


async def test_a_bad_token_is_an_sdk_error_with_its_code(server: RaceServer) -> None:
    with pytest.raises(SDKError, match="hello refused: bad_token") as info:
        await play(RandomBot, server.url, token="not-a-token")
    assert info.value.code == "bad_token"


async def test_a_refused_queue_is_an_sdk_error(server: RaceServer) -> None:
    with pytest.raises(SDKError, match="queue refused") as info:
        await play(RandomBot, server.url, name="solo", variant="louis", goal="terrace")
    assert info.value.code == "bad_goal"


async def test_an_unreachable_server_is_reported_not_hung(unused_tcp_port: int) -> None:
    from link import Offline

    with pytest.raises(Offline, match="cannot reach"):
        await play(RandomBot, f"ws://127.0.0.1:{unused_tcp_port}/ws", name="lost")


async def test_a_race_that_ends_by_time_while_the_bot_thinks_ends_its_play(
    server: RaceServer, connect: Connect
) -> None:
    class Ponderer(RandomBot):
        async def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:  # type: ignore[override]
            if view["moves"]:  # after its first move it thinks until the time limit has ended the race
                await eventually(
                    lambda: race not in server.registry.drivers, what="the race's time to run out"
                )
            return RandomBot.choose(self, view, legal)

    race = await _open_race(connect, time_limit=1)
    [result] = await asyncio.wait_for(play(Ponderer, server.url, name="ponder", race=race), 10)
    assert result.finish == "time"
    assert result.moves == 1
    _check_result(result, await _record(connect, race), "ponder")


async def test_a_finished_push_missed_while_away_is_read_from_the_record(
    server: RaceServer, connect: Connect
) -> None:
    race = await _open_race(connect)
    [first] = await play(RandomBot, server.url, name="player", race=race)
    late = Racer(RandomBot, server.url, name="latecomer")
    late.record_poll = 0.1
    await late.connect()  # a new connection: the race's `finished` push went elsewhere
    record = await late._finished(race)
    await late.close()
    assert record["seed"] == first.seed
    assert [r["player"]["name"] for r in record["results"]] == ["player"]
    lost = Racer(RandomBot, server.url, name="lost")
    lost.record_poll = 0.1
    await lost.connect()
    with pytest.raises(SDKError, match="race nosuchrace vanished") as info:
        await lost._finished("nosuchrace")
    await lost.close()
    assert info.value.code == "no_race"


class Patient(Bot):
    """Moves; before its fourth move it waits for ``go`` (the test stops Redis meanwhile); resigns
    after six."""

    moves = 0
    waiting = asyncio.Event()
    go = asyncio.Event()

    async def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        type(self).moves += 1
        if self.moves == 4:
            type(self).waiting.set()
            await type(self).go.wait()
        return legal[0] if self.moves <= 6 else None


async def test_a_move_answered_store_down_is_sent_again_until_the_store_is_back(
    make_server: Callable[..., Awaitable[RaceServer]], tmp_path: Path
) -> None:
    Patient.waiting, Patient.go, Patient.moves = asyncio.Event(), asyncio.Event(), 0
    with RedisServer(require_redis_server(), appendonly=True, dir=tmp_path) as redis:
        srv = await make_server(redis_url=redis.url)
        result = asyncio.create_task(Racer(Patient, srv.url, name="patient").race(variant="terrace"))
        helper = await Client.open(srv.url)
        assert (await helper.request("hello", name="helper"))["type"] == "welcome"
        assert (await helper.request("queue", variant="terrace"))["type"] == "queued"
        await asyncio.wait_for(Patient.waiting.wait(), 10)
        redis.stop()
        Patient.go.set()
        refused = srv.metrics.errors.labels("store_down")
        await eventually(lambda: refused._value.get() >= 2, what="the move to be refused and sent again")
        redis.start()
        await eventually(lambda: Patient.moves > 6, what="the bot to resign")
        race = (await helper.wait("started"))["race"]
        assert (await helper.request("resign", race=race))["type"] == "resigned"
        done = await asyncio.wait_for(result, 30)
        record = await helper.request("record", race=done.race)
        row = next(r for r in record["race"]["results"] if r["player"]["name"] == "patient")
        assert done.moves == len(row["move_list"]) == 6  # the refused move once, when the store was back
        await helper.close()


async def test_a_bot_kept_from_the_account_queued_beside_it_is_told_why_it_still_waits(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Two registered accounts from one address are never seated together (the default
    rated_seats_per_address): the second bot hears that one other waited when it queued, and
    why that may not be enough."""
    server = await make_server(rated_seats_per_address=1)
    early = await Client.open(server.url)
    assert (await early.request("register", name="early", kind="bot"))["type"] == "registered"
    late = await Client.open(server.url)
    token = (await late.request("register", name="late", kind="bot"))["token"]
    await late.close()
    assert (await early.request("queue", variant="terrace"))["position"] == 1
    caplog.set_level(logging.WARNING, logger="terrace.bot")
    bot = asyncio.ensure_future(play(RandomBot, server.url, token=token, variant="terrace"))
    try:
        await eventually(lambda: "still waiting" in caplog.text, timeout=30, what="the notice")
    finally:
        bot.cancel()
        await asyncio.gather(bot, return_exceptions=True)
        await early.close()
    assert (
        "late: still waiting in the terrace queue after 5 s; 1 other was waiting when it queued."
        in caplog.text
    )
    assert (
        "registered accounts from one address or install are never seated together (same_address)"
        in caplog.text
    )
