"""One player's seat in a race: their game, seq, kept answers, finish and connection, and
what follows from them alone (the answer to a move, a standings row, whether the goal is reached).

A seat's life is its own small state table (:data:`terrace.race.states.SEAT`): ``waiting``
for the deal, ``playing``, ``searching`` while a move's long lost search runs, ``finished``."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import cast

from terrace.rules.game import Game
from terrace.wire.messages import Moved, PlayerInfo, Row, View
from terrace.wire.protocol import pack, unpack
from terrace.wire.views import view_changes

from ..vocab import Finish, Goal, Status
from .places import Standing
from .rules import KEEP_ANSWERS
from .states import SEAT, Machine, SeatEvent, SeatState


@dataclass
class Pending:
    """A move played whose status waits for a long lost search: its answer is due when it settles."""

    text: str  # what the player sent
    at: int  # race time of the move
    reply: bool = True  # False: rebuilt from the log (restore), nobody waits for the answer


@dataclass(eq=False)
class Seat:
    player: PlayerInfo  # the player's public description
    game: Game | None = None
    seq: int = 0  # last applied seq
    # seq -> (the text sent, its answer's msgpack frame: the very bytes sent, made once; read it
    # with :meth:`kept`). A view is some twenty lists and dicts: kept as objects, eight per player
    # living for seconds were most of what the server's garbage collections scanned
    # (docs/BENCHMARKS.md); as bytes they are one object the collector never looks at.
    answers: OrderedDict[int, tuple[str, bytes]] = field(default_factory=OrderedDict)
    finish: Finish | None = None
    finish_ms: int | None = None  # race time of the finish
    last_home_ms: int | None = None  # race time of the last card put on a foundation
    move_times: list[int] = field(default_factory=list)  # race time of each move (a ghost replays them)
    connected: bool = True
    grace_until: int | None = None  # clock time the player must be back by
    pending: Pending | None = None
    # the view the player has last been given: at the start (or on coming back) the view itself,
    # after a move the bytes of its answer, which carries it
    view: View | bytes | None = None
    # seq -> ``view`` as it was before that move, beside its kept answer: its changes are worked
    # out only for a player who takes them (``changes``)
    before: dict[int, View | bytes | None] = field(default_factory=dict)
    machine: Machine[SeatState, SeatEvent] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # a seat made with its game (a daily ghost's) is playing from the start
        self.machine = Machine(SEAT, "waiting" if self.game is None else "playing", f"seat {self.id}")

    @property
    def id(self) -> str:
        return str(self.player["id"])

    @property
    def state(self) -> SeatState:
        return self.machine.state

    def fire(self, event: SeatEvent) -> None:
        self.machine.fire(event)

    def dealt(self, game: Game) -> None:
        self.game = game
        self.machine.fire("dealt")

    def end(self, finish: Finish, at: int) -> None:
        """The player's race is over for ``finish`` at race time ``at`` (a bug if it already was)."""
        self.machine.fire("finished")
        self.finish, self.finish_ms = finish, at
        self.grace_until = None

    @property
    def score(self) -> int:
        return self.game.score if self.game else 0

    @property
    def terrace_left(self) -> int:
        return self.game.terrace_left if self.game else 0

    @property
    def move_count(self) -> int:
        return len(self.game.moves) if self.game else 0

    def standing(self) -> Standing:
        return Standing.of(
            goal_time=self.finish_ms if self.finish == "goal" else None,
            score=self.score,
            terrace_left=self.terrace_left,
            last_home=self.last_home_ms,
        )

    def went_home(self) -> bool:
        """Whether the last move put a card on a foundation (the base card goes home too)."""
        assert self.game is not None
        return self.game.last_move_was("home", "base")

    def reached(self, goal: Goal) -> Finish | None:
        """The finish the game has come to by itself: ``goal`` reached, or ``stuck`` (lost)."""
        game = self.game
        assert game is not None
        if (goal == "terrace" and game.terrace_left == 0) or game.status == "won":
            return "goal"
        if game.status == "lost":
            return "stuck"
        return None

    def answer(self, race_id: str, goal: Goal, text: str) -> tuple[Moved, bytes]:
        """The ``moved`` answer to the move just played and its msgpack frame, kept (with
        ``text``) for resends."""
        game = self.game
        assert game is not None
        view = game.view()
        answer: Moved = {
            "type": "moved",
            "race": race_id,
            "seq": self.seq,
            "move": cast(str, game.last_move),
            "events": game.last_events,
            "view": view,
            "legal": sorted(game.legal_moves()),
            "status": cast(Status, game.status),
        }
        finish = self.reached(goal)
        if finish is not None:
            answer["finish"] = finish
        packed = pack(answer)
        self.answers[self.seq] = (text, packed)
        self.before[self.seq] = self.view
        self.view = packed
        if len(self.answers) > KEEP_ANSWERS:
            dropped, _ = self.answers.popitem(last=False)
            self.before.pop(dropped, None)
        return answer, packed

    def kept(self, seq: int) -> tuple[str, Moved, bytes] | None:
        """The text, answer and answer's frame kept for ``seq``, or None when none is kept."""
        kept = self.answers.get(seq)
        if kept is None:
            return None
        text, frame = kept
        return text, cast(Moved, unpack(frame)), frame

    def changes(self, seq: int) -> View | None:
        """What the kept move ``seq`` changed in the view (all of it when the view before is not
        known), or None when no answer to ``seq`` is kept."""
        kept = self.kept(seq)
        if kept is None:
            return None
        before = self.before.get(seq)
        if isinstance(before, bytes):  # the answer to the move before, which carries that view
            before = unpack(before)["view"]
        return view_changes(before, kept[1]["view"])

    def row(self, place: int | None, live: int | None = None) -> Row:
        """The seat's standings row: counts only, never a card; ``live``: its place now, in a
        live push (see :class:`~terrace.wire.messages.Row`)."""
        row: Row = {
            "player": self.player,
            "score": self.score,
            "terrace_left": self.terrace_left,
            "moves": self.move_count,
            "finished": self.finish is not None,
            "finish": self.finish,
            "time": self.finish_ms,
            "place": place,
            "connected": self.connected,
        }
        if live is not None:
            row["live"] = live
        return row
