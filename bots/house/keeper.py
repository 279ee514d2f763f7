"""House bots: sample bots that wait in the matchmaking queue so nobody races alone.

Each house bot says hello as a guest of kind ``bot`` and queues with ``house: true``:
the server never makes a race of house bots alone, so they sit in the queue until a
person (or another bot) arrives and fill that race.

**On demand.** The lineup (``greedy:2,planner:1``) is how many bots of each kind
*wait* in each variant's queue. When a race takes waiting bots, the house adds
fresh ones at once, up to ``max_bots`` in all, so the next person who queues is
seated within seconds however many races at a person's pace are under way. A bot
whose race ends while enough others wait goes home.

**Pace.** While a person races, a house bot thinks before each move for a time
drawn from its :class:`~bots.house.pace.Pace` (``planner@fast``; the house's own pace
otherwise). Whether a person still races comes from one spectating connection
(:class:`~bots.house.watch.Watcher`).

**One rule at the end: the house never hands a person the win.** Once every person in
the race has finished (``left``, resigned, reached the goal), the house bots play their
own games out at full speed: they never resign for the person's sake, so each game ends
as a game does (the goal, stuck, the time limit): where its bot sees nothing more to
play, the house tries the legal moves on its own, and stops only after ``PLAY_ON_MOVES``
moves gained nothing (its score final either way), so the places are what was played. A person who resigns early is placed by
what the bots then play. A race of programs only (another author's bot and the house) is
played at full speed from the first move, the same way.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bots.bot import Bot, Choice, View, load_bot
from bots.house.pace import DEFAULT_PACE, Pace, pace_named, split_pace
from bots.house.watch import Watcher
from bots.sdk import Racer, RaceResult, SDKError
from link import Offline
from terrace import VARIANTS
from terrace.wire import house

log = logging.getLogger("terrace.bot")

DEFAULT_LINEUP = "greedy:2,planner:1"
DEFAULT_MAX_BOTS = 30  # house bots connected at once, waiting and racing, over every variant
NAME_MAX = 24  # the server's longest name
NAME_TRIES = 50  # names tried for one bot before the house gives up (each taken by someone else)
# short enough that a bot's name with its variant fits NAME_MAX
# moves a house bot tries on its own, once its bot sees nothing more to play, before it stops
PLAY_ON_MOVES = 300
VARIANT_TAGS = {"terrace": "terrace", "queen-of-italy": "queen", "signora": "signora", "louis": "louis"}
WAIT_FOR_SERVER = 120.0  # seconds the house waits for its server to answer before giving up
SERVER_RETRY = 1.0  # seconds between tries while it waits


@dataclass(frozen=True)
class Slot:
    """One entry of a lineup: a bot, its pace (None: the house's), how many wait per variant."""

    spec: str
    count: int = 1
    pace: str | None = None


def parse_lineup(text: str) -> list[Slot]:
    """``"greedy:2,planner@fast"`` -> ``[Slot("greedy", 2), Slot("planner", 1, "fast")]``.

    MODULE:CLASS specs work too (``mybots:Fast@slow:3``). Raises ValueError on bad text.
    """
    lineup: list[Slot] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        spec, _, count = part.rpartition(":")
        if not spec or not count.isdigit():
            spec, count = part, "1"
        if int(count) < 1:
            raise ValueError(f"house bot {part!r}: the count must be at least 1")
        bot, pace = split_pace(spec)
        load_bot(bot)  # fail now, not in the middle of the night
        lineup.append(Slot(bot, int(count), pace))
    if not lineup:
        raise ValueError("no house bots given")
    return lineup


@dataclass
class _Seat:
    """One house bot's place in the house's counts."""

    slot: int  # index in the lineup
    variant: str
    waiting: bool = True  # counted among the bots waiting in the queue


class House:
    """Keeps ``lineup`` waiting in each of ``variants``; see the module docstring."""

    def __init__(
        self,
        url: str,
        lineup: list[Slot],
        variants: list[str],
        *,
        goal: str | None = None,
        races: int | None = None,
        prefix: str = "house",
        pace: str = DEFAULT_PACE,
        max_bots: int = DEFAULT_MAX_BOTS,
        seed: int | None = None,
        house_key: str | None = None,
        house_key_file: str = "",
        wait_for_server: float = WAIT_FOR_SERVER,
    ) -> None:
        for v in variants:
            if v not in VARIANTS:
                raise ValueError(f"unknown variant {v!r}")
        if sum(s.count for s in lineup) * len(variants) > max_bots:
            raise ValueError(f"the lineup needs more than --max-bots {max_bots} bots")
        self.url = url
        self.lineup = lineup
        self.variants = variants
        self.goal = goal
        self.races = races  # races per bot; a fixed lineup then (no bots added on demand)
        self.prefix = prefix
        # the server's key for names beginning with "house" (terrace.wire.house): given, else
        # $TERRACE_HOUSE_KEY, else the key file a server on this machine made (read once the
        # server answers: a server started with the house makes it as it starts)
        self.house_key = house_key
        self.house_key_file = house_key_file
        self.paces = [pace_named(s.pace or pace) for s in lineup]
        self.max_bots = max_bots
        self.wait_for_server = wait_for_server
        self.rng = random.Random(seed)
        self.own = _Own()  # the house bots' player ids, as they are now
        self.watcher = Watcher(url, self.own)
        self.waiting: Counter[tuple[int, str]] = Counter()
        self.bots = 0  # connected or connecting
        self.results: list[RaceResult] = []
        self._numbers: Counter[str] = Counter()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ended = asyncio.Event()

    async def run(self) -> list[RaceResult]:
        """Run until every bot played ``races`` races (None: until cancelled); returns the results."""
        await (
            self._server_answers()
        )  # no server after the wait: fail here, before anything is said to be waiting
        self.house_key = self.house_key or house.house_key(file=self.house_key_file)
        if self.house_key is None and self.prefix.lower().startswith("house"):
            await self.watcher.close()
            raise SDKError(
                f"no house key: set {house.ENV_KEY} to the server's (--house-key), or run the house on the "
                f"server's machine, where the server keeps it in {house.key_path(self.house_key_file)}"
            )
        try:
            for i in range(len(self.lineup)):
                for v in self.variants:
                    for _ in range(self.lineup[i].count):
                        self._add(i, v)
            log.info(
                "house: %d bots waiting in the queue of %s (at most %d at once)",
                self.bots,
                ", ".join(self.variants),
                self.max_bots,
            )
            while self._tasks:
                await self._ended.wait()  # a bot's task ended (bots added meanwhile count too)
                self._ended.clear()
                for task in [t for t in self._tasks if t.done()]:
                    self._tasks.discard(task)
                    task.result()  # a bot the server refused stops the house
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.watcher.close()
        return self.results

    async def _server_answers(self) -> None:
        """Open the watcher's connection, waiting for a server that is not up yet (started in the
        same breath as the house, it may still be loading): said once, then tried every second,
        up to ``wait_for_server`` seconds (then Offline, as with no server at all)."""
        deadline = asyncio.get_running_loop().time() + self.wait_for_server
        said = False
        while True:
            try:
                await self.watcher.open()
                break
            except Offline:
                if asyncio.get_running_loop().time() >= deadline:
                    raise
                if not said:
                    said = True
                    print(f"house: waiting for the server at {self.url} to answer…", flush=True)
                await asyncio.sleep(SERVER_RETRY)
        if said:
            print(f"house: the server at {self.url} answered.", flush=True)

    def _name(self, slot: int, variant: str) -> str:
        """The next name for a bot of ``slot`` in ``variant``'s queue: ``house-greedy-3``, or with
        several variants ``house-greedy-queen-3``; always a valid name (24 characters at most)."""
        short = self.lineup[slot].spec.rsplit(":", 1)[-1].lower().removesuffix("bot") or "bot"
        short = re.sub(r"[^a-z0-9_-]", "", short) or "bot"
        key = short + " " + variant
        self._numbers[key] += 1
        tail = f"-{VARIANT_TAGS.get(variant, variant)}" if len(self.variants) > 1 else ""
        tail += f"-{self._numbers[key]}"
        return f"{self.prefix}-{short}"[: NAME_MAX - len(tail)] + tail

    def _add(self, slot: int, variant: str) -> None:
        name = self._name(slot, variant)
        seat = _Seat(slot, variant)
        self.waiting[slot, variant] += 1
        self.bots += 1
        task = asyncio.get_running_loop().create_task(self._race(name, seat))
        task.add_done_callback(lambda _: self._ended.set())
        self._tasks.add(task)

    def seated(self, seat: _Seat) -> None:
        """A waiting bot's race started: add bots so that as many wait as the lineup says."""
        if not seat.waiting:
            return
        seat.waiting = False
        key = (seat.slot, seat.variant)
        self.waiting[key] -= 1
        if self.races is not None:
            return
        while self.waiting[key] < self.lineup[seat.slot].count and self.bots < self.max_bots:
            self._add(*key)

    async def _race(self, name: str, seat: _Seat) -> None:
        spec = self.lineup[seat.slot].spec
        pace = self.paces[seat.slot]
        inner = load_bot(spec)

        def paced() -> Bot:
            return Paced(inner(), pace, self, seat)

        racer = Racer(paced, self.url, name=name, house_key=self.house_key)
        try:
            for _ in range(NAME_TRIES):
                try:
                    await racer.connect()
                    break
                except SDKError as exc:
                    if exc.code != "name_taken":
                        raise
                    # someone else (an account, a guest, another house) has it: the next number
                    await racer.close()
                    taken, name = name, self._name(seat.slot, seat.variant)
                    log.info("%s is taken; trying %s", taken, name)
                    racer = Racer(paced, self.url, name=name, house_key=self.house_key)
            else:
                raise SDKError(f"no free house name after {NAME_TRIES} tries (the last: {name})")
            self.own.racers.add(racer)
            played = 0
            while self.races is None or played < self.races:
                if not seat.waiting:
                    seat.waiting = True
                    self.waiting[seat.slot, seat.variant] += 1
                try:
                    result = await racer.race(variant=seat.variant, goal=self.goal, house=True)
                except SDKError as exc:
                    log.error("%s: %s", name, exc)
                    raise
                log.info("%s: %s", name, result)
                self.results.append(result)
                played += 1
                enough = self.waiting[seat.slot, seat.variant] >= self.lineup[seat.slot].count
                if self.races is None and enough:
                    log.info("%s: enough bots wait; going home", name)
                    break
        finally:
            self.own.racers.discard(racer)
            if seat.waiting:
                self.waiting[seat.slot, seat.variant] -= 1
                seat.waiting = False
            self.bots -= 1
            await racer.close()


class _Own:
    """The house bots' player ids, read from their sessions when asked: a bot that comes
    back to a restarted server may have been given a new id, and it is still the house."""

    def __init__(self) -> None:
        self.racers: set[Racer] = set()

    def __contains__(self, player_id: object) -> bool:
        return any(str(r.player.get("id")) == player_id for r in self.racers)


class Paced(Bot):
    """A house bot: the lineup's bot, thinking at its pace while a person races."""

    def __init__(self, inner: Bot, pace: Pace, house: House, seat: _Seat) -> None:
        self.inner = inner
        self.pace = pace
        self.house = house
        self.seat = seat
        self.race = ""
        self.moves = 0
        self.progress: tuple[object, ...] = ()  # (score, stock) when a card last went home or the stock moved
        self.tries = 0  # moves tried on its own since then, its bot seeing nothing to play

    def start(self, race: dict[str, Any]) -> None:
        self.race = str(race["race"])
        self.house.seated(self.seat)
        if self.pace.median > 0:
            self.house.watcher.watch(self.race)
        self.inner.start(race)

    async def choose(self, view: View, legal: list[str]) -> Choice:
        if self.pace.median > 0:
            seconds = self.pace.draw(self.house.rng, first=self.moves == 0)
            # returns at once when no person races any more: full speed from then on, and no
            # resigning (the places must be what was played; see the module docstring)
            await self.house.watcher.think(self.race, seconds)
        self.moves += 1
        choice = self.inner.choose(view, legal)
        if inspect.isawaitable(choice):
            choice = await choice
        progress = (view.get("score"), view.get("stock"))
        if progress != self.progress:
            self.progress, self.tries = progress, 0
        if choice is None and legal and self.tries < PLAY_ON_MOVES:
            # its bot gives up, but the game may still go on: a house bot plays it out (a card
            # may yet go home) rather than resign; after PLAY_ON_MOVES moves with nothing gained
            # it stops, its score final either way
            self.tries += 1
            return self.house.rng.choice(legal)
        return choice

    def finish(self, result: dict[str, Any]) -> None:
        self.inner.finish(result)


async def keep_house(
    url: str,
    lineup: list[Slot],
    variants: list[str],
    *,
    goal: str | None = None,
    races: int | None = None,
    prefix: str = "house",
    pace: str = DEFAULT_PACE,
    max_bots: int = DEFAULT_MAX_BOTS,
    house_key: str | None = None,
    house_key_file: str = "",
    wait_for_server: float = WAIT_FOR_SERVER,
) -> list[RaceResult]:
    """Run a :class:`House` until ``races`` races each (None: until cancelled)."""
    keeper = House(
        url,
        lineup,
        variants,
        goal=goal,
        races=races,
        prefix=prefix,
        pace=pace,
        max_bots=max_bots,
        house_key=house_key,
        house_key_file=house_key_file,
        wait_for_server=wait_for_server,
    )
    return await keeper.run()
