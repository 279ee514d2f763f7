"""``terrace replay`` with the server's hindsight: the move that lost a game is marked, and the win
the player missed is printed; ``--no-hindsight`` asks nothing. A real server, a race on a known deal
played over the wire (tests/server/known_deal.py)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import pytest

from client import records
from server.app import RaceServer
from terrace import replay
from terrace.solve import check_line
from tests.server.known_deal import SEED, race_lost_at_189
from tests.server.wire import Client
from tests.terrace.solve.games import LOST_AT_189

from .test_records import ns, run

Connect = Callable[..., Awaitable[Client]]


async def test_replay_marks_the_move_that_lost_it_and_prints_the_missed_win(
    server: RaceServer, connect: Connect
) -> None:
    race = await race_lost_at_189(server, await connect(name="Ann"))
    code, text = await run(records.replay, ns(server, race=race, player=None, all=True, no_hindsight=False))
    assert code == 0, text
    marked = [line.split() for line in text.splitlines() if "this move lost it" in line]
    assert len(marked) == 1 and marked[0][:2] == ["190", "1-F2"], marked  # move index 189, one line only
    flat = " ".join(text.split())  # long lines wrap on the console
    assert "hindsight (the stock known, which no player saw): move 190 lost it (proven)" in flat
    kept = await server.store.analysis(race)
    assert kept is not None
    continuation = kept["players"][0]["continuation"]
    assert f"a win from after move 189 ({len(continuation)} moves): {' '.join(continuation)}" in flat
    assert check_line(replay("terrace", SEED, LOST_AT_189[:189]), continuation)


async def test_replay_json_carries_each_players_hindsight(
    server: RaceServer, connect: Connect, capsys: pytest.CaptureFixture[str]
) -> None:
    race = await race_lost_at_189(server, await connect(name="Ann"))
    code, _ = await run(
        records.replay, ns(server, race=race, player=None, all=False, json=True, no_hindsight=False)
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    [player] = data["players"]
    assert player["hindsight"]["losing_move"] == 189 and player["hindsight"]["verdict"] == "lost_by_move"


async def test_replay_without_hindsight_asks_for_no_analysis(server: RaceServer, connect: Connect) -> None:
    race = await race_lost_at_189(server, await connect(name="Ann"))
    code, text = await run(records.replay, ns(server, race=race, player=None, all=True, no_hindsight=True))
    assert code == 0 and "hindsight" not in text and "lost it" not in text
    assert server.handlers.analyses._running == {} and await server.store.analysis(race) is None


async def test_replay_goes_on_alone_when_the_analysis_takes_too_long(
    server: RaceServer, connect: Connect
) -> None:
    race = await race_lost_at_189(server, await connect(name="Ann"))
    code, text = await run(
        records.replay, ns(server, race=race, player=None, all=True, analysis_wait=0.0, no_hindsight=False)
    )
    assert code == 0
    assert f"No hindsight: the server is still analysing race {race}; run replay again later" in text
    assert "   209  " in text  # the replay itself is all there


async def test_stepping_on_a_terminal_shows_the_marker_on_the_move_that_lost_it(
    server: RaceServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    race = await race_lost_at_189(server, await connect(name="Ann"))
    presses = iter([""] * 190 + ["q"])  # to move 190, then quit

    async def key(prompt: str) -> str:
        return next(presses)

    monkeypatch.setattr(records, "_key", key)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    code, text = await run(records.replay, ns(server, race=race, player=None, all=False, no_hindsight=False))
    assert code == 0
    shown = [line for line in text.splitlines() if line.startswith("move ")]
    assert shown[-1].startswith("move 190 of 209: 1-F2") and shown[-1].endswith(
        "<- this move lost it (hindsight)"
    )
    assert not any("lost it" in line for line in shown[:-1])


async def test_the_l_key_jumps_to_the_move_that_lost_it(
    server: RaceServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    race = await race_lost_at_189(server, await connect(name="Ann"))
    presses = iter(["l", "q"])
    prompts: list[str] = []

    async def key(prompt: str) -> str:
        prompts.append(prompt)
        return next(presses)

    monkeypatch.setattr(records, "_key", key)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    code, text = await run(records.replay, ns(server, race=race, player=None, all=False, no_hindsight=False))
    assert code == 0
    assert "[l] move 190" in prompts[0]
    shown = [line for line in text.splitlines() if line.startswith(("move ", "the deal"))]
    assert shown[0].startswith("the deal (209 moves to come)")
    assert shown[1].startswith("move 190 of 209: 1-F2") and "lost it" in shown[1]
