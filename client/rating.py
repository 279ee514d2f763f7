"""The rating change a rated race made, for its end screen: read from the player's history
(``player``), which the server writes a moment after the race ends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from terrace.wire.conversation import Message

WITHIN = 5.0  # seconds the end screen waits for the race to reach the player's history
EVERY = 0.25


async def rating_change(
    ask: Callable[..., Awaitable[Message]], me: str, race: str, *, within: float = WITHIN
) -> str | None:
    """``Rating (humans, terrace): 3.81 → 5.02 (+1.21)`` for ``me``'s rated race ``race``, or
    None if it is not in the history within ``within`` seconds (the caller says nothing then)."""
    deadline = time.monotonic() + within
    while True:
        answer = await ask("player", name=me)
        history: list[dict[str, Any]] = (
            list(answer.get("history") or []) if answer["type"] == "player" else []
        )
        at = next((i for i, h in enumerate(history) if h.get("race") == race), None)
        if at is not None:
            break
        if answer["type"] != "player" or time.monotonic() > deadline:
            return None
        await asyncio.sleep(EVERY)
    now = history[at]
    before = next(  # newest first: the same rating's entry before this race
        (
            h
            for h in history[at + 1 :]
            if (h.get("pool"), h.get("variant")) == (now.get("pool"), now.get("variant"))
        ),
        None,
    )
    which = f"Rating ({now.get('pool')}, {now.get('variant')}): "
    after = float(now["rating"])
    if before is None:
        return which + f"{after:.2f} after your first rated race in it."
    was = float(before["rating"])
    return which + f"{was:.2f} → {after:.2f} ({after - was:+.2f})."
