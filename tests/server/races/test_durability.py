"""Durability with Redis: every acknowledged move is in the race's log before its answer, a
server killed with SIGKILL resumes its races on restart (moves, seqs, clock, players), and a
Redis that goes away costs moves a `store_down` answer but nothing acknowledged."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.app import RaceServer
from server.store import MemoryStore
from server.store.redis import RedisStore
from tests.poll import eventually
from tests.server.command import COMMAND, LISTEN
from tests.server.conftest import FAST
from tests.server.redis_server import RedisServer, require_redis_server
from tests.server.wire import Client

Message = dict[str, Any]
Launch = Callable[..., tuple[subprocess.Popen[str], str]]


@pytest.fixture
def launch(redis_url: str, tmp_path: Path) -> Iterator[Launch]:
    """``launch(*flags)``: the real ``terrace-server`` on ``redis_url``, its listen line read."""
    procs: list[subprocess.Popen[str]] = []

    def start(*flags: str) -> tuple[subprocess.Popen[str], str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TERRACE_")}
        log = open(tmp_path / f"server-{len(procs)}.log", "w")  # noqa: SIM115 (the process owns it)
        proc = subprocess.Popen(
            # every client here is on 127.0.0.1: accounts may share a race (as in FAST)
            [
                COMMAND,
                "--redis-url",
                redis_url,
                "--port",
                "0",
                "--countdown",
                "0",
                "--rated-seats-per-address",
                "0",
                *flags,
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
        )
        log.close()
        procs.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline().rstrip("\n")
        match = LISTEN.match(line)
        assert match, line + (tmp_path / f"server-{len(procs) - 1}.log").read_text()
        return proc, match.group(1)

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


async def _registered(url: str, name: str) -> Client:
    c = await Client.open(url)
    answer = await c.request("register", name=name)
    assert answer["type"] == "registered", answer
    c.token = answer["token"]  # type: ignore[attr-defined]
    c.player = answer["player"]  # type: ignore[attr-defined]
    return c


async def _guest(url: str, name: str) -> Client:
    c = await Client.open(url)
    welcome = await c.request("hello", name=name)
    assert welcome["type"] == "welcome", welcome
    c.session = welcome["session"]  # type: ignore[attr-defined]
    return c


async def _race(players: list[Client], time_limit: int = 600) -> tuple[str, list[Message]]:
    """A race of ``players``, started: its id and each player's `started`."""
    created = await players[0].request(
        "create", variant="terrace", seats=len(players), start="full", time_limit=time_limit
    )
    race = str(created["race"]["id"])
    for p in players[1:]:
        assert (await p.request("join", race=race))["type"] == "joined"
    return race, [await p.wait("started") for p in players]


async def _play(c: Client, race: str, seq: int, legal: list[str], text: str | None = None) -> Message:
    answer = await c.request("move", race=race, seq=seq, move=text or legal[0])
    assert answer["type"] == "moved", answer
    return answer


def _without_re(msg: Message) -> Message:
    return {k: v for k, v in msg.items() if k != "re"}


def _no_live_races(store: RedisStore) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return await store.live_races() == []

    return check


async def test_a_killed_server_resumes_its_race_with_every_acknowledged_move(
    launch: Launch,
) -> None:
    proc, url = launch()
    alice, bob = await _registered(url, "alice"), await _guest(url, "bob")
    race, (started, _) = await _race([alice, bob])
    answers = [await _play(alice, race, 1, started["legal"], "1f")]  # lenient text, canonical "1-F1"
    for seq in range(2, 5):
        answers.append(await _play(alice, race, seq, answers[-1]["legal"]))
    bob_answer = await _play(bob, race, 1, started["legal"])
    token, session = alice.token, bob.session  # type: ignore[attr-defined]
    proc.kill()  # SIGKILL: no goodbye, nothing flushed
    await asyncio.to_thread(proc.wait, 5)
    await alice.closed
    await bob.closed

    _, url = launch()
    alice = await Client.open(url)
    assert (await alice.request("hello", token=token))["type"] == "welcome"
    resumed = await alice.wait("started")
    assert resumed["resumed"] is True and resumed["seq"] == 4
    assert (resumed["view"], resumed["legal"]) == (answers[-1]["view"], answers[-1]["legal"])
    assert resumed["clock"]["ends_at"] == started["clock"]["ends_at"]  # the clock went on without us
    assert resumed["commitment"] == started["commitment"]
    standings = await alice.wait("standings")
    assert {r["player"]["name"]: r["moves"] for r in standings["rows"]} == {"alice": 4, "bob": 1}
    # Answers lost in the crash are there for resends, applied once, whatever text was sent.
    for seq, first in enumerate(answers, 1):
        text = "1f" if seq == 1 else first["move"]
        again = await alice.request("move", race=race, seq=seq, move=text)
        assert _without_re(again) == _without_re(first)
    bob = await Client.open(url)
    assert (await bob.request("hello", session=session))["type"] == "welcome"
    bob_resumed = await bob.wait("started")
    assert (bob_resumed["seq"], bob_resumed["view"]) == (1, bob_answer["view"])
    answers.append(await _play(alice, race, 5, answers[-1]["legal"]))
    await alice.request("resign", race=race)
    await bob.request("resign", race=race)
    await alice.wait("finished")
    record = (await alice.request("record", race=race))["race"]
    moves = {r["player"]["name"]: r["move_list"] for r in record["results"]}
    assert moves == {"alice": [a["move"] for a in answers], "bob": [bob_answer["move"]]}
    await alice.close()
    await bob.close()


