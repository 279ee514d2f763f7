"""What a bot is, and how to find one by name.

A bot author writes one class whose ``choose(view, legal)`` returns a move
(or an awaitable of one). The SDK, the arena and the house all make a fresh
instance for every game, so a bot may keep per-game state in ``self``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

View = dict[str, Any]
Choice = str | None  # None: the bot has nothing it wants to play (the SDK resigns)

# Short names for the sample bots, usable wherever MODULE:CLASS is.
SAMPLES = {
    "random": "bots.samples.random_bot:RandomBot",
    "greedy": "bots.samples.greedy:GreedyBot",
    "planner": "bots.samples.planner:PlannerBot",
    "sampler": "bots.samples.sampler:SamplerBot",
}


class Bot:
    """Subclass and override :meth:`choose`; the other hooks are optional."""

    name = "bot"

    def start(self, race: dict[str, Any]) -> None:
        """Called once before the first move: ``race`` has ``race``, ``variant``, ``goal`` and ``seed`` (offline)."""

    def choose(self, view: View, legal: list[str]) -> Choice | Awaitable[Choice]:
        """Return one of ``legal`` (or any notation the engine reads), or None to resign."""
        raise NotImplementedError

    def finish(self, result: dict[str, Any]) -> None:
        """Called once when the game is over for this bot, with its result."""


BotFactory = Callable[[], Bot]


def load_bot(spec: str) -> BotFactory:
    """The bot class named by ``MODULE:CLASS`` or by a sample's short name (``greedy``).

    MODULE is imported as Python would, or from the current directory (``mybot:MyBot``
    for ./mybot.py). Raises ValueError with a one-line reason.
    """
    target = SAMPLES.get(spec, spec)
    module_name, sep, class_name = target.partition(":")
    if not sep or not module_name or not class_name:
        raise ValueError(f"bot {spec!r}: expected MODULE:CLASS or one of {', '.join(SAMPLES)}")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # console scripts do not look in the current directory: let them
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"bot {spec!r}: cannot import {module_name}: {exc}") from exc
    factory = getattr(module, class_name, None)
    if not callable(factory):
        raise ValueError(f"bot {spec!r}: {module_name} has no class {class_name}")
    return factory  # type: ignore[no-any-return]
