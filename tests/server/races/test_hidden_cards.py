"""Over the wire, a race answers nothing that depends on the order of its stock.

Two one-seat races on one deal; in the second, every stock card still hidden is put in
another order. A scripted client sends each race the same requests (every card in every
form, every place, words, junk, and the moves that touch no stock card): until a card is
turned, every answer is the same frame, byte for byte, but for the race's id.
"""

from __future__ import annotations

import random

import pytest

import terrace
from server.app import RaceServer
from server.races.winnable import Drawn
from terrace.race import RaceRules
from terrace.solve.imagine import reshuffled
from tests.server.conftest import Connect
from tests.server.wire import Client
from tests.terrace.rules.test_hidden_cards import FAMILY_PLACES, single_texts
from tests.terrace.solve.games import SEED


async def _race(server: RaceServer, client: Client) -> str:
    rules = RaceRules("terrace", "terrace", 1, 900, "all", "full")
    driver = server.registry.new(rules, None, Drawn(SEED, []))
    driver.apply(driver.race.opened())
    assert (await client.request("join", race=driver.id))["type"] == "joined"
    await client.wait(lambda m: m.get("type") == "started" and m["race"] == driver.id)
    return driver.id


def _shuffle_stock(server: RaceServer, race_id: str, seed: int) -> None:
    """Put the hidden stock cards of every seat of ``race_id`` in another order."""
    for seat in server.registry.drivers[race_id].race.seats.values():
        assert seat.game is not None
        before = seat.game.view()
        seat.game = reshuffled(seat.game, random.Random(seed))
        assert seat.game.view() == before


class Script:
    """One client's moves in one race: ``send`` a text with the next ``seq``, keep the answer's frame."""

    def __init__(self, client: Client, race: str) -> None:
        self.client, self.race, self.seq = client, race, 1
        self.frames: list[bytes | str] = []

    async def send(self, text: str) -> dict[str, object]:
        answer = await self.client.request("move", race=self.race, seq=self.seq, move=text)
        # the frame that carried this answer, as it came over the wire
        frame = next(f for f in reversed(self.client.frames) if isinstance(f, bytes) and b"\xa2re" in f)
        self.frames.append(frame.replace(self.race.encode(), b"RACE-ID!"))
        if answer["type"] == "moved":
            self.seq += 1
        return answer


def _texts() -> list[str]:
    game = terrace.new_game("terrace", SEED)
    singles = single_texts(game)
    rng = random.Random(7)
    pairs = [f"{rng.choice(singles)}{rng.choice(['-', '', ' '])}{p}" for p in FAMILY_PLACES for _ in range(8)]
    return singles + pairs


def _turns_a_card(game: terrace.Game, text: str) -> bool:
    """Whether ``text`` would be accepted and bring a stock card into view."""
    g = game.copy()
    stock = g.view()["stock"]
    try:
        g.play(text)
    except terrace.IllegalMove:
        return False
    return bool(g.view()["stock"] < stock)


@pytest.mark.parametrize("when", ["at the first view", "after the base"])
async def test_a_race_answers_the_same_frames_whatever_the_order_of_its_stock(
    server: RaceServer, connect: Connect, when: str
) -> None:
    one, two = await connect(name="ann"), await connect(name="bea")
    first, second = Script(one, await _race(server, one)), Script(two, await _race(server, two))
    if when == "after the base":  # the base choice deals stock cards to the piles: both see the same ones
        for script in (first, second):
            assert (await script.send("2-F1"))["type"] == "moved"
        first.frames.clear()
        second.frames.clear()
    _shuffle_stock(server, second.race, seed=11)
    mirror = terrace.new_game("terrace", SEED)  # race one's position, to leave out what turns a card
    if when == "after the base":
        mirror.play("2-F1")
    texts = []
    for text in [*_texts(), "7-F1"]:  # 7-F1: the deal's next move home, after the base
        if _turns_a_card(mirror, text):
            continue
        a, b = await first.send(text), await second.send(text)
        assert a.get("code") == b.get("code"), text
        if a["type"] == "moved":
            mirror.play(text)
        texts.append(text)
    accepted = first.seq - (2 if when == "after the base" else 1)
    assert len(texts) - accepted > 300 and (accepted > 0) == (when == "after the base")
    assert len(first.frames) == len(texts)
    for text, a, b in zip(texts, first.frames, second.frames, strict=True):
        assert a == b, text