async def test_a_race_whose_time_ran_out_while_the_server_was_down_ends_by_time(
    launch: Launch, redis_url: str
) -> None:
    proc, url = launch()
    alice, bob = await _registered(url, "alice"), await _registered(url, "bob")
    race, (started, _) = await _race([alice, bob], time_limit=2)
    moved = await _play(alice, race, 1, started["legal"], "1f")
    proc.kill()
    await asyncio.to_thread(proc.wait, 5)
    # the behaviour tested: the time limit runs out while no server runs the race, so it is waited out
    await asyncio.sleep(max(0.0, started["clock"]["ends_at"] / 1000 - time.time()) + 0.1)

    _, url = launch()
    c = await Client.open(url)

    async def record() -> Any:  # the restarted server ends it at once; the record is saved just after
        answer = await c.request("record", race=race)
        return answer if answer["type"] == "record" else None

    answer = await eventually(record, what="the record of the race that ran out of time")
    results = {r["player"]["name"]: r for r in answer["race"]["results"]}
    assert {n: (r["finish"], r["time"]) for n, r in results.items()} == {
        "alice": ("time", 2000),
        "bob": ("time", 2000),
    }
    assert results["alice"]["move_list"] == [moved["move"]] and results["alice"]["place"] == 1
    store = RedisStore(redis_url)
    await eventually(_no_live_races(store), what="the log to go once the record is kept")
    await store.close()
    await c.close()


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[RedisServer]:
    """A redis-server of this test's own, persisting to an append-only file: it survives a stop."""
    with RedisServer(require_redis_server(), appendonly=True, dir=tmp_path) as redis_server:
        yield redis_server


async def test_redis_down_refuses_moves_without_changing_them_and_loses_nothing(
    own_redis: RedisServer,
) -> None:
    async with RaceServer(dataclasses.replace(FAST, redis_url=own_redis.url, grace=30)) as srv:
        alice, bob = await _registered(srv.url, "alice"), await _registered(srv.url, "bob")
        race, (started, _) = await _race([alice, bob])
        answers = [await _play(alice, race, 1, started["legal"], "1f")]
        seat = srv.registry.drivers[race].race.seats[alice.player["id"]]  # type: ignore[attr-defined]
        own_redis.stop()
        refused = await alice.request("move", race=race, seq=2, move=answers[-1]["legal"][0])
        assert refused["code"] == "store_down"
        assert (seat.seq, seat.move_count) == (1, 1)  # nothing changed
        refused = await alice.request("resign", race=race)
        assert refused["code"] == "store_down" and seat.finish is None
        own_redis.start()
        answers.append(await _play(alice, race, 2, answers[-1]["legal"]))  # the same seq, accepted
        answers.append(await _play(alice, race, 3, answers[-1]["legal"]))
        store = RedisStore(own_redis.url)
        log = await store.log_read(race)
        assert [(e["seq"], e["m"]) for e in log if e["p"] == seat.id] == [
            (n, a["move"]) for n, a in enumerate(answers, 1)
        ]
        await alice.request("resign", race=race)
        await bob.request("resign", race=race)
        await alice.wait("finished")
        record = (await alice.request("record", race=race))["race"]
        assert record["results"][0]["move_list"] == [a["move"] for a in answers]
        await eventually(_no_live_races(store), what="the log to go once the record is kept")
        await store.close()
        await alice.close()
        await bob.close()


async def test_after_a_restart_a_player_who_does_not_come_back_is_out_after_a_fresh_grace(
    launch: Launch,
) -> None:
    proc, url = launch()
    alice, bob = await _registered(url, "alice"), await _registered(url, "bob")
    await _race([alice, bob])
    token = alice.token  # type: ignore[attr-defined]
    proc.kill()
    await asyncio.to_thread(proc.wait, 5)

    _, url = launch("--grace", "0.5")
    alice = await Client.open(url)
    await alice.request("hello", token=token)
    # generous: a restarted server replays its logs first, and a loaded machine stretches that
    assert (await alice.wait("started", timeout=30))["resumed"] is True
    rows = (await alice.wait("standings", timeout=30))["rows"]
    assert {r["player"]["name"]: (r["connected"], r["finish"]) for r in rows} == {
        "alice": (True, None),
        "bob": (False, None),
    }
    out = await alice.wait(
        lambda m: m["type"] == "standings" and any(r["finish"] for r in m["rows"]), timeout=30
    )
    assert {r["player"]["name"]: r["finish"] for r in out["rows"]} == {"alice": None, "bob": "disconnected"}
    await alice.close()


