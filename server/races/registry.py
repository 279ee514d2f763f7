"""The races that are not over yet, each with its driver: create, join, leave, start, list.

The registry is every driver's :class:`~server.races.driver.Hub`: a race's pushes go to its
audience (and, one node of many, to the other nodes), a player a race frees may race
again, and a race that is over leaves the registry for the archive.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import cast

from server.config import Config
from server.metrics import Metrics
from server.players.accounts import Accounts, Player
from server.races.archive import Archive
from server.races.audience import Audience
from server.races.driver import RaceDriver, Searches, now_ms
from server.races.journal import Journal
from server.races.nodes import Cluster
from server.races.winnable import Drawn, Draws
from terrace.errors import ProtocolError
from terrace.race import Race, RaceOptions, RaceRules, Timing
from terrace.race.effects import Message
from terrace.race.ghosts import Recorded
from terrace.race.rules import PLAIN
from terrace.rules.variants import VARIANTS
from terrace.vocab import Goal
from terrace.wire.messages import Create, RacePush, Record, Summary

log = logging.getLogger("terrace.server")


def timing(config: Config) -> Timing:
    return Timing(
        countdown=int(config.countdown * 1000),
        grace=int(config.grace * 1000),
        standings=int(config.standings_interval * 1000),
        open_for=int(config.open_race_timeout * 1000),
    )


def goal_of(variant: str, asked: str | None) -> Goal:
    """The race goal ``asked`` for, or the variant's default; ``bad_goal`` if the variant has no such goal."""
    v = VARIANTS[variant]
    if asked is None:
        return v.default_goal
    if asked not in v.goals:
        raise ProtocolError("bad_goal", variant=variant)
    return asked


