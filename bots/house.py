"""House bots: sample bots that wait in the matchmaking queue so nobody races alone.

Each house bot queues with ``house: true``: the server never makes a race of
house bots alone, so they sit in the queue until a person (or another bot)
arrives, fill that race, and queue again when it ends.
"""

from __future__ import annotations

import asyncio
import logging

from terrace import VARIANTS

from .bot import load_bot
from .sdk import Racer, RaceResult, SDKError

log = logging.getLogger("terrace.bot")


def parse_lineup(text: str) -> list[tuple[str, int]]:
    """``"greedy:2,planner:1"`` -> ``[("greedy", 2), ("planner", 1)]``; a bare name counts 1.

    MODULE:CLASS specs work too: ``mybots:Fast:3``. Raises ValueError on bad text.
    """
    lineup: list[tuple[str, int]] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        spec, _, count = part.rpartition(":")
        if not spec or not count.isdigit():
            spec, count = part, "1"
        if int(count) < 1:
            raise ValueError(f"house bot {part!r}: the count must be at least 1")
        load_bot(spec)  # fail now, not in the middle of the night
        lineup.append((spec, int(count)))
    if not lineup:
        raise ValueError("no house bots given")
    return lineup


async def keep_house(
    url: str,
    lineup: list[tuple[str, int]],
    variants: list[str],
    *,
    goal: str | None = None,
    races: int | None = None,
    prefix: str = "house",
) -> list[RaceResult]:
    """Run every house bot until ``races`` races each (None: until cancelled)."""
    for v in variants:
        if v not in VARIANTS:
            raise ValueError(f"unknown variant {v!r}")
    seats: list[tuple[str, str, str]] = []  # name, bot spec, variant
    for spec, count in lineup:
        short = spec.rsplit(":", 1)[-1].lower().removesuffix("bot") or "bot"
        for i in range(count):
            for v in variants:
                seats.append((f"{prefix}-{short}-{i + 1}{'-' + v if len(variants) > 1 else ''}", spec, v))
    log.info("house: %d bots waiting in the queue of %s", len(seats), ", ".join(variants))
    done = await asyncio.gather(*(_seat(url, name, spec, v, goal, races) for name, spec, v in seats))
    return [r for results in done for r in results]


async def _seat(
    url: str, name: str, spec: str, variant: str, goal: str | None, races: int | None
) -> list[RaceResult]:
    racer = Racer(load_bot(spec), url, name=name)
    results: list[RaceResult] = []
    try:
        await racer.connect()
        while races is None or len(results) < races:
            try:
                result = await racer.race(variant=variant, goal=goal, house=True)
            except SDKError as exc:
                log.error("%s: %s", name, exc)
                raise
            log.info("%s: %s", name, result)
            results.append(result)
    finally:
        await racer.close()
    return results