async def test_replay_takes_the_last_entry_of_a_seq_and_forgets_a_finish_moves_came_after() -> None:
    # An append that answered "store down" may have reached the log all the same; the player
    # then sends that seq again (maybe another move), and may play on after a refused resign.
    store = MemoryStore()
    first = RaceServer(dataclasses.replace(FAST, grace=30), store=store)
    await first.start()
    alice = await _guest(first.url, "alice")
    created = await alice.request("create", variant="terrace", seats=1)
    race = created["race"]["id"]
    await alice.request("start", race=race)
    started = await alice.wait("started")
    answers = [await _play(alice, race, 1, started["legal"], "1f")]
    pid = next(iter(first.registry.drivers[race].race.seats))
    legal = answers[-1]["legal"]
    assert legal[0] != legal[-1]
    await store.log_append(race, {"p": pid, "seq": 1, "m": answers[0]["move"], "t": 5})  # a retried append
    await store.log_append(race, {"p": pid, "seq": 2, "m": legal[-1], "t": 6})  # refused: store down
    await store.log_append(race, {"p": pid, "f": "resigned", "t": 7})  # refused too
    answers.append(await _play(alice, race, 2, legal))
    session = alice.session  # type: ignore[attr-defined]
    await first.stop()

    async with RaceServer(FAST, store=store) as second:
        alice = await Client.open(second.url)
        await alice.request("hello", session=session)
        resumed = await alice.wait("started")
        assert (resumed["seq"], resumed["view"]) == (2, answers[-1]["view"])
        seat = second.registry.drivers[race].race.seats[pid]
        assert (seat.finish, second.accounts.get(pid).race) == (None, race)  # type: ignore[union-attr]
        assert [
            _without_re(await alice.request("move", race=race, seq=n, move=a["move"]))
            for n, a in enumerate(answers, 1)
        ] == [_without_re(a) for a in answers]
        await alice.close()


async def test_redis_stopped_and_started_under_load_loses_no_acknowledged_move(
    own_redis: RedisServer,
) -> None:
    """Four players move as fast as they can, resending refused moves, while Redis goes away and comes back."""
    async with RaceServer(dataclasses.replace(FAST, redis_url=own_redis.url, grace=30)) as srv:
        players = [await _registered(srv.url, name) for name in ("ann", "ben", "cat", "dot")]
        race, starts = await _race(players)
        acknowledged: dict[str, list[str]] = {}
        refused = made = 0
        outage = asyncio.Event()

        async def sent(c: Client, seq: int, choice: str) -> Message | None:
            """The answer to the move, or None (counted) when the store is down."""
            nonlocal refused
            answer = await c.request("move", race=race, seq=seq, move=choice)
            if answer["type"] == "moved":
                return answer
            assert answer["code"] == "store_down", answer
            refused += 1
            outage.set()
            return None

        async def player(c: Client, started: Message) -> None:
            nonlocal made
            legal, seq, last, moves = started["legal"], 0, "", []
            while len(moves) < 60 and legal:
                back = "-".join(reversed(last.split("-")))
                home = [m for m in legal if "-F" in m]
                choice = (
                    home
                    or [m for m in legal if m.startswith("S-")]
                    or [m for m in legal if m != back]
                    or legal
                )[0]
                # the same seq until it is acknowledged
                send = functools.partial(sent, c, seq + 1, choice)
                answer = await eventually(send, timeout=30, every=0.05, what="the move acknowledged")
                made += 1
                seq, legal, last = answer["seq"], answer["legal"], answer["move"]
                moves.append(answer["move"])
                if answer.get("finish"):
                    break
            acknowledged[c.player["name"]] = moves  # type: ignore[attr-defined]

        tasks = [asyncio.create_task(player(c, s)) for c, s in zip(players, starts, strict=True)]
        await eventually(lambda: made >= 4, what="moves made before the outage")
        own_redis.stop()
        await asyncio.wait_for(outage.wait(), 5)
        await eventually(lambda: refused >= 8, what="moves refused during the outage")
        own_redis.start()
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert refused > 0
        for c in players:
            await c.request("resign", race=race)
        await players[0].wait("finished")
        record = (await players[0].request("record", race=race))["race"]
        assert {r["player"]["name"]: r["move_list"] for r in record["results"]} == acknowledged
        for c in players:
            await c.close()
