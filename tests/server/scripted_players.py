"""A simple view-only playing policy for race tests, and a loop that plays a race with it.

The policy sees only what the server sends (the view and the legal moves), like a
real client: cards to a foundation first, then turning or dealing the stock (or
the Signora recycle, the Louis redeal), then other moves that do not undo the last one. After too many moves, or
too many shuffle moves in a row, it gives up and the player resigns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .wire import Client, Message

# Foundations: F1..F8 in the Terrace family, Ac..Ks in Louis.
_FOUNDATION = re.compile(r"F[1-8]|[AK][cdhs]")


def _home(move: str) -> bool:
    return bool(_FOUNDATION.fullmatch(move.partition("-")[2]))


def _turn(move: str) -> bool:
    """Turning or dealing the stock, the Signora recycle, the Louis redeal."""
    return move.startswith("S-") or move in ("W-S", "redeal")


def _undo(move: str) -> str:
    source, _, target = move.partition("-")
    return f"{target}-{source}"


@dataclass
class Policy:
    """Deterministic given the legal moves; ``pick`` shifts the choice among equals
    (so players with different ``pick`` usually choose different bases)."""

    pick: int = 0
    max_moves: int = 400
    max_shuffles: int = 3
    played: list[str] = field(default_factory=list)
    shuffles: int = 0

    def choose(self, view: Message, legal: list[str]) -> str | None:
        """The next move, or None to resign."""
        if len(self.played) >= self.max_moves or not legal:
            return None
        ordered = sorted(legal)
        home = [m for m in ordered if _home(m)]
        turns = [m for m in ordered if _turn(m)]
        if home or turns:
            group = home or turns
            self.shuffles = 0
            return group[self.pick % len(group)]
        last = self.played[-1] if self.played else None
        others = [m for m in ordered if last is None or m != _undo(last)]
        if not others or self.shuffles >= self.max_shuffles:
            return None
        self.shuffles += 1
        return others[self.pick % len(others)]


@dataclass
class Outcome:
    """How one player's race went, as that player saw it."""

    answers: list[Message]  # every ``moved`` answer, in order
    view: dict[str, Any]  # the last view the player was sent
    finish: str  # the ``finish`` of the last answer, or "resigned"


async def play_out(client: Client, race: str, started: Message, policy: Policy) -> Outcome:
    """Play ``policy`` from the ``started`` message until the answer carries a finish, or resign."""
    view, legal, seq = started["view"], started["legal"], started["seq"]
    answers: list[Message] = []
    while True:
        move = policy.choose(view, legal)
        if move is None:
            answer = await client.request("resign", race=race)
            assert answer == {"type": "resigned", "race": race, "re": answer["re"]}, answer
            return Outcome(answers, view, "resigned")
        seq += 1
        answer = await client.request("move", race=race, seq=seq, move=move)
        assert answer["type"] == "moved", answer
        assert answer["seq"] == seq and answer["move"] == move, answer
        policy.played.append(move)
        answers.append(answer)
        view, legal = answer["view"], answer["legal"]
        if answer.get("finish") is not None:
            return Outcome(answers, view, answer["finish"])
