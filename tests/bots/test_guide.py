"""The bot author's guide (docs/BOTS.md): both of its complete bots race as written."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from bots.house.keeper import Slot, keep_house
from bots.sdk import play
from server.app import RaceServer
from terrace.rules.deal import commitment

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
        house = asyncio.create_task(keep_house(srv.url, [Slot("greedy", 1)], ["terrace"]))
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
    # a program says so: standings mark it a bot, and house bots never wait a person's pace for it
    assert [r["player"]["kind"] for r in one["results"]] == ["bot", "bot"]
    assert all(r["finished"] for r in one["results"])
    assert one["commitment"] == commitment(bytes.fromhex(one["seed"]))


def test_the_raw_guide_bot_sends_cards_home_first_then_the_stock_and_never_undoes() -> None:
    choose = _load("A minimal Terrace Race bot on the raw protocol")["choose"]
    assert choose({}, ["3-4", "S-W", "W-F2"], "") == "W-F2"
    assert choose({}, ["3-4", "S-W"], "") == "S-W"
    assert choose({}, ["4-3", "5-6"], "3-4") == "5-6"
    assert choose({}, ["a-b", "S-c", "d-Ah"], "") == "d-Ah"  # Louis: heaps to the ace foundation


# ----- the guide's script, in fresh directories --------------------------------------------


def _script() -> str:
    [script] = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), re.S)
    return script


async def test_the_try_it_script_runs_as_written_in_a_fresh_clone_and_a_fresh_bot_directory(
    tmp_path: Path, unused_tcp_port: int
) -> None:
    """The guide's shell script, word for word, in a copy of the project with no venv and a
    home with the bot saved in ~/mybot: a new venv, a server, house bots, the bot's races."""
    root = GUIDE.parents[1]
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, clone / name)
    for package in ("terrace", "link", "server", "client", "bots"):
        shutil.copytree(root / package, clone / package, ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    (home / "mybot").mkdir(parents=True)
    [code] = [b for b in _blocks() if b.startswith('"""My first')]
    (home / "mybot" / "mybot.py").write_text(code)
    (tmp_path / "try.sh").write_text(_script())
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "TERRACE_TOKEN")},
        "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if ".venv" not in p),
        "HOME": str(home),
        "TERRACE_PORT": str(unused_tcp_port),  # never the default port of a server someone runs
        "TERRACE_SERVER": f"ws://127.0.0.1:{unused_tcp_port}/ws",
        "TERRACE_CONFIG_DIR": str(tmp_path / "config"),
    }
    proc = await asyncio.create_subprocess_exec(
        "bash", "-e", str(tmp_path / "try.sh"),
        cwd=clone, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(
            proc.communicate(), 600
        )  # a fresh venv and pip install: slow when the machine is busy
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever the script left behind
    assert proc.returncode == 0, err.decode()[-3000:]
    lines = [line for line in out.decode().splitlines() if line.startswith("race ")]
    assert len(lines) == 6, out.decode()  # three races of the sample bot, three of mybot.py
    assert (clone / ".venv" / "bin" / "python").exists()
