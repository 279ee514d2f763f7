"""The random bot: any legal move, but never straight back the way a card came."""

from __future__ import annotations

import random
from typing import Any

from bots.bot import Bot, View
from terrace.rules.moves import Move

MAX_MOVES = 3000  # a random walk between piles can last for ever; then it resigns


class RandomBot(Bot):
    name = "random"

    def __init__(self) -> None:
        self.rng = random.Random()
        self.last = ""

    def start(self, race: dict[str, Any]) -> None:
        # Seeded by the race (the arena names each game), so a rerun plays the same moves.
        self.rng.seed(str(race.get("race")))

    def choose(self, view: View, legal: list[str]) -> str | None:
        if view.get("moves", 0) >= MAX_MOVES or not legal:
            return None
        back = str(Move.parse(self.last).reversed()) if self.last else ""
        options = [m for m in legal if m != back] or legal
        self.last = self.rng.choice(sorted(options))
        return self.last