class Registry:
    def __init__(
        self,
        config: Config,
        accounts: Accounts,
        audience: Audience,
        archive: Archive,
        journal: Journal,
        searches: Searches,
        metrics: Metrics,
        cluster: Cluster | None = None,
    ) -> None:
        self.config = config
        self.accounts = accounts
        self.audience = audience
        self.archive = archive
        self.journal = journal
        self.searches = searches
        self.metrics = metrics
        # winnable deals drawn on demand: in turn, one address after another (server.winnable)
        self.draws = Draws(searches.executor, config.search_workers - 1)
        self.cluster = cluster  # one node of many: see server.races.nodes
        self.drivers: dict[str, RaceDriver] = {}  # races not over yet
        self.made_by: dict[str, tuple[str, str]] = {}  # unstarted race id -> its creator's id and address
        # who takes a race at its end instead of the archive, by the ``kind`` of its owner
        # (``RaceOptions.owner``): the features built on races (a daily attempt, a challenge's)
        self.owners: dict[str, Callable[[RaceDriver, Record | None], None]] = {}
        # arenas (server.arenas): told of the races matchmaking makes for an arena, and of every race over
        self.on_matched: Callable[[str, RaceDriver, list[Player]], None] | None = None
        self.on_over: Callable[[RaceDriver, Record | None], None] | None = None
        # whether an arena still pairs players (False once it has ended): asked just before a group is
        # taken from an arena's queue, so no race starts after the end however late a queue is matched
        self.arena_open: Callable[[str], bool] = lambda arena_id: True

    # ----- finding ------------------------------------------------------------------

    def get(self, race_id: str, player: Player | None = None) -> RaceDriver:
        """The race not over of ``race_id``; ``no_race`` when there is none, or when it is a private
        race ``player`` is not seated in (nobody else learns it exists)."""
        driver = self.drivers.get(race_id)
        if driver is None or (
            driver.race.options.private and (player is None or player.id not in driver.race.seats)
        ):
            raise ProtocolError("no_race", race=race_id)
        return driver

    def private(self, race_id: str) -> bool:
        """Whether ``race_id`` is a private race running here."""
        driver = self.drivers.get(race_id)
        return driver is not None and driver.race.options.private

    def listing(self) -> list[Summary]:
        return [d.race.summary() for d in self.drivers.values() if not d.race.options.private]

    # ----- making races -------------------------------------------------------------

    def new(
        self,
        rules: RaceRules,
        creator: Player | None,
        drawn: Drawn | None = None,
        *,
        options: RaceOptions = PLAIN,
        ghosts: Sequence[Recorded] = (),
        race_id: str | None = None,
    ) -> RaceDriver:
        """A race made here (``drawn``: on that deal, else a fresh secret one), journalled from its
        first view and owned by this node; ``options`` and ``ghosts`` for the features built on races."""
        while race_id is None or race_id in self.drivers:
            race_id = secrets.token_hex(4)
        race = Race(
            race_id,
            rules,
            seed=secrets.token_bytes(32) if drawn is None else drawn.seed,
            now=now_ms(),
            timing=timing(self.config),
            creator=creator.public() if creator else None,
            durable=True,  # journalled in every store: a restart on the same store (Redis) resumes it
            solution=None if drawn is None else drawn.solution,
            options=options,
            ghosts=ghosts,
        )
        driver = self.add(race)
        if self.cluster is not None:
            self.cluster.claim(race_id)
        return driver

    def add(self, race: Race) -> RaceDriver:
        """Run ``race`` here (new, or rebuilt from its log)."""
        driver = RaceDriver(race, self, self.searches, self.journal, self._moved)
        self.drivers[race.id] = driver
        for pid, seat in race.seats.items():
            player = self.accounts.get(pid)
            if player is not None and seat.finish is None:
                player.race = race.id
        return driver

    async def create_winnable(self, player: Player, req: Create, address: str = "?") -> RaceDriver:
        """``create`` on a deal the solver proved winnable (server.races.winnable), drawn in a worker."""
        rules, _ = self._rules(player, req, address)  # a bad request is refused before the wait
        seconds = self.config.winnable_seconds
        drawn = await self.draws.draw(address, rules.variant, rules.rules_version, seconds)
        if drawn is None:
            raise ProtocolError("no_winnable_deal", seconds=f"{seconds:g}")
        return self.create(player, req, address, drawn)

    def create(
        self, player: Player, req: Create, address: str = "?", drawn: Drawn | None = None
    ) -> RaceDriver:
        rules, joining = self._rules(player, req, address)
        driver = self.new(rules, player, drawn, options=RaceOptions(rated_only=True) if req.rated else PLAIN)
        self.made_by[driver.id] = (player.id, address)
        variant, goal, seats = rules.variant, rules.goal, rules.seats
        log.info("race %s created by %s: %s %s, %d seats", driver.id, player.name, variant, goal, seats)
        if joining:
            self.seat(driver, player)
        else:
            driver.apply(driver.race.opened())
        return driver

    def _rules(self, player: Player, req: Create, address: str) -> tuple[RaceRules, bool]:
        """The rules a ``create`` asks for, and whether the creator joins; refuses what it may not."""
        c = self.config
        self.check_open_races(player, address)
        variant = req.variant
        goal = goal_of(variant, req.goal)
        seats = 2 if req.seats is None else req.seats
        if seats > c.max_seats:
            raise ProtocolError("bad_field", field="seats", detail=f"must be at most {c.max_seats}")
        time_limit = c.default_time_limit if req.time_limit is None else req.time_limit
        if time_limit > c.max_time_limit:
            raise ProtocolError("bad_field", field="time_limit", detail=f"must be at most {c.max_time_limit}")
        joining = req.join is not False
        if joining:
            self.check_free(player)
        rules = RaceRules(variant, goal, seats, time_limit, req.entry or "all", req.start or "manual")
        if joining and not rules.admits(player.kind):  # type: ignore[arg-type]
            raise ProtocolError("entry_refused", entry=rules.entry)
        return rules, joining

    def check_open_races(self, player: Player, address: str) -> None:
        """Refuse a creator whose unstarted races (or its address's) are at their cap."""
        for race_id in [
            r for r in self.made_by if r not in self.drivers or self.drivers[r].race.state != "open"
        ]:
            del self.made_by[race_id]  # started or over: it no longer counts
        mine = sum(pid == player.id for pid, _ in self.made_by.values())
        if mine >= self.config.max_open_races_per_player:
            raise ProtocolError("too_many_races", by="you", limit=self.config.max_open_races_per_player)
        ours = sum(where == address for _, where in self.made_by.values())
        if ours >= self.config.max_open_races_per_address:
            raise ProtocolError(
                "too_many_races", by="your address", limit=self.config.max_open_races_per_address
            )

    # ----- seats --------------------------------------------------------------------

    def check_free(self, player: Player) -> None:
        """Refuse a player who is seated in a race not over for them, or waiting in the queue."""
        if player.race is not None and player.race in self.drivers:
            raise ProtocolError("already_in_race", race=player.race)
        if player.queued is not None:
            raise ProtocolError("already_queued")

    def seat(self, driver: RaceDriver, player: Player, check: bool = True) -> None:
        """Seat ``player``. Unless ``check`` is off (matchmaking chose its group already), a
        registered player whose address already has its share of registered seats in the race
        makes it unrated (friends on one network may race each other, for no rating), said in
        the race's summary before it starts; a race created ``rated`` refuses them instead."""
        race = driver.race
        before = race.options
        if check and self.clashes([self.accounts.get(pid) for pid in race.seats], player):
            if before.rated_only:
                raise ProtocolError("same_address", race=driver.id)
            race.options = replace(before, unrated="same_address")  # before the seat: its push says so
        try:
            effects = race.seat(player.public(), now_ms())
        except ProtocolError:
            race.options = before  # full, started, not for this kind: nothing changed
            raise
        player.race = driver.id
        driver.apply(effects)

    def _rated_again(self, driver: RaceDriver, leaving: Player) -> None:
        """A created race made unrated by two accounts of one address is rated again once one of
        them leaves before the start (said in the race push the leave makes)."""
        race = driver.race
        if race.options.unrated is None:
            return
        left = [p for pid in race.seats if pid != leaving.id and (p := self.accounts.get(pid)) is not None]
        if not any(self.clashes(left, p) for p in left):
            race.options = replace(race.options, unrated=None)

    def clashes(self, seated: Sequence[Player | None], player: Player) -> bool:
        """Whether seating ``player`` beside ``seated`` puts more registered players of one address, or
        of one client install, in a race than ``rated_seats_per_address``: two accounts of one
        person could farm a rating."""
        return self._same_place(seated, player, lambda p: p.registered)

    def crowds(self, seated: Sequence[Player | None], player: Player) -> bool:
        """The same of people (guests too, bots not), for an arena's race: a second tab's guest that
        resigns at once would hand the first its points."""
        return self._same_place(seated, player, lambda p: p.kind != "bot")

    def _same_place(
        self, seated: Sequence[Player | None], player: Player, counts: Callable[[Player], bool]
    ) -> bool:
        limit = self.config.rated_seats_per_address
        if not limit or not counts(player) or not player.address:
            return False
        same = [
            p
            for p in seated
            if p is not None
            and p is not player
            and counts(p)
            and (p.address == player.address or (player.client and p.client == player.client))
        ]
        return len(same) >= limit

    def _crowded(self, driver: RaceDriver) -> bool:
        """Whether the race seated more registered players of one address or install than a rated
        race may (players this node knows: those who raced here said hello here)."""
        seated = [self.accounts.get(pid) for pid in driver.race.seats]
        return any(p is not None and self.clashes(seated, p) for p in seated)

    def join(self, player: Player, race_id: str) -> RaceDriver:
        driver = self.get(race_id, player)
        if driver.id == player.race:
            raise ProtocolError("already_in_race", race=driver.id)
        self.check_free(player)
        self.seat(driver, player)
        return driver

    async def leave(self, player: Player, race_id: str) -> None:
        driver = self.get(race_id, player)
        if player.id not in driver.race.seats:
            raise ProtocolError("not_in_race", race=race_id)
        if driver.race.state == "running":  # once the first view is dealt, leaving is a finish of its own
            driver.apply(await driver.resign(player.id, "left"))
        else:
            self._rated_again(driver, player)  # before the unseat: its race push says so
            driver.apply(driver.race.unseat(player.id, now_ms()))

    def start(self, player: Player, race_id: str) -> RaceDriver:
        driver = self.get(race_id, player)
        driver.apply(driver.race.start(player.id, now_ms()))
        return driver

    def disconnected(self, player: Player) -> None:
        if player.race is not None and player.race in self.drivers:
            driver = self.drivers[player.race]
            driver.apply(driver.race.disconnected(player.id, now_ms()))

    def resume(self, player: Player) -> None:
        """A player said hello again: back into their race, if it goes on for them."""
        if player.race is not None and player.race in self.drivers:
            driver = self.drivers[player.race]
            driver.apply(driver.race.reconnected(player.id, now_ms()))

    # ----- Hub ----------------------------------------------------------------------

    def to_player(self, player_id: str, msg: Message) -> None:
        self.audience.to_player(player_id, msg)

    def to_watchers(self, race: Race, msg: Message, players_only: bool) -> None:
        if players_only:
            for pid in race.seats:
                self.audience.to_player(pid, msg)
            return
        self.audience.to_race(race.id, race.seats, msg)
        if self.cluster is not None:
            self.cluster.emit(race.id, msg, "standings" if msg.get("type") == "standings" else None)

    def race_changed(self, race: Race, summary: Summary, players_only: bool) -> None:
        msg: RacePush = {"type": "race", "race": summary}
        if players_only:
            for pid in race.seats:
                self.audience.to_player(pid, msg)
            return
        self.audience.to_race(race.id, race.seats, msg)
        if self.cluster is not None:
            self.cluster.emit(race.id, msg, "summary")

    def freed(self, race: Race, player_id: str) -> None:
        player = self.accounts.get(player_id)
        if player is not None and player.race == race.id:
            player.race = None  # free to race again while the others play on
            if player.connection is None:  # gone, and nothing to come back to: a guest's name is free
                self.accounts.forget(player)

    def race_over(self, driver: RaceDriver, record: Record | None) -> None:
        self.drivers.pop(driver.id, None)
        if self.on_over is not None:
            self.on_over(driver, record)
        self.made_by.pop(driver.id, None)
        self.audience.race_gone(driver.id)
        owner = driver.race.options.owner
        if driver.race.options.private:  # its moves count once it is over
            for seconds in driver.move_seconds:
                self._moved(seconds)
            for kind, n in driver.later_messages.items():
                self.metrics.messages.counts[kind] = self.metrics.messages.counts.get(kind, 0) + n
            for code, n in driver.later_errors.items():
                self.metrics.errors.labels(code).inc(n)
        if record is None:  # cancelled
            until = driver.race.open_until
            if driver.race.starts_ms is None and until is not None and now_ms() >= until:
                self.metrics.races_expired.inc()
            driver._spawn(driver.forget())
            if self.cluster is not None:
                self.cluster.done(driver.id)
        else:
            self.metrics.races_finished.inc()
        if owner is not None:  # a feature's race: what it left is the feature's to keep
            self.owners[str(owner["kind"])](driver, record)
            return
        if record is None:
            return
        if "unrated" not in record and self._crowded(driver):
            # two accounts of one address seated by several nodes' shared queue, which knows no
            # addresses: unrated after all, as a created race would have been before it started
            record = cast(Record, {**record, "unrated": "same_address"})
        self.archive.keep(record, driver)
        log.info(
            "race %s finished: %s",
            driver.id,
            ", ".join(f"{r['place']}. {r['player']['name']}" for r in record["results"]),
        )

    def _moved(self, seconds: float) -> None:
        self.metrics.moves.observe(seconds)
