"""Who still races beside the house: one spectating connection for all of its races.

A house bot thinks at a person's pace only while a person races with it; once no
person races any more it plays its game out at full speed (never resigning: the
places must be what was played), as it does against programs alone. The house's bots each have their own connection, whose
pushes the SDK reads; so the house watches the races its bots are in from one
more connection, as a spectator: the ``spectating`` answer and every ``standings``
push say, row by row, who is a person (``kind``) and who has finished. A race
whose people have all finished (``left``, resigned, goal, stuck) wakes its
thinking bots to play on at full speed.

If the watcher cannot tell (its connection dropped, the race lives on another
node), bots keep a person's pace: racing a person too slowly is the smaller harm.
A dropped connection is opened again (a server restarted, say), and the races still
watched are watched again on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from link import Connection, Offline

log = logging.getLogger("terrace.bot")

KNOW_WITHIN = 2.0  # seconds a bot waits for the first word on its race before assuming a person
RECONNECT_DELAYS = (
    0.2,
    0.5,
    1.0,
    2.0,
    5.0,
)  # seconds between tries to open the watcher again (the last repeats)


@dataclass
class _Race:
    known: asyncio.Event = field(default_factory=asyncio.Event)
    people_done: asyncio.Event = field(default_factory=asyncio.Event)  # set: no person races any more


def people_racing(rows: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a standings row is a person (``kind: human``) who has not finished."""
    return any(r["player"].get("kind") != "bot" and not r.get("finished") for r in rows)


class Watcher:
    def __init__(self, url: str, house: Container[str] = frozenset()) -> None:
        self.url = url
        self.house = house  # the house's own player ids: everyone else is racing against it
        self.link: Connection | None = None
        self.races: dict[str, _Race] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def open(self) -> None:
        """Connect (raises Offline when the server cannot be reached) and start reading pushes."""
        self.link = await Connection.open(self.url)
        self._spawn(self._read(self.link))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.link is not None:
            await self.link.close()

    def watch(self, race: str) -> None:
        """Start watching ``race`` (once, however many house bots sit in it)."""
        if race in self.races:
            return
        self.races[race] = _Race()
        self._spawn(self._spectate(race))

    async def think(self, race: str, seconds: float) -> None:
        """Wait ``seconds`` if a person races in ``race``; return early once none does."""
        state = self.races.get(race)
        if state is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(min(seconds, KNOW_WITHIN)):
                await state.known.wait()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await state.people_done.wait()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _spectate(self, race: str) -> None:
        link = self.link
        if link is None or link.is_closed:
            return
        try:
            answer = await link.request("spectate", race=race)
        except Offline:
            return
        if answer.get("type") == "spectating":
            self._saw(race, answer["standings"]["rows"])
        else:
            log.debug("house watcher: cannot watch race %s: %s", race, answer.get("code"))

    async def _read(self, link: Connection) -> None:
        while True:
            with contextlib.suppress(Offline):
                while True:
                    msg = await link.push("standings", "finished")
                    race = str(msg.get("race"))
                    if msg["type"] == "finished":
                        self._saw(race, [], over=True)
                        self.races.pop(race, None)
                    else:
                        self._saw(race, msg["rows"])
            log.warning("house watcher: connection lost; house bots keep a person's pace until it is back")
            link = await self._reopen()
            for race in list(self.races):  # what it watched, watched again (gone races are told no_race)
                self._spawn(self._spectate(race))

    async def _reopen(self) -> Connection:
        """A new connection, tried again and again (the house lives as long as its bots)."""
        for attempt in itertools.count():
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            try:
                self.link = await Connection.open(self.url)
            except (Offline, OSError):
                continue
            log.info("house watcher: back")
            return self.link
        raise AssertionError("unreachable")

    def _saw(self, race: str, rows: list[Mapping[str, Any]], over: bool = False) -> None:
        state = self.races.get(race)
        if state is None:
            return
        state.known.set()
        if not rows and not over:
            return  # an empty table says nothing of who races (a node without the race's rows yet)
        if not people_racing(rows):
            state.people_done.set()
