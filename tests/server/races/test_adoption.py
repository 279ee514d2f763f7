"""Taking races on at start within a replay budget: a starting server claims every live race
and knows its players at once, accepts connections once its budget for log replay is spent,
replays the rest while it serves, and replays a race first for a player who comes back to it."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from server.app import RaceServer
from server.store import MemoryStore
from tests.poll import eventually
from tests.server.conftest import FAST
from tests.server.races.test_durability import _guest, _play
from tests.server.wire import Client

Message = dict[str, Any]


class SlowLogs(MemoryStore):
    """A memory store whose move logs cannot be read while ``gate`` is shut: a replay that has
    not finished yet, however fast the machine (everything else answers as usual)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.reads = 0

    async def log_read(self, race_id: str) -> list[dict[str, Any]]:
        self.reads += 1
        await self.gate.wait()
        return await super().log_read(race_id)


async def _races_with_moves(srv: RaceServer, names: list[str]) -> dict[str, tuple[str, str, int]]:
    """One single-seat race per name, started and a few moves in: name -> (session, race, seq)."""
    out = {}
    for n, name in enumerate(names):
        c = await _guest(srv.url, name)
        race = (await c.request("create", variant="terrace", seats=1))["race"]["id"]
        await c.request("start", race=race)
        answer = await c.wait("started")
        for seq in range(1, 2 + n % 3):
            answer = await _play(c, race, seq, answer["legal"])
        out[name] = (c.session, race, answer["seq"])  # type: ignore[attr-defined]
        await c.close()
    return out


async def test_a_start_past_its_replay_budget_serves_while_logs_replay_and_every_race_comes_back() -> None:
    store = SlowLogs()
    first = RaceServer(dataclasses.replace(FAST, grace=60), store=store)
    await first.start()
    played = await _races_with_moves(first, ["ann", "ben", "cat", "dot"])
    await first.stop()

    store.gate.clear()  # no log can be read: every replay is still under way
    second = RaceServer(dataclasses.replace(FAST, grace=60, restore_budget=0.2), store=store)
    try:
        async with asyncio.timeout(10):  # without a budget, start waits for every replay
            await second.start()
        assert store.reads >= 1 and second.registry.drivers == {}
        visitor = await Client.open(second.url)
        assert (await visitor.request("ping"))["type"] == "pong"
        assert (await visitor.request("hello", name="eve"))["type"] == "welcome"  # a new player
        assert (await visitor.request("races"))["total"] == 0  # listed once replayed
        ann_session, ann_race, ann_seq = played["ann"]
        refused = await visitor.request("record", race=ann_race)
        assert refused["code"] == "not_finished", refused  # known, not yet back: not `no_race`

        ann = await Client.open(second.url)
        welcomed = asyncio.ensure_future(ann.request("hello", session=ann_session))
        store.gate.set()
        welcome = await welcomed
        assert (welcome["type"], welcome.get("race")) == ("welcome", ann_race)
        resumed = await ann.wait("started")
        assert (resumed["race"], resumed["seq"]) == (ann_race, ann_seq)

        async def all_back() -> bool:
            return (await visitor.request("races"))["total"] == len(played)

        await eventually(all_back, what="every race replayed")
        for name, (_, race, seq) in played.items():
            seat = next(iter(second.registry.drivers[race].race.seats.values()))
            assert (seat.player["name"], seat.seq) == (name, seq)
        assert second.adoption.unreplayed == {}
        await visitor.close()
        await ann.close()
    finally:
        store.gate.set()
        await second.stop()


async def test_a_race_spectated_before_its_log_is_replayed_is_replayed_for_the_spectator() -> None:
    store = SlowLogs()
    first = RaceServer(dataclasses.replace(FAST, grace=60), store=store)
    await first.start()
    played = await _races_with_moves(first, ["ann", "ben"])
    await first.stop()

    store.gate.clear()
    second = RaceServer(dataclasses.replace(FAST, grace=60, restore_budget=0), store=store)
    try:
        await second.start()
        watcher = await Client.open(second.url)
        _, race, seq = played["ben"]
        watching = asyncio.ensure_future(watcher.request("spectate", race=race))
        store.gate.set()
        answer = await watching
        assert answer["type"] == "spectating", answer
        assert answer["race"]["state"] == "running"
        assert [(r["player"]["name"], r["moves"]) for r in answer["standings"]["rows"]] == [("ben", seq)]
        await watcher.close()
    finally:
        store.gate.set()
        await second.stop()
