"""``terrace daily`` in a pseudo terminal (pexpect) against a real server: the day's commitments and
board, a rated attempt on the race screen against a ghost, the refused second attempt, practice."""

from __future__ import annotations

import dataclasses
import re

import pexpect
import pytest

from server.app import RaceServer
from server.config import Config
from tests.server.conftest import FAST
from tests.server.features.test_daily import play_daily, registered

from .test_terminal import Connect, _exit, _expect, _spawn

__all__ = ["Connect"]


@pytest.fixture
def config() -> Config:
    return dataclasses.replace(FAST, daily_secret="22" * 32)


async def test_terrace_daily_plays_the_rated_attempt_against_a_ghost_then_refuses_a_second(
    server: RaceServer,
) -> None:
    pacer = await registered(server.url, "Pacer")
    await play_daily(pacer, moves=2)  # an earlier attempt: the ghost
    commitment = (await pacer.request("daily", variant="terrace"))["commitment"]

    child = _spawn("register", "Solo", "--server", server.url)
    assert await _exit(child) == 0
    child = _spawn("daily", "--server", server.url)
    asked = await _expect(child, re.escape("This is your one rated attempt today. Start? [y/N]"))
    assert "Daily terrace" in asked and commitment in asked and "not played today's attempt" in asked
    child.sendline("y")
    head = await _expect(child, "move>")
    assert "rated attempt" in head and "1 ghost" in head
    day = re.search(r"Daily terrace · (\d{4}-\d\d-\d\d)", asked).group(1)  # type: ignore[union-attr]
    assert f"Daily deal, {day} · terrace" in head  # the race screen says it is the daily
    await _expect(child, r"Pacer \(ghost\)")
    child.sendline("resign")
    await _expect(child, "Type y to resign")
    child.sendline("y")
    await _expect(child, "You resigned")
    await _expect(child, "Your place among the ghosts: 2 of 2")
    board = await _expect(child, "2 attempts")
    assert "Your attempt: 0 cards home" in board
    assert await _exit(child) == 0

    child = _spawn("daily", "--server", server.url)  # the day's one attempt is used
    used = await _expect(child, r"practice: true in daily_play\)\.")
    assert "You have used your daily attempt at terrace" in used
    assert "play it again unrated as practice (terrace daily --practice;" in used.replace("\r\n", " ")
    assert await _exit(child) == 1

    child = _spawn("daily", "--board", "--server", server.url)
    await child.expect(pexpect.EOF, async_=True)
    shown = str(child.before)
    assert "Pacer" in shown and "Solo" in shown and "move>" not in shown  # the board only, no game
    child = _spawn("daily", "--board", "--pool", "bots", "--server", server.url)
    await child.expect(pexpect.EOF, async_=True)
    assert "bots · 0 attempts: nobody on this board yet" in str(child.before)
    child = _spawn("daily", "--practice", "--ghosts", "0", "--server", server.url)
    await _expect(child, "practice game on [0-9-]+'s deal, alone\\.")  # --ghosts 0
    await _expect(child, "move>")
    child.sendline("resign")
    child.sendline("y")
    await _expect(child, "You resigned")
    assert await _exit(child) == 0


async def test_terrace_daily_asks_before_the_rated_attempt_and_no_keeps_it(server: RaceServer) -> None:
    child = _spawn("register", "Careful", "--server", server.url)
    assert await _exit(child) == 0
    child = _spawn("daily", "--server", server.url)
    await _expect(child, re.escape("Start? [y/N]"))
    child.sendline("")  # Enter alone: no
    said = await _expect(child, "Not started")
    assert await _exit(child) == 0
    assert "move>" not in said
    child = _spawn("daily", "--board", "--server", server.url)
    await child.expect(pexpect.EOF, async_=True)
    assert "You have not played today's attempt yet" in str(child.before)  # still unplayed
    child = _spawn("daily", "--yes", "--server", server.url)  # --yes: no question
    head = await _expect(child, "move>")
    assert "Start? [y/N]" not in head and "Your rated attempt" in head
    child.sendline("resign")
    child.sendline("y")
    await _expect(child, "You resigned")
    assert await _exit(child) == 0


async def test_terrace_verify_checks_a_daily_attempt_once_its_day_is_over(server: RaceServer) -> None:
    from tests.server.features.test_daily import Clock

    clock = Clock()
    server.daily.clock = clock
    player = await registered(server.url, "Verified")
    started, _ = await play_daily(player, moves=3)
    race = started["race"]
    child = _spawn("verify", race, "--server", server.url)  # while the day lasts: no record for anyone else
    await _expect(child, "no race")
    assert await _exit(child) == 1
    clock.next_day()
    child = _spawn("verify", race, "--server", server.url)
    await child.expect(pexpect.EOF, async_=True)
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(child.before))
    assert f"Race {race} verifies" in text and "✓ solution" in text and "✗" not in text, text


@pytest.mark.parametrize(
    ("attempt", "said"),
    [
        ({"state": "none"}, "You have not played today's attempt yet."),
        ({"state": "playing", "race": "d1"}, "Your attempt is under way."),
        (
            {"state": "finished", "race": "d1", "time": 61_230, "score": None, "goal": True},
            "Your attempt: 1:01.2",
        ),
        ({"state": "finished", "race": "d1", "time": None, "score": 31, "goal": False}, "31 cards home"),
        ({"state": "lost"}, "lost with its server"),
        (  # a time kept off the people's board says why, instead of an empty board
            {
                "state": "finished",
                "race": "d1",
                "time": 61_230,
                "score": None,
                "goal": True,
                "held": "new_account",
            },
            "Not on the board: your account is too new",
        ),
        (
            {
                "state": "finished",
                "race": "d1",
                "time": 120,
                "score": None,
                "goal": True,
                "held": "inhuman_pace",
            },
            "faster than a person plays",
        ),
    ],
)
def test_the_day_view_says_where_your_attempt_stands(attempt: dict[str, object], said: str) -> None:
    import io

    from rich.console import Console

    from client.daily import day_view

    answer = {
        "variant": "terrace",
        "day": "2026-11-18",
        "goal": "terrace",
        "time_limit": 900,
        "commitment": "ab" * 32,
        "next_commitment": "cd" * 32,
        "pool": "humans",
        "board": [{"rank": 1, "player": {"name": "Me"}, "time": None, "score": 4, "goal": False}],
        "total": 1,
        "attempt": attempt,
        "seed": "ef" * 32,
    }
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(day_view(answer, "Me"))
    text = buf.getvalue()
    assert said in text and "seed       " + "ef" * 32 in text  # label and seed fit 80 columns
    assert "humans · 1 attempt " in text and "attempts" not in text  # one attempt, singular
