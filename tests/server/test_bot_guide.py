"""The bot author's guide (docs/BOTS.md): its complete bot races as written."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path
from typing import Any

from server.app import RaceServer
from terrace.deal import commitment

from .conftest import FAST

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "BOTS.md"


def _guide_bot() -> dict[str, Any]:
    code = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(code) == 1
    namespace: dict[str, Any] = {"__name__": "mybot"}
    exec(compile(code[0], str(GUIDE), "exec"), namespace)
    return namespace


async def test_two_copies_of_the_guide_bot_are_matched_and_race_to_the_end() -> None:
    bot = _guide_bot()
    async with RaceServer(dataclasses.replace(FAST, default_time_limit=20)) as srv:
        one, two = await asyncio.wait_for(
            asyncio.gather(bot["play"](srv.url, "botone"), bot["play"](srv.url, "bottwo")), timeout=30
        )
    assert one == two  # both saw the same end of the same race
    assert sorted(r["place"] for r in one["results"]) in ([1, 2], [1, 1])
    assert {r["player"]["name"] for r in one["results"]} == {"botone", "bottwo"}
    assert all(r["finished"] for r in one["results"])
    assert one["commitment"] == commitment(bytes.fromhex(one["seed"]))


def test_the_guide_bot_sends_cards_home_first_then_the_stock_and_never_undoes() -> None:
    choose = _guide_bot()["choose"]
    assert choose({}, ["3-4", "S-W", "W-F2"], "") == "W-F2"
    assert choose({}, ["3-4", "S-W"], "") == "S-W"
    assert choose({}, ["4-3", "5-6"], "3-4") == "5-6"
    assert choose({}, ["a-b", "S-c", "d-Ah"], "") == "d-Ah"  # Louis: heaps to the ace foundation
