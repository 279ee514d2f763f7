"""``analysis``: where each player's game of a finished race was lost, over the real protocol.

A race played to the end is analysed in the worker pool (polled with ``analysing``), the answer
is the core's own analysis of the record, kept in the store (memory, Redis: another node on the
same Redis answers it at once); a live race is refused with ``not_finished``, an unknown one with
``no_race``, and nothing about a live race is analysed.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

import terrace
from server.app import RaceServer
from terrace.solve import check_line
from terrace.solve.hindsight import analyse_record
from terrace.wire.protocol import JSON, MSGPACK
from tests.poll import eventually
from tests.server.conftest import Connect, MakeServer
from tests.server.known_deal import race_lost_at_189
from tests.server.scripted_players import Policy, play_out
from tests.server.wire import Client

BUDGET = {"analysis_nodes": 5_000, "analysis_probes": 8}  # small: each game in well under a second


async def race_to_the_end(a: Client, b: Client) -> str:
    """A two-player race: ``a`` plays until its game ends or it gives up, ``b`` resigns after 3 moves."""
    race = (await a.request("create", variant="terrace", seats=2))["race"]["id"]
    assert (await b.request("join", race=race))["type"] == "joined"
    await a.request("start", race=race)
    started_a, started_b = await a.wait("started"), await b.wait("started")
    await play_out(b, race, started_b, Policy(pick=1, max_moves=3))
    await play_out(a, race, started_a, Policy())
    await a.wait("finished")
    return race


async def analysed(c: Client, race: str) -> dict[str, Any]:
    """Ask until the analysis is made; every answer before it is ``analysing``."""
    pending: list[dict[str, Any]] = []

    async def ask() -> dict[str, Any] | None:
        answer = await c.request("analysis", race=race)
        if answer["type"] == "analysing":
            pending.append(answer)
            return None
        return answer

    answer = await eventually(ask, timeout=60, every=0.2, what="the analysis")
    assert answer["type"] == "analysis", answer
    for p in pending:
        told = p.pop("players", [])  # the games made so far, each as the analysis will say it
        assert p == {"type": "analysing", "race": race, "retry_after": p["retry_after"], "re": p["re"]}
        assert p["retry_after"] >= 1
        assert all(g in answer["players"] for g in told)
    return answer


async def test_a_race_played_to_the_end_is_analysed_game_by_game(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(**BUDGET)
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(JSON, name="Ben", srv=srv)
    race = await race_to_the_end(a, b)
    first = await a.request("analysis", race=race)
    assert first["type"] == "analysing", first  # made in the workers, never on the spot
    answer = await analysed(b, race)
    record = (await a.request("record", race=race))["race"]
    assert answer["type"] == "analysis" and answer["race"] == race
    assert answer["hindsight"] is True
    assert answer["budget"] == {"nodes": 5_000, "probes": 8}
    expected = [
        {"player": player, **h.to_dict()} for player, h in analyse_record(record, nodes=5_000, probes=8)
    ]
    assert answer["players"] == expected
    assert [p["player"]["name"] for p in answer["players"]] == [
        r["player"]["name"] for r in record["results"]
    ]
    seed = bytes.fromhex(record["seed"])
    for game, row in zip(answer["players"], record["results"], strict=True):
        assert game["moves"] == len(row["move_list"])
        if game["last_winnable"] is not None:  # the continuation wins from there
            before = terrace.replay("terrace", seed, row["move_list"][: game["last_winnable"]])
            assert check_line(before, game["continuation"])
        if game["losing_move"] is not None:
            assert game["first_lost"] == game["losing_move"] + 1 == game["last_winnable"] + 1
    assert await srv.store.analysis(race) == {k: answer[k] for k in ("hindsight", "budget", "players")}
    again = await a.request("analysis", race=race)  # kept: answered at once
    assert again == {**answer, "re": again["re"]}


async def test_a_live_race_is_refused_and_nothing_is_analysed(connect: Connect, server: RaceServer) -> None:
    a = await connect(MSGPACK, name="Ann")
    race = (await a.request("create", variant="terrace", seats=1))["race"]["id"]
    refused = await a.request("analysis", race=race)
    assert refused["type"] == "error" and refused["code"] == "not_finished", refused
    await a.request("start", race=race)
    await a.wait("started")
    refused = await a.request("analysis", race=race)
    assert refused["type"] == "error" and refused["code"] == "not_finished", refused
    assert "seed" not in refused
    assert server.analyses._running == {}
    assert await server.store.analysis(race) is None


async def test_an_unknown_race_is_no_race(connect: Connect) -> None:
    c = await connect(JSON)  # watching is open to anyone: no hello needed
    refused = await c.request("analysis", race="nope1234")
    assert refused["type"] == "error" and refused["code"] == "no_race", refused
    bad = await c.request("analysis")
    assert bad["type"] == "error" and bad["code"] == "bad_field" and bad["field"] == "race", bad


async def test_asking_twice_while_it_is_made_starts_one_analysis(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(**BUDGET)
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(MSGPACK, name="Ben", srv=srv)
    race = await race_to_the_end(a, b)
    answers = [await a.request("analysis", race=race) for _ in range(3)]
    running = len(srv.analyses._running)
    assert running <= 1  # made once, whoever asks
    assert all(x["type"] in ("analysing", "analysis") for x in answers)
    await analysed(a, race)


async def test_a_server_stopped_while_it_analyses_stops_cleanly_and_logs_no_failure(
    make_server: MakeServer, connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    srv: RaceServer = await make_server(analysis_nodes=2_000_000, analysis_probes=64)  # slow on purpose
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(MSGPACK, name="Ben", srv=srv)
    race = await race_to_the_end(a, b)
    assert (await a.request("analysis", race=race))["type"] == "analysing"
    running = list(srv.analyses._running.values())
    assert running  # under way when the server is told to stop
    with caplog.at_level(logging.INFO, logger="terrace.server"):
        await srv.stop()
    assert all(task.done() for task in running)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert await srv.store.analysis(race) is None  # nothing half made was kept


async def test_an_analysis_whose_worker_dies_as_the_server_stops_is_no_failure(
    make_server: MakeServer, connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C in a terminal reaches the server's whole process group: a worker may go before the
    server has cancelled the analysis it was making."""
    srv: RaceServer = await make_server(analysis_nodes=2_000_000, analysis_probes=64)  # slow on purpose
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(MSGPACK, name="Ben", srv=srv)
    race = await race_to_the_end(a, b)
    assert (await a.request("analysis", race=race))["type"] == "analysing"
    (task,) = srv.analyses._running.values()
    await eventually(lambda: srv.executor._processes, what="a worker making it")  # type: ignore[attr-defined]
    srv.analyses.stopping = True  # as RaceServer.stop does first
    with caplog.at_level(logging.INFO, logger="terrace.server"):
        for worker in list(srv.executor._processes.values()):  # type: ignore[attr-defined]
            worker.kill()
        await eventually(task.done, timeout=30, what="the analysis to end")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert f"analysis of race {race} stopped with the server" in caplog.text
    assert race not in srv.analyses._failed  # asked again later, it is made again


