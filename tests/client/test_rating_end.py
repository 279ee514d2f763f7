"""A rated race's end screen in the terminal says the rating change; an unrated one says why
it is not rated and no rating line."""

from __future__ import annotations

import dataclasses
import re

import pytest

from server.app import RaceServer
from server.config import Config
from tests.server.conftest import FAST
from tests.server.features.test_daily import registered

from .test_terminal import _exit, _expect, _resign, _spawn


@pytest.fixture
def config() -> Config:
    return dataclasses.replace(FAST, rated_seats_per_address=0)  # two accounts of one machine


async def _race_alice_then_resign(server: RaceServer, *bob_args: str) -> str:
    alice = await registered(server.url, "alice")
    await alice.request("hello", token=alice.token)  # type: ignore[attr-defined]
    race = (await alice.request("create", variant="terrace", seats=2, start="full", join=True))["race"]["id"]
    bob = _spawn("play", "--race", race, "--server", server.url, *bob_args)
    await _expect(bob, "move>")
    assert (await alice.request("move", race=race, seq=1, move="1f"))["type"] == "moved"  # alice wins
    assert (await alice.request("resign", race=race))["type"] == "resigned"
    end = await _resign(bob)
    await alice.close()
    bob.close()
    return end


async def test_a_rated_race_ends_with_the_rating_change(server: RaceServer) -> None:
    child = _spawn("register", "bob", "--server", server.url)
    assert await _exit(child) == 0
    end = await _race_alice_then_resign(server)
    assert "Not rated" not in end
    said = re.search(r"Rating \(humans, terrace\): (-?\d+\.\d\d) after your first rated race in it\.", end)
    assert said, end
    assert float(said.group(1)) == pytest.approx(
        (await _rating(server, "bob")), abs=0.01
    )  # what the server keeps


async def test_a_guest_race_says_why_it_is_not_rated_and_no_rating(server: RaceServer) -> None:
    end = await _race_alice_then_resign(server, "--name", "visitor")
    assert "Not rated: ratings count only races of registered players" in end.replace("\r\n", " ")
    assert "Rating (" not in end


async def _rating(server: RaceServer, name: str) -> float:
    from tests.server.wire import Client

    c = await Client.open(server.url)
    answer = await c.request("player", name=name)
    await c.close()
    return float(answer["history"][0]["rating"])
