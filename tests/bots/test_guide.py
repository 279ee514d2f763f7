"""The bot author's guide (docs/BOTS.md): both of its complete bots race as written."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any

from bots.house import keep_house
from bots.sdk import play
from server.app import RaceServer
from terrace.deal import commitment

from .conftest import FAST

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "BOTS.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)


def _load(first_line: str) -> dict[str, Any]:
    [code] = [b for b in _blocks() if b.startswith(f'"""{first_line}')]
    namespace: dict[str, Any] = {"__name__": "guide"}
    exec(compile(code, str(GUIDE), "exec"), namespace)
    return namespace


def test_the_guide_has_its_two_complete_bots() -> None:
    assert len(_blocks()) == 2
    _load("My first Terrace Race bot")
    _load("A minimal Terrace Race bot on the raw protocol")


# ----- the SDK bot ---------------------------------------------------------------------------


def test_the_sdk_guide_bot_sends_cards_home_then_turns_the_stock_and_never_goes_straight_back() -> None:
    bot = _load("My first Terrace Race bot")["HomeFirst"]()
    bot.start({"race": "r", "variant": "terrace", "goal": "terrace"})
    assert bot.choose({"moves": 5}, ["3-4", "S-W", "W-F2"]) == "W-F2"
    assert bot.choose({"moves": 6}, ["3-4", "S-W"]) == "S-W"
    assert bot.choose({"moves": 7}, ["3-4"]) == "3-4"
    assert bot.choose({"moves": 8}, ["4-3", "5-6"]) == "5-6"
    assert bot.choose({"moves": 9}, ["redeal", "a-b", "d-Ah"]) == "d-Ah"  # Louis: ace foundation
    assert bot.choose({"moves": 1000}, ["S-W"]) is None  # resigns a game that goes on for ever


async def test_two_copies_of_the_sdk_guide_bot_race_each_other_to_the_end() -> None:
    home_first = _load("My first Terrace Race bot")["HomeFirst"]
    async with RaceServer(FAST) as srv:
        one, two = await asyncio.wait_for(
            asyncio.gather(
                play(home_first, srv.url, name="first", variant="louis"),
                play(home_first, srv.url, name="second", variant="louis"),
            ),
            timeout=60,
        )
    assert one[0].race == two[0].race
    assert sorted([one[0].place, two[0].place]) in ([1, 2], [1, 1])


async def test_the_sdk_guide_bot_runs_as_written_against_house_bots(tmp_path: Path) -> None:
    """``python mybot.py URL`` and ``terrace-bot run mybot:HomeFirst`` from the bot's directory."""
    [code] = [b for b in _blocks() if b.startswith('"""My first')]
    (tmp_path / "mybot.py").write_text(code)
    env = {**os.environ, "TERRACE_TOKEN": ""}
    async with RaceServer(FAST) as srv:
        house = asyncio.create_task(keep_house(srv.url, [("greedy", 1)], ["terrace"]))
        try:
            script = await asyncio.create_subprocess_exec(
                sys.executable, "mybot.py", srv.url, cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE
            )
            out, _ = await asyncio.wait_for(script.communicate(), 90)
            assert script.returncode == 0
            lines = out.decode().splitlines()
            assert len(lines) == 3 and all(line.startswith("race ") for line in lines), lines

            cli = Path(sys.executable).parent / "terrace-bot"
            run = await asyncio.create_subprocess_exec(
                str(cli), "run", "mybot:HomeFirst", "--server", srv.url, "--name", "fromcli",
                cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await asyncio.wait_for(run.communicate(), 60)
            assert run.returncode == 0, err.decode()
            assert "(terrace, goal terrace): place" in out.decode()
        finally:
            house.cancel()
            await asyncio.gather(house, return_exceptions=True)


# ----- the raw-protocol bot ------------------------------------------------------------------


async def test_two_copies_of_the_raw_guide_bot_are_matched_and_race_to_the_end() -> None:
    bot = _load("A minimal Terrace Race bot on the raw protocol")
    async with RaceServer(dataclasses.replace(FAST, default_time_limit=20)) as srv:
        one, two = await asyncio.wait_for(
            asyncio.gather(bot["play"](srv.url, "botone"), bot["play"](srv.url, "bottwo")), timeout=30
        )
    assert one == two  # both saw the same end of the same race
    assert sorted(r["place"] for r in one["results"]) in ([1, 2], [1, 1])
    assert {r["player"]["name"] for r in one["results"]} == {"botone", "bottwo"}
    assert all(r["finished"] for r in one["results"])
    assert one["commitment"] == commitment(bytes.fromhex(one["seed"]))


def test_the_raw_guide_bot_sends_cards_home_first_then_the_stock_and_never_undoes() -> None:
    choose = _load("A minimal Terrace Race bot on the raw protocol")["choose"]
    assert choose({}, ["3-4", "S-W", "W-F2"], "") == "W-F2"
    assert choose({}, ["3-4", "S-W"], "") == "S-W"
    assert choose({}, ["4-3", "5-6"], "3-4") == "5-6"
    assert choose({}, ["a-b", "S-c", "d-Ah"], "") == "d-Ah"  # Louis: heaps to the ace foundation