async def test_an_analysis_kept_in_redis_is_answered_by_another_node_at_once(
    make_server: MakeServer, connect: Connect, redis_url: str
) -> None:
    one: RaceServer = await make_server(redis_url=redis_url, **BUDGET)
    a = await connect(MSGPACK, name="Ann", srv=one)
    b = await connect(MSGPACK, name="Ben", srv=one)
    race = await race_to_the_end(a, b)
    answer = await analysed(a, race)
    assert await one.store.analysis(race) is not None
    await eventually(lambda: one.store.record(race), what="the record in Redis")
    two: RaceServer = await make_server(redis_url=redis_url, **BUDGET)  # same store, another process's view
    c = await connect(JSON, srv=two)
    there = await c.request("analysis", race=race)
    assert there == {**answer, "re": there["re"]}


async def test_the_move_that_lost_a_race_on_a_known_deal_is_named(
    server: RaceServer, connect: Connect
) -> None:
    a = await connect(MSGPACK, name="Ann")
    race = await race_lost_at_189(server, a)
    answer = await analysed(a, race)
    [game] = answer["players"]
    assert game["player"]["name"] == "Ann"
    assert (game["verdict"], game["deal"]) == ("lost_by_move", "won")
    assert (game["last_winnable"], game["losing_move"], game["first_lost"]) == (189, 189, 190)
    assert game["moves"] == 209


async def test_a_record_whose_moves_do_not_replay_is_answered_internal_and_the_server_goes_on(
    server: RaceServer, connect: Connect
) -> None:
    a = await connect(MSGPACK, name="Ann")
    race = await race_lost_at_189(server, a)
    record = dict(await server.archive.record(race))
    record["id"] = "changed1"
    record["results"] = [{**record["results"][0], "move_list": ["1-F1", "9-F9"]}]  # not a legal move
    await server.store.save_record(record)

    async def refused() -> dict[str, Any] | None:
        answer = await a.request("analysis", race="changed1")
        return answer if answer["type"] == "error" else None

    error = await eventually(refused, timeout=30, every=0.2, what="the failed analysis")
    assert error["code"] == "internal", error
    assert await server.store.analysis("changed1") is None
    assert (await analysed(a, race))["players"][0]["losing_move"] == 189  # the rest is unharmed


