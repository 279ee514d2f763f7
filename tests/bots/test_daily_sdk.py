"""The bot SDK on the daily deal: ``play(..., daily=True)`` plays the account's rated attempt once,
a second is refused with ``daily_attempted``, practice comes after, and the bot lands on the bots' board."""

from __future__ import annotations

from typing import Any

import pytest

from bots import Bot
from bots.sdk import SDKError, play
from server.app import RaceServer
from tests.poll import eventually
from tests.server.wire import Client


class Brief(Bot):
    """Four moves, then it resigns."""

    def __init__(self) -> None:
        self.moves = 0

    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        self.moves += 1
        return legal[0] if self.moves <= 4 else None


async def test_a_bot_plays_its_daily_attempt_once_then_practice(server: RaceServer) -> None:
    c = await Client.open(server.url)
    token = (await c.request("register", name="DailyBot", kind="bot"))["token"]
    await c.close()
    c = await Client.open(server.url)  # a spectator: the bot's hello takes the account's session over
    (rated,) = await play(Brief, server.url, token=token, daily=True, races=5)  # once, whatever `races` says
    assert rated.players == 1 and rated.finish == "resigned" and rated.seed is None  # the day is not over

    with pytest.raises(SDKError) as refused:
        await play(Brief, server.url, token=token, daily=True)
    assert refused.value.code == "daily_attempted"
    (practice,) = await play(Brief, server.url, token=token, daily=True, practice=True)
    assert practice.race != rated.race

    async def on_the_bots_board() -> bool:
        daily = await c.request("daily", variant="terrace", pool="bots")
        return [r["player"]["name"] for r in daily["board"]] == ["DailyBot"]

    await eventually(on_the_bots_board)
    assert (await c.request("daily", variant="terrace", pool="humans"))["board"] == []
