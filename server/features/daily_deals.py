"""The daily deal's seeds: drawn in a worker process of its own from a secret, kept in the store.

- the secret the seeds come from is the ``daily_secret`` setting, or, when that is empty, one
  made on first use and kept in the store, so every node on one store draws the same seeds;
- a day's deal is drawn (in a worker process of its own, never on the event loop nor in the
  workers of the lost search, which moves wait for) the first time it is wanted and kept in
  the store, first write winning; with ``daily_prepare`` set, a task draws today's and
  tomorrow's deals of every variant ahead of time.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor

from server.config import Config
from server.periodic import repeat
from server.store import Store, StoreDown
from server.workers import pool
from terrace.errors import ProtocolError
from terrace.race.daily import DailyDeal, draw, shift
from terrace.rules.variants import VARIANTS
from terrace.rules.versions import RULES_VERSION

log = logging.getLogger("terrace.server")

DEAL_TTL = 400 * 86_400  # a day's deal (and its reveal) is kept this long


class DailyDeals:
    def __init__(
        self, config: Config, store: Store, today: Callable[[], str], executor: Executor | None = None
    ) -> None:
        self.config = config
        self.store = store
        self.today = today
        # One worker process of its own, started on the first draw: a draw can take minutes
        # (signora), and must never hold up the lost searches that moves wait for.
        self.executor = executor
        self._own_executor = executor is None
        self._secret: bytes | None = None
        self._deals: dict[tuple[str, str], DailyDeal] = {}
        self._drawing: dict[tuple[str, str], asyncio.Future[DailyDeal]] = {}

    async def secret(self) -> bytes:
        if self._secret is None:
            if self.config.daily_secret:
                self._secret = bytes.fromhex(self.config.daily_secret)
            else:
                made = {"secret": secrets.token_hex(32)}
                self._secret = bytes.fromhex((await self.store.daily_claim("secret", made, 2**31))["secret"])
        return self._secret

    async def deal(self, variant: str, day: str) -> DailyDeal:
        """The deal of ``variant`` on ``day``: kept, or for today and tomorrow drawn now (once,
        whoever asks meanwhile). A past day's deal is only ever the one kept: a day no deal was
        published for has none (``no_daily``), and asking for old days costs no drawing."""
        key = (variant, day)
        if key in self._deals:
            return self._deals[key]
        if day < self.today():
            kept = await self.store.daily_get(f"deal:{variant}:{day}")
            if kept is None:
                raise ProtocolError("no_daily", variant=variant, day=day)
            return DailyDeal.of(kept)
        drawing = self._drawing.get(key)
        if drawing is None:
            drawing = self._drawing[key] = asyncio.ensure_future(self._draw(variant, day))
            drawing.add_done_callback(lambda _: self._drawing.pop(key, None))
        return await asyncio.shield(drawing)

    async def _draw(self, variant: str, day: str) -> DailyDeal:
        kept = await self.store.daily_get(f"deal:{variant}:{day}")
        if kept is None:
            secret = await self.secret()
            loop = asyncio.get_running_loop()
            if self.executor is None:
                self.executor = pool(1)
            drawn = await loop.run_in_executor(self.executor, draw, secret, variant, day, RULES_VERSION)
            log.info("daily %s %s: candidate %d proven winnable", variant, day, drawn.counter)
            # two nodes drawing at once draw the same deal; the first write wins all the same
            kept = await self.store.daily_claim(f"deal:{variant}:{day}", drawn.stored(), DEAL_TTL)
        deal = DailyDeal.of(kept)
        self._deals[(variant, day)] = deal
        for old in [k for k in self._deals if k[1] < shift(self.today(), -2)]:
            del self._deals[old]
        return deal

    async def prepare(self) -> None:
        """Draw today's and tomorrow's deals of every variant, every ``daily_prepare`` seconds."""
        await repeat(self._prepare, self.config.daily_prepare, what="daily deals", first=True)

    async def _prepare(self) -> None:
        today = self.today()
        for variant in VARIANTS:  # one deal not drawn does not hold up the others
            for day in (today, shift(today, 1)):
                try:
                    await self.deal(variant, day)
                except StoreDown:
                    raise  # said once for the whole outage, by repeat
                except Exception:
                    log.exception("daily %s %s not drawn yet", variant, day)

    def close(self) -> None:
        """At shutdown: stop the drawing worker (a draw under way may take minutes: it is drawn
        again next time)."""
        if self._own_executor and isinstance(self.executor, ProcessPoolExecutor):
            workers = list((getattr(self.executor, "_processes", None) or {}).values())
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None
            for worker in workers:
                worker.terminate()
