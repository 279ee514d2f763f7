"""One-seat private attempts on a kept deal, against ghosts: what the daily deal and challenges share.

An attempt is a race like any other (journalled, so another node adopts it if its own dies, and a
restart on the same store resumes it, its clock honest), made private by its options: its player
alone hears of it, and to anyone else ``join``, ``spectate`` and ``record`` of it are ``no_race``;
its moves reach the metrics only once it is over; its ``finished`` keeps the seed back; ghosts race
beside the player. Its end goes to its owner (the feature named by ``owner["kind"]``), which keeps
what it left through :meth:`Attempts.keep`: known at once to the player's next request, written
in the background (retried while the store is down), and only then is the race's log dropped, so
a node that dies before that ends the attempt again from its log and writes the same values.

Every attempt marks its race id on its deal's *running board* (a sorted set in the store) with
the latest time it can end (its start, the countdown, the time limit and a margin); its end sets
the mark to 0. "Does an attempt of this deal still run?" is then one count, the same on every
node (the marks above now), and a deal is revealed only when it is 0: an attempt whose node died
for good stops counting at its latest end.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, cast

from server.config import Config
from server.players.accounts import Player
from server.races.archive import Archive, until_stored
from server.races.driver import RaceDriver, now_ms
from server.races.registry import Registry
from server.races.winnable import Drawn
from server.store import Store
from terrace.race import RaceOptions, RaceRules
from terrace.race.daily import board_row
from terrace.race.ghosts import Recorded
from terrace.wire.messages import Attempt, Record

log = logging.getLogger("terrace.server")

Message = dict[str, Any]

MARGIN_MS = 60_000  # beyond an attempt's own end: a loaded event loop, a slow meta save
PREFIX = "d"  # attempts' race ids: told apart from races in logs, never a secret

# Whether the record of an attempt (its kept index entry) may be told to anyone now.
Told = Callable[[Mapping[str, Any]], Awaitable[bool]]


class Attempts:
    def __init__(self, config: Config, store: Store, registry: Registry, archive: Archive) -> None:
        self.config = config
        self.store = store
        self.registry = registry
        self.archive = archive
        self.told: dict[str, Told] = {}  # by owner kind: whether an attempt's record is everyone's yet
        self._unsaved: dict[str, Message] = {}  # kept values on their way to the store
        self._tasks: set[asyncio.Task[None]] = set()

    async def get(self, key: str) -> Message | None:
        """A kept value: the one on its way to the store, else the store's."""
        return self._unsaved.get(key) or await self.store.daily_get(key)

    # ----- starting -----------------------------------------------------------------

    async def start(
        self,
        player: Player,
        rules: RaceRules,
        deal: Drawn,
        ghosts: Sequence[Recorded],
        owner: Mapping[str, Any],
        running: str,
        ttl: int,
        race_id: str | None = None,
        confirm: Callable[[], Awaitable[Mapping[str, Any]]] | None = None,
    ) -> RaceDriver:
        """Start ``player``'s attempt on ``deal`` (as ``race_id``, from :meth:`new_id`, if given):
        marked on the ``running`` board first (so a reveal waits for it), then raced. Refuses a
        player who is not free, with the mark given back.

        ``confirm``, once the mark is in the store, reads again what a reveal may have changed
        while the attempt was being prepared, and gives the ``owner`` to start with (or raises,
        the mark given back): a reveal that counted no running attempt before the mark is seen
        here, so no attempt counts on a deal already told."""
        race_id = race_id or self.new_id()
        self.registry.check_free(player)
        ends = now_ms() + int(1000 * (self.config.countdown + rules.time_limit)) + MARGIN_MS
        await self.store.board_put(running, race_id, ends, "set", ttl)
        try:
            if confirm is not None:
                owner = await confirm()
            # anything may have happened while the store answered; nothing is awaited from here on
            self.registry.check_free(player)
        except Exception:
            await self.store.board_put(running, race_id, 0, "set", ttl)
            raise
        options = RaceOptions(private=True, seed_kept=True, owner=dict(owner))
        driver = self.registry.new(rules, player, deal, options=options, ghosts=ghosts, race_id=race_id)
        self.registry.seat(driver, player, check=False)
        return driver

    def new_id(self) -> str:
        """A fresh attempt's race id (one a claim may name before the race is made)."""
        race_id = PREFIX + secrets.token_hex(4)
        while race_id in self.registry.drivers:
            race_id = PREFIX + secrets.token_hex(4)
        return race_id

    async def running(self, board: str) -> int:
        """How many attempts marked on ``board`` may still be running now."""
        return await self.store.board_better(board, now_ms(), True)

    async def latest_end(self, board: str) -> int | None:
        """The latest time an attempt marked on ``board`` may end, if any may still run."""
        top = await self.store.board_range(board, 0, 1, True)
        return int(top[0][1]) if top and top[0][1] > now_ms() else None

    # ----- ending -------------------------------------------------------------------

    def keep(
        self,
        driver: RaceDriver,
        running: str,
        ttl: int,
        values: Mapping[str, Message],
        then: Callable[[], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        """An attempt ended: ``values`` (key -> value) are known here at once and written to the
        store in the background; then its running mark goes to 0, ``then`` runs (a board put, say),
        and its log is dropped. The same on a replay after a crash: every write is idempotent."""
        self._unsaved.update(values)
        self._spawn(self._keep(driver, running, ttl, dict(values), then))

    async def _keep(
        self,
        driver: RaceDriver,
        running: str,
        ttl: int,
        values: Mapping[str, Message],
        then: Callable[[], Coroutine[Any, Any, None]] | None,
    ) -> None:
        race_id = driver.id
        try:
            for key, value in values.items():
                await until_stored(f"attempt {key}", lambda k=key, v=value: self.store.daily_put(k, v, ttl))  # type: ignore[misc]
        finally:
            for key in values:
                self._unsaved.pop(key, None)
        if then is not None:
            await then()
        await until_stored(
            f"attempt {race_id} done", lambda: self.store.board_put(running, race_id, 0, "set", ttl)
        )
        await self.archive.release(driver)

    def given_back(self, driver: RaceDriver, running: str, ttl: int, claim: str | None) -> None:
        """An attempt cancelled before its first view (nothing was seen): its running mark goes to 0
        and its ``claim`` (the key of the player's one attempt, if it was the rated one) is freed."""

        async def give_back() -> None:
            if claim is not None:
                await until_stored(f"attempt {claim}", lambda: self.store.daily_release(claim, driver.id))
            await until_stored(
                f"attempt {driver.id} done", lambda: self.store.board_put(running, driver.id, 0, "set", ttl)
            )

        self._spawn(give_back())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("an attempt's end was not kept", exc_info=exc)

    async def drain(self) -> None:
        """At shutdown: let attempts just ended reach the store."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)

    # ----- records ------------------------------------------------------------------

    async def record(self, race_id: str, player: Player | None) -> Record | None:
        """An attempt's record: anyone's once its owner says it may be told (its deal revealed);
        before that its own player's only, without the seed and the solution. None when
        ``race_id`` is no attempt kept here (or not the asker's yet)."""
        where = await self.get(f"race:{race_id}")
        if where is None:
            return None
        kept = await self.get(str(where["key"]))
        if kept is None or kept.get("race") != race_id or "record" not in kept:
            return None
        record = cast(Record, kept["record"])
        told = self.told.get(str(where.get("owner", {}).get("kind")))
        if told is not None and await told(where["owner"]):
            return record
        if player is not None and player.id == where["player"]:
            kept_back: Record = {**record}
            kept_back.pop("seed", None)
            kept_back.pop("solution", None)
            return kept_back
        return None


def own_attempt(attempt: Mapping[str, Any] | None) -> Attempt:
    """The asker's own kept attempt as the ``daily`` and ``challenge`` answers tell it."""
    if attempt is None:
        return {"state": "none"}
    if attempt.get("state") != "finished":
        return {"state": "playing", "race": attempt.get("race")}
    row = board_row(0, attempt["player"], float(attempt["value"]))
    own: Attempt = {
        "state": "finished",
        "race": attempt["race"],
        "time": row["time"],
        "score": row["score"],
        "goal": row["goal"],
    }
    if "held" in attempt:  # kept off the board (server.players.fairplay): why
        own["held"] = attempt["held"]
    return own
