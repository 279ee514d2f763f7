"""Ghosts: earlier attempts on the same deal, replayed at their recorded pace beside a player.

A race given ghosts (a daily attempt, a challenge's) shows each as a standings row (counts
only, like a seat's) that moves when the earlier attempt moved, and places the player among
them by the one placing rule of :mod:`terrace.race.places`. A finished seat becomes a ghost for
later players through :func:`recorded`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from terrace.race.seat import Seat
from terrace.race.standings import ordered
from terrace.rules.replay import new_game
from terrace.vocab import Goal
from terrace.wire.messages import PlayerInfo

END = 2**62  # a race time past every recorded move: the whole attempt


@dataclass(frozen=True)
class Recorded:
    """What a ghost replays: an earlier attempt's player, its moves with their race times, and
    how and when it finished."""

    player: PlayerInfo
    moves: list[tuple[int, str]]
    finish: str
    finish_ms: int

    def stored(self) -> dict[str, Any]:
        return {
            "player": dict(self.player),
            "moves": [[t, m] for t, m in self.moves],
            "finish": self.finish,
            "finish_ms": self.finish_ms,
        }

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Recorded:
        return cls(
            data["player"],
            [(int(t), str(m)) for t, m in data["moves"]],
            str(data["finish"]),
            int(data["finish_ms"]),
        )


def recorded(seat: Seat) -> Recorded | None:
    """A finished seat's attempt, as a ghost for later players (None while it plays on)."""
    if seat.game is None or seat.finish is None or seat.finish_ms is None:
        return None
    return Recorded(
        seat.player, list(zip(seat.move_times, seat.game.moves, strict=False)), seat.finish, seat.finish_ms
    )


class Ghost:
    """An earlier attempt replayed move by move at its recorded race times; what it shows is its
    standings row (counts only), as a seat of the race would."""

    def __init__(self, recorded: Recorded, variant: str, seed: bytes, rules_version: int, goal: Goal) -> None:
        self.recorded = recorded
        player: dict[str, Any] = {**recorded.player, "ghost": True}
        player["id"] = f"ghost:{recorded.player['id']}"
        self.seat = Seat(player, game=new_game(variant, seed, rules_version=rules_version))  # type: ignore[arg-type]
        self.goal = goal
        self._next = 0

    def next_at(self) -> int | None:
        """Race time of the ghost's next move or finish; None once it has finished."""
        if self.seat.finish is not None:
            return None
        if self._next < len(self.recorded.moves):
            return min(self.recorded.moves[self._next][0], self.recorded.finish_ms)
        return self.recorded.finish_ms

    def advance(self, race_time: int) -> bool:
        """Play what the attempt had played by ``race_time``; whether anything changed."""
        seat, moves = self.seat, self.recorded.moves
        assert seat.game is not None
        changed = False
        while seat.finish is None and self._next < len(moves) and moves[self._next][0] <= race_time:
            at, move = moves[self._next]
            seat.game.play(move)
            self._next += 1
            changed = True
            if seat.went_home():
                seat.last_home_ms = at
            reached = seat.reached(self.goal)
            if reached is not None:
                seat.end(reached, at)
        if seat.finish is None and self.recorded.finish_ms <= race_time and self._next >= len(moves):
            seat.end(self.recorded.finish, self.recorded.finish_ms)  # type: ignore[arg-type]
            changed = True
        return changed


class Ghosts:
    """A race's ghosts: none until the first view (they start with the player), then advanced
    on the race's clock."""

    def __init__(self, recorded: Sequence[Recorded]) -> None:
        self.recorded = list(recorded)
        self.running: list[Ghost] = []

    def deal(self, variant: str, seed: bytes, rules_version: int, goal: Goal) -> None:
        self.running = [Ghost(r, variant, seed, rules_version, goal) for r in self.recorded]

    def next_at(self) -> int | None:
        """Race time of the next ghost move or finish, if any is due."""
        return min((t for g in self.running if (t := g.next_at()) is not None), default=None)

    def advance(self, race_time: int) -> bool:
        # every ghost advances (a list, not any(): all of them, not up to the first that moved)
        return any([g.advance(race_time) for g in self.running])

    def seats(self) -> list[Seat]:
        return [g.seat for g in self.running]

    def place(self, seats: Iterable[Seat]) -> int:
        """The place of the first of ``seats`` among the ghosts' whole attempts (1 with none)."""
        self.advance(END)
        mine = list(seats)
        return next(p for s, p in ordered([*mine, *self.seats()]) if s is mine[0])
