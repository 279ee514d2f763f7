"""``terrace replay`` with the server's hindsight: the move that lost a game is marked, and the win
the player missed is printed; ``--no-hindsight`` asks nothing. A real server, a race on a known deal
played over the wire (tests/server/known_deal.py)."""

from __future__ import annotations

import json
import re
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
from .test_terminal import _exit, _expect, _spawn

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
    assert server.analyses._running == {} and await server.store.analysis(race) is None


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


# ----- stepping in a real terminal ---------------------------------------------------------

VERDICT = r"hindsight \(the stock known, which no player saw\): move 190 lost it \(proven\)"
PROMPT = r"\[q\]uit >"


async def test_stepping_shows_the_verdict_on_every_step_and_jumps_to_the_end_and_back(
    server: RaceServer, connect: Connect
) -> None:
    """The real command in a pty: hindsight's verdict in one line from the deal on, End (or
    e) to the last move with the whole verdict, Home (or s) back to the deal, and a line of
    the keys for a key it does not know."""
    race = await race_lost_at_189(server, await connect(name="Ann"))
    child = _spawn("replay", race, "--server", server.url)
    # the first analysis of a race may take the server's solver a while
    await child.expect(r"the deal \(209 moves to come\)", timeout=90, async_=True)
    await _expect(child, VERDICT)  # at the deal already: what `l` will show
    shown = await _expect(child, PROMPT)
    assert "a win from after move 189" not in shown  # the missed win waits for the last step
    assert "[s]tart [e]nd" in shown and "[l] move 190" in shown
    prompt = next(line for line in shown.splitlines() if "[q]uit >" in line)
    assert len(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", prompt).strip()) <= 80  # one line at 80 columns

    child.send("\x1b[F")  # End: at once, no Enter
    await _expect(child, r"move 209 of 209: ")
    await _expect(child, VERDICT)
    await _expect(child, r"a win from after move 189 \(\d+ moves\)")
    await _expect(child, PROMPT)
    child.send("\x1b[H")  # Home
    await _expect(child, r"the deal \(209 moves to come\)")
    await _expect(child, PROMPT)
    child.send("e")  # a letter acts at once too, no Enter
    await _expect(child, r"move 209 of 209: ")
    await _expect(child, PROMPT)
    child.send("s")
    await _expect(child, r"the deal \(209 moves to come\)")
    await _expect(child, PROMPT)
    child.send("n")
    await _expect(child, r"move 1 of 209: ")  # a step in the middle: its verdict comes after this line
    shown = await _expect(child, PROMPT)
    assert re.search(VERDICT, shown) and "a win from" not in shown, shown

    child.send("x")  # not a key: the keys, and the same step, not drawn again
    raw = await _expect(child, r"quit\.")  # wrapped to the width, its colour on each line
    keys = " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw).split())
    assert "Keys: Enter/n/→ next move, b/← back, s/Home the deal, e/End the last move" in keys
    assert "l move 190 (hindsight), q quit." in keys
    assert "move 1 of 209" not in keys, keys
    again = await _expect(child, PROMPT)
    assert "move 1 of 209" not in again and "Ann: place" not in again, again
    child.send("l")
    await _expect(child, r"move 190 of 209: 1-F2 .*this move lost it")
    await _expect(child, PROMPT)
    child.send("q")
    assert await _exit(child) == 0