async def test_players_who_made_the_same_moves_are_analysed_once(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(**BUDGET)
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(MSGPACK, name="Ben", srv=srv)
    race = (await a.request("create", variant="terrace", seats=2))["race"]["id"]
    await b.request("join", race=race)
    await a.request("start", race=race)
    started = [await a.wait("started"), await b.wait("started")]
    await play_out(a, race, started[0], Policy(max_moves=5))
    await play_out(b, race, started[1], Policy(max_moves=5))  # the same policy: the same five moves
    await a.wait("finished")
    answer = await analysed(a, race)
    assert srv.analyses.games == 1
    first, second = answer["players"]
    assert {k: v for k, v in first.items() if k != "player"} == {
        k: v for k, v in second.items() if k != "player"
    }
    assert first["player"]["name"] != second["player"]["name"]


async def test_the_askers_own_game_is_analysed_first_and_told_while_the_others_are_made(
    make_server: MakeServer, connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    srv: RaceServer = await make_server(
        analysis_nodes=40_000, analysis_probes=12
    )  # the defaults: seconds a game
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(MSGPACK, name="Ben", srv=srv)
    race = await race_to_the_end(a, b)  # Ben resigned after 3 moves; Ann played on
    told: list[list[str]] = []

    async def ask() -> dict[str, Any] | None:
        answer = await b.request("analysis", race=race)  # Ben asks: Ben's game first
        if answer["type"] == "analysing":
            told.append([g["player"]["name"] for g in answer.get("players", [])])
            return None
        return answer

    with caplog.at_level(logging.DEBUG, logger="terrace.server"):
        final = await eventually(ask, timeout=120, every=0.05, what="the analysis")
    assert [g["player"]["name"] for g in final["players"]] == ["Ann", "Ben"]  # the record's order
    # Ben's own game was made first (the server's log: a short game of Ann's can be made between
    # two polls, so the polls alone may never see Ben's game told alone) and never Ann's alone
    made = [r.args[1] for r in caplog.records if r.msg == "race %s: the game of %s analysed"]  # type: ignore[index]
    assert made == ["Ben", "Ann"], caplog.text
    assert ["Ann"] not in told
    assert told[0] == []  # nothing made on the spot


async def _from(srv: RaceServer, name: str, address: str) -> Client:
    c = await Client.open(srv.url, additional_headers={"X-Forwarded-For": address})
    assert (await c.request("hello", name=name))["type"] == "welcome"
    return c


async def test_one_address_asking_about_many_races_cannot_starve_another(
    make_server: MakeServer, connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    srv: RaceServer = await make_server(**BUDGET, trusted_proxies="127.0.0.1")
    # four races of two games each that the budget does not decide (each game takes its whole
    # budget, in one turn of the worker): slow enough for the turns to matter
    races = [
        await race_to_the_end(
            await connect(MSGPACK, name=f"P{i}", srv=srv), await connect(MSGPACK, name=f"Q{i}", srv=srv)
        )
        for i in range(4)
    ]
    greedy, other = await _from(srv, "greedy", "10.0.0.1"), await _from(srv, "other", "10.0.0.2")
    with caplog.at_level(logging.INFO, logger="terrace.server"):
        first = [await greedy.request("analysis", race=r) for r in races[:3]]
        # two races in making for one address at once; its third waits (asked to come back later)
        assert [x["retry_after"] for x in first] == [1, 1, 5]
        assert (await other.request("analysis", race=races[3]))["retry_after"] == 1  # another address gets in
        made: list[str] = []

        async def all_made() -> bool:
            for r, c in ((races[0], greedy), (races[1], greedy), (races[3], other)):
                if r not in made and (await c.request("analysis", race=r))["type"] == "analysis":
                    made.append(r)
            return len(made) == 3

        await eventually(all_made, timeout=60, every=0.02, what="three analyses")
    # the order the server finished them in (its log), not the order a poll happened to see them
    # in: on a loaded machine two can finish between one poll's requests
    done = [r.args[0] for r in caplog.records if r.msg == "race %s analysed"]  # type: ignore[index]
    assert sorted(done) == sorted(made), caplog.text
    # turns go by address: the other address's race is not made after both of the first's
    assert done.index(races[3]) < 2, done


async def test_a_page_without_hello_names_whose_game_comes_first(
    make_server: MakeServer, connect: Connect
) -> None:
    srv: RaceServer = await make_server(analysis_nodes=40_000, analysis_probes=12)
    a = await connect(MSGPACK, name="Ann", srv=srv)
    b = await connect(MSGPACK, name="Ben", srv=srv)
    race = await race_to_the_end(a, b)
    ben = next(
        r["player"]["id"]
        for r in (await a.request("record", race=race))["race"]["results"]
        if r["player"]["name"] == "Ben"
    )
    page = await Client.open(srv.url, JSON)  # no hello, as the race page
    told: list[list[str]] = []

    async def ask() -> dict[str, Any] | None:
        answer = await page.request("analysis", race=race, first=ben)
        if answer["type"] == "analysing":
            told.append([g["player"]["name"] for g in answer.get("players", [])])
            return None
        return answer

    await eventually(ask, timeout=120, every=0.05, what="the analysis")
    assert ["Ben"] in told and ["Ann"] not in told
    bad = await page.request("analysis", race=race, first="")
    assert bad["type"] == "error" and bad["code"] == "bad_field" and bad["field"] == "first"
    await page.close()
