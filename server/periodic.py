"""Work the server does again and again in the background, for as long as it runs: one helper.

Every periodic job (watching the store's health, renewing leases and adopting races, hearing
the other nodes, matching the shared queue, drawing the daily deals, tending arenas, timing
the event loop, collecting young garbage) is a :func:`repeat` of one awaitable step. The
helper keeps going after any error, so one failed step never ends the job; it logs a store
outage once, when the job first meets it, and once more when the store is back, rather than
once a step (a job running four times a second filled the log in a minute of outage); it
logs any other error with its traceback; and it stops, and only stops, when its task is
cancelled (the server stopping).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from server.store import StoreDown

log = logging.getLogger("terrace.server")


async def repeat(
    step: Callable[[], Awaitable[object]],
    every: float,
    *,
    what: str,
    first: bool = False,
    wake: asyncio.Event | None = None,
    outage: int = logging.WARNING,
    logger: logging.Logger = log,
) -> None:
    """Run ``step()``, then wait ``every`` seconds, for ever (until cancelled).

    ``first``: run the first step at once rather than after the first wait. ``wake``: an
    event that ends a wait early (it is cleared as the step starts). ``what`` names the job
    in the log ("arenas", "leases"); ``outage`` is the level of the line that says the store
    is down.
    """
    down = False
    if not first:
        await _wait(every, wake)
    while True:
        try:
            await step()
        except StoreDown as exc:
            if not down:
                logger.log(outage, "%s: store down (%s); trying again every %g s", what, exc, every)
            down = True
        except Exception:
            logger.exception("%s failed; trying again in %g s", what, every)
        else:
            if down:
                logger.info("%s: store back", what)
            down = False
        await _wait(every, wake)


async def _wait(seconds: float, wake: asyncio.Event | None) -> None:
    if wake is None:
        await asyncio.sleep(seconds)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(wake.wait(), seconds)
    wake.clear()
