"""Offline practice: the play screen's :class:`~client.table.Table` over the rules engine, with undo and hints.

``terrace practice --variant V [--deal N]`` plays a numbered deal (a random
one without ``--deal``) with no server and no clock limit. Moves are typed as
the engine reads them (``w3``, ``4f``, ``tf``), plus ``d`` for the stock.
Commands: ``undo`` takes back the last move, ``hint`` asks the planner sample
bot (imported by name at run time, so the client never depends on ``bots``;
without it the hint lists the legal moves), ``restart`` deals the same deal again.
"""

from __future__ import annotations

import importlib
import inspect
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import terrace
from terrace import IllegalMove
from terrace.rules.news import news
from terrace.wire.messages import Row

from .render import plural
from .table import Outcome, View

PLANNER = "bots.samples.planner"  # the strongest sample bot; a runtime import by name
MAX_DEAL = 1_000_000


class PracticeTable:
    """One practice game of ``variant`` on numbered deal ``deal`` (None: a random deal 1..1,000,000)."""

    def __init__(self, variant: str, deal: int | None = None) -> None:
        if variant not in terrace.VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(terrace.VARIANTS)}")
        self.variant = variant
        self.deal = deal if deal is not None else random.SystemRandom().randint(1, MAX_DEAL)
        self.title = f"practice – {variant}, deal {self.deal}"
        self._restart()

    def _restart(self) -> None:
        self.game = terrace.new_game(self.variant, self.deal)
        self._started = time.monotonic()
        self._planner: Any = None  # made on the first hint, after every undo or restart
        self._recycled: list[str] = []  # signora: the waste as it was turned over (the second pass's order)

    # ----- the Table protocol ---------------------------------------------------------

    def view(self) -> View:
        return self.game.view()

    def legal(self) -> list[str]:
        return sorted(self.game.legal_moves())

    def standings(self) -> list[Row]:
        return []

    def clock(self) -> str | None:
        """Time since the deal (practice has no limit), ``mm:ss``."""
        seconds = int(time.monotonic() - self._started)
        return f"{seconds // 60:02d}:{seconds % 60:02d}"

    def over(self) -> str | None:
        """Only a won game ends practice: a lost one stays open for ``undo`` and ``restart``."""
        if self.game.status == "won":
            return f"You won deal {self.deal}: all 104 cards home in {len(self.game.moves)} moves."
        return None

    def lost(self) -> str | None:
        """How the game was lost, if it was."""
        if self.game.status != "lost":
            return None
        left = self.game.terrace_left
        terrace_text = f", {left} left in the terrace" if left else ""
        return f"No card can go home any more: the game is lost with {plural(self.game.score, 'card')} home{terrace_text}."

    async def move(self, text: str) -> Outcome:
        """Play ``text`` (the engine's lenient notation, or ``d`` for the stock)."""
        try:
            canonical = self.game.resolve(text.strip())
        except IllegalMove as exc:
            return Outcome(ok=False, message=exc.message)
        waste = list(self.game.view()["waste"]) if canonical == "W-S" else None
        self.game.play(canonical)
        if waste is not None:
            self._remember_recycle(waste)
        events = list(self.game.last_events)
        message = self.lost() or news(events)
        if self.lost():
            message += " Type undo to take moves back, or restart."
        return Outcome(ok=True, move=canonical, message=message, events=events)

    def commands(self) -> dict[str, Callable[[], Awaitable[str]]]:
        return {"undo": self.undo, "hint": self.hint, "restart": self.restart}

    # ----- commands -------------------------------------------------------------------

    async def undo(self) -> str:
        """Take back the last move: the game is replayed without it."""
        moves = self.game.moves
        if not moves:
            return "Nothing to undo."
        started = self._started
        self._restart()
        self._started = started  # the clock goes on
        for move in moves[:-1]:
            waste = list(self.game.view()["waste"]) if move == "W-S" else None
            self.game.play(move)
            if waste is not None:
                self._remember_recycle(waste)
        return f"Took back {moves[-1]}."

    async def restart(self) -> str:
        self._restart()
        return f"Dealt deal {self.deal} again."

    async def hint(self) -> str:
        """The planner's move for this position, or the legal moves when it is not installed."""
        legal = self.legal()
        if not legal:
            return "No legal moves: the game is over."
        planner = self._hint_bot()
        if planner is None:
            return "Legal moves: " + " ".join(legal)
        try:
            choice = planner.choose(self.game.view(), legal)
            if inspect.isawaitable(choice):
                choice = await choice
            if choice is None:
                return "Hint: nothing helps any more. Legal moves: " + " ".join(legal)
            return f"Hint: {self.game.resolve(str(choice))}"
        except Exception:  # a hint must never end the game: fall back on the list
            return "Legal moves: " + " ".join(legal)

    # ----- helpers --------------------------------------------------------------------

    def _remember_recycle(self, waste: list[str]) -> None:
        """Signora's second pass deals the waste again in order: the player saw it, so the hint may know it."""
        self._recycled = waste
        if self._planner is not None and hasattr(self._planner, "second_pass"):
            self._planner.second_pass = list(waste)

    def _hint_bot(self) -> Any:
        if self._planner is None:
            try:
                module = importlib.import_module(PLANNER)
                planner = module.PlannerBot()
                planner.start(
                    {"race": f"practice-{self.variant}-{self.deal}", "variant": self.variant, "goal": "clear"}
                )
            except Exception:  # not installed, or a bot that cannot start: hints list the moves
                return None
            if self._recycled and hasattr(planner, "second_pass"):
                planner.second_pass = list(self._recycled)
            self._planner = planner
        return self._planner
