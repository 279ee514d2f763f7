"""One race as a pure state machine: seats, countdown, clock, moves, resends, grace, finishes, record.

Sans-I/O, like h11: plain data in, plain data out, and the time passed in as
``now`` (milliseconds on one clock the caller keeps; wall-clock Unix ms in the
server). Every method that changes the race returns the :mod:`effects <terrace.race.effects>`
the world must apply, in order; methods raise :class:`~terrace.errors.ProtocolError`
and change nothing when a request is refused. States and their steps are in
:mod:`terrace.race.states`; places come from :mod:`terrace.race.places`.

Moves and resignations go in two steps so a durable race can log them first:
``check_move`` says what to log (or gives back a kept answer for a resent ``seq``),
and ``apply_move`` plays what was logged. A move whose lost search is long returns a
:class:`~terrace.race.effects.Search` instead of its answer; ``settled`` finishes it.
Rebuilding a race from its meta and log after a restart is :mod:`terrace.race.restore`.

Each entry point fires a named event through the race's table (:data:`terrace.race.states.RACE`)
once the request is known to be a player's right (a refusal is a ProtocolError and fires
nothing), and each seat's progress goes through its own (:data:`~terrace.race.states.SEAT`).

Kept as one module (about 520 lines): every method is one step of the same state
machine over the same seats; the parts that are not (states, seats, standings,
places, reports, restore) have modules of their own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from terrace.rules.deal import commitment
from terrace.rules.game import Game, Move
from terrace.rules.replay import new_game
from terrace.wire.messages import Finished, PlayerInfo, Result, View

from ..errors import IllegalMove, ProtocolError
from ..vocab import Finish, Quit
from .effects import (
    Broadcast,
    Changed,
    Effect,
    Freed,
    Log,
    LogEntry,
    Message,
    Over,
    Reply,
    SaveMeta,
    Search,
    Send,
    Wake,
)
from .ghosts import Ghosts, Recorded
from .reports import Reports
from .rules import PLAIN, RaceOptions, RaceRules, Timing
from .seat import Pending, Seat
from .standings import results
from .states import RACE, Machine, RaceEvent, RacePhase


class Race(Reports):
    """One race; see the module docstring. Not thread-safe, never blocks."""

    def __init__(
        self,
        race_id: str,
        rules: RaceRules,
        *,
        seed: bytes,
        now: int,
        timing: Timing | None = None,
        creator: PlayerInfo | None = None,
        durable: bool = False,
        solution: Sequence[str] | None = None,
        options: RaceOptions = PLAIN,
        ghosts: Sequence[Recorded] = (),
    ) -> None:
        self.id = race_id
        self.rules = rules
        self.timing = timing or Timing()
        self.creator = creator
        self.durable = durable  # the meta is saved before the first view, moves are logged first
        self.options = options
        self.ghosts = Ghosts(ghosts)  # earlier attempts shown beside the player (none in most races)
        self.machine: Machine[RacePhase, RaceEvent] = Machine(RACE, "open", f"race {race_id}")
        self.seats: dict[str, Seat] = {}  # player id -> seat, in joining order
        self.created_ms = now
        self.starts_ms: int | None = None  # clock time of the first view, once counting down
        self.started_ms: int | None = None  # clock time of the first view
        self.ended_ms: int | None = None
        self._seed = seed  # secret until the race ends
        # a winnable-only race: the solver's winning line on the seed, secret with it
        self.solution = None if solution is None else list(solution)
        self.commitment = commitment(seed)
        self._standings_due: int | None = None
        self._woken_for: int | None = None  # the last Wake reported
        self.results: list[Result] = []

    @property
    def phase(self) -> RacePhase:
        """Where the race is in its own table (:data:`~terrace.race.states.RACE`)."""
        return self.machine.state

    def opened(self) -> list[Effect]:
        """The race is made: the lobby hears of it, and (with ``Timing.open_for``) its expiry is due."""
        return self._wake([self._changed()])

    # ----- seats --------------------------------------------------------------------

    def seat(self, player: PlayerInfo, now: int) -> list[Effect]:
        """Seat ``player`` (its public description) in an open race."""
        if not self.machine.allows("join"):
            raise ProtocolError("race_started", race=self.id)
        if len(self.seats) >= self.rules.seats:
            raise ProtocolError("race_full", race=self.id)
        if not self.rules.admits(player["kind"]):
            raise ProtocolError("entry_refused", race=self.id, entry=self.rules.entry)
        self.machine.fire("join")
        self.seats[str(player["id"])] = Seat(player)
        if self.rules.start == "full" and len(self.seats) == self.rules.seats:
            return self.begin(now)
        return self._wake([self._changed()])

    def unseat(self, player_id: str, now: int) -> list[Effect]:
        """Leave before the first view (once it is dealt, leaving is resigning)."""
        if player_id not in self.seats:
            raise ProtocolError("not_in_race", race=self.id)
        self.machine.fire("leave" if len(self.seats) > 1 else "empty")
        del self.seats[player_id]
        effects: list[Effect] = [Freed(player_id)]
        if self.creator is not None and self.creator["id"] == player_id and self.seats:
            self.creator = next(iter(self.seats.values())).player
        if not self.seats:
            self._standings_due = None
            return self._wake([*effects, self._changed(), Over(None)])
        return self._wake([*effects, self._changed()])

    def start(self, player_id: str, now: int) -> list[Effect]:
        """The creator starts the countdown."""
        if self.creator is None or self.creator["id"] != player_id:
            raise ProtocolError("not_creator", race=self.id)
        if self.state == "open" and not self.seats:  # made with join: false, nobody in it yet
            raise ProtocolError("race_empty", race=self.id)
        return self.begin(now)

    def begin(self, now: int) -> list[Effect]:
        """Start the countdown; the first view goes out when it ends (see :meth:`tick`)."""
        if not self.machine.allows("begin"):
            raise ProtocolError("race_started", race=self.id)
        self.machine.fire("begin")
        self.starts_ms = now + self.timing.countdown
        return self._wake([self._changed()])

    # ----- time ---------------------------------------------------------------------

    def next_wake(self) -> int | None:
        """The clock time something is due: an unstarted race's expiry, the countdown's end,
        standings, a grace, the time limit."""
        phase = self.machine.state
        if phase == "running":  # after every move: a plain loop, no list
            due = self.ends_ms
            assert due is not None
            for seat in self.seats.values():
                grace = seat.grace_until
                if grace is not None and grace < due:
                    due = grace
            standings = self._standings_due
            if standings is not None and standings < due:
                due = standings
            if self.ghosts.recorded and (ghost := self.ghosts.next_at()) is not None:
                assert self.started_ms is not None
                due = min(due, self.started_ms + ghost)
            return due
        if phase == "open":
            return self.open_until
        if phase == "countdown":
            return self.starts_ms
        return None

    def tick(self, now: int) -> list[Effect]:
        """Do what is due by ``now``: each due thing fires its event (``expire``; ``deal``,
        ``save_meta`` or ``empty``; ``time_up``; ``grace_over``)."""
        effects: list[Effect] = []
        if self.phase == "open" and self.open_until is not None and now >= self.open_until:
            effects += self._expire()
        if self.phase == "countdown" and self.starts_ms is not None and now >= self.starts_ms:
            effects += self._countdown_over(now)
        if self.state == "running":
            assert self.ends_ms is not None
            if self.ghosts.recorded and self.ghosts.advance(self.race_time(min(now, self.ends_ms))):
                self._standings_soon(now)
            if now >= self.ends_ms:
                effects += self._time_up()
            else:
                for seat in list(self.seats.values()):
                    if seat.grace_until is not None and now >= seat.grace_until and self.state == "running":
                        effects += self._away_too_long(seat, now)
                if self.state == "running" and self._standings_due is not None and now >= self._standings_due:
                    effects.append(self._push_standings())
        return self._wake(effects)

    @property
    def open_until(self) -> int | None:
        """When the race is cancelled if it has not started by then (None: never)."""
        return None if self.timing.open_for is None else self.created_ms + self.timing.open_for

    def _expire(self) -> list[Effect]:
        """Nobody started it in time: cancelled, and its players free to race elsewhere."""
        self.machine.fire("expire")
        effects: list[Effect] = [Freed(pid) for pid in self.seats]
        return [*effects, self._changed(), Over(None)]

    def _countdown_over(self, now: int) -> list[Effect]:
        if not self.seats:
            self.machine.fire("empty")
            return [self._changed(), Over(None)]
        self.started_ms = now  # the race clock starts here, whatever the store takes
        if self.durable:
            self.machine.fire("save_meta")
            return [SaveMeta(self.meta())]
        self.machine.fire("deal")
        return self._deal(now)

    def meta_saved(self, meta: Mapping[str, Any], now: int) -> list[Effect]:
        """The :class:`SaveMeta` asked for is saved (the driver retries while the store is down)."""
        if self.phase != "saving":
            return []  # cancelled meanwhile
        if not self.seats:
            self.machine.fire("empty")
            return self._wake([self._changed(), Over(None)])
        if [p["id"] for p in meta["players"]] != list(self.seats):
            self.machine.fire("save_meta")
            self.started_ms = now  # someone left while it was on its way: save it again without them
            return [SaveMeta(self.meta())]
        self.machine.fire("meta_saved")
        return self._wake(self._deal(now))

    def _deal(self, now: int) -> list[Effect]:
        """The first view to every seat (the race has just moved to ``running``)."""
        self._deal_games()
        first = next(iter(self.seats.values())).game
        assert first is not None
        view, legal = first.view(), sorted(first.legal_moves())  # the same for every seat
        effects: list[Effect] = [
            Send(s.id, self._started(view, legal, 0, False, now)) for s in self.seats.values()
        ]
        for seat in self.seats.values():
            seat.view = view
            if not seat.connected:
                seat.grace_until = now + self.timing.grace
        effects += [self._changed(), self._push_standings()]
        return effects

    def _deal_games(self) -> None:
        first: Game | None = None
        for seat in self.seats.values():
            seat.dealt(new_game(self.rules.variant, self._seed, rules_version=self.rules.rules_version))
            assert seat.game is not None
            if first is None:
                first = seat.game
            else:  # seats meet the same positions (identical bots, above all): search each once
                seat.game.share_searches(first)
        r = self.rules  # ghosts start with the first view, never before
        self.ghosts.deal(r.variant, self._seed, r.rules_version, r.goal)

    # ----- coming and going ---------------------------------------------------------

    def reconnected(self, player_id: str, now: int) -> list[Effect]:
        """A seated player is back: what they need to carry on (view, legal moves, standings)."""
        seat = self.seats.get(player_id)
        if seat is None:
            return []
        self.machine.fire("reconnect")
        seat.grace_until = None
        was_away, seat.connected = not seat.connected, True
        if self.state != "running":
            return self._wake([Send(player_id, {"type": "race", "race": self.summary()})])
        effects: list[Effect] = []
        if seat.finish is None and seat.game is not None:
            view = seat.view = seat.game.view()
            started = self._started(view, sorted(seat.game.legal_moves()), seat.seq, True, now)
            effects.append(Send(player_id, started))
        effects.append(Send(player_id, self.standings()))
        if was_away:
            self._standings_soon(now)
        return self._wake(effects)

    def disconnected(self, player_id: str, now: int) -> list[Effect]:
        """A seated player's connection closed: an open race unseats them; a running one waits
        out the grace period."""
        seat = self.seats.get(player_id)
        if seat is None:
            return []
        if self.state == "open":
            return self.unseat(player_id, now)
        self.machine.fire("disconnect")
        seat.connected = False
        if self.state == "running" and seat.finish is None:
            seat.grace_until = now + self.timing.grace
            self._standings_soon(now)
        return self._wake([])

    def _away_too_long(self, seat: Seat, now: int) -> list[Effect]:
        seat.grace_until = None
        if seat.connected or seat.finish is not None:
            return []
        self.machine.fire("grace_over")
        at = self.race_time(now)
        effects: list[Effect] = []
        if self.durable:  # best effort: without it, a restart gives a fresh grace period
            effects.append(Log({"p": seat.id, "f": "disconnected", "t": at}))
        return effects + self._finish(seat, "disconnected", at)

    # ----- moves --------------------------------------------------------------------

    def check_move(self, player_id: str, seq: int, text: str, now: int) -> Reply | LogEntry:
        """Step one of a move: a kept answer for a resent ``seq`` (a :class:`Reply`), or the
        log entry to append before :meth:`apply_move` plays it. Raises ProtocolError."""
        seat = self._running_seat(player_id, now, "move")
        kept = seat.kept(seq)
        if kept is not None:
            first_text, first, frame = kept
            if text != first_text and text != first["move"]:
                raise ProtocolError("seq_conflict", seq=seq, move=first_text)
            return Reply(first, frame)
        if seat.finish is not None:
            raise ProtocolError("player_finished", race=self.id)
        if seat.pending is not None or seq != seat.seq + 1:
            raise ProtocolError("bad_seq", expected=seat.seq + 1, seq=seq)
        assert seat.game is not None
        try:
            move = seat.game.resolve(text)  # refuse an illegal move before it reaches the log
        except IllegalMove as e:
            raise ProtocolError("illegal_move", e.message, reason=e.code, move=text) from None
        entry: LogEntry = {"p": player_id, "seq": seq, "m": move, "t": self.race_time(now)}
        if text != move:  # so a resend of the same text matches after a restart
            entry["x"] = text
        return entry

    def apply_move(self, entry: LogEntry, now: int) -> list[Effect]:
        """Step two: play the move ``check_move`` gave (and the log now holds). Refused
        (nothing changes) if the race or the player ended, or the seq moved on, meanwhile."""
        seat = self._running_seat(str(entry["p"]), now, "move")
        if seat.finish is not None:
            raise ProtocolError("player_finished", race=self.id)
        if seat.pending is not None or entry["seq"] != seat.seq + 1:
            raise ProtocolError("bad_seq", expected=seat.seq + 1, seq=entry["seq"])
        game = seat.game
        assert game is not None
        game.play(entry["m"])
        self.machine.fire("move")
        seat.seq = entry["seq"]
        seat.move_times.append(int(entry["t"]))
        if seat.went_home():
            seat.last_home_ms = entry["t"]
        text = str(entry.get("x") or entry["m"])
        if game.quick_status() is None:  # a long search: the driver runs it off the event loop
            seat.fire("searching")
            seat.pending = Pending(text, entry["t"])
            return self._wake([Search(seat.id, game.copy(), game.position_key())])
        seat.fire("moved")
        return self._wake(self._moved(seat, text, entry["t"]))

    def settled(self, player_id: str, status: str, now: int, path: Sequence[Move] = ()) -> list[Effect]:
        """The long lost search of ``player_id``'s position found ``status`` (and ``path``, the
        shuffle moves it found to a progress move: a hint for the next searches, see Game.settle)."""
        seat = self.seats.get(player_id)
        if seat is None or seat.pending is None or seat.game is None:
            return []
        self.machine.fire("settle")
        seat.fire("settled")
        pending, seat.pending = seat.pending, None
        seat.game.settle(status, path)
        if not pending.reply:  # rebuilt from the log: kept for resends, and the race goes on later
            seat.answer(self.id, self.rules.goal, pending.text)
            self.mark_reached(seat, pending.at)
            return []
        if seat.finish is not None:  # time ran out, or they resigned, while it searched: answered only
            return self._wake([Reply(*seat.answer(self.id, self.rules.goal, pending.text))])
        return self._wake(self._moved(seat, pending.text, pending.at))

    def _moved(self, seat: Seat, text: str, at: int) -> list[Effect]:
        """The answer to the move just played (kept for resends), then what it caused."""
        answer, frame = seat.answer(self.id, self.rules.goal, text)
        if "finish" in answer:
            return [Reply(answer, frame), *self._finish(seat, answer["finish"], at)]
        self._standings_soon_at(at)
        return [Reply(answer, frame)]

    def view_changes(self, player_id: str, seq: int) -> View | None:
        """What ``player_id``'s move ``seq`` changed in their view (for a ``moved`` answer that
        carries ``changes``), or None if its answer is not kept."""
        seat = self.seats.get(player_id)
        return None if seat is None else seat.changes(seq)

    def mark_reached(self, seat: Seat, at: int) -> None:
        """While rebuilding from a log: note the finish ``seat``'s game reached (no effects; the
        race's end, if it came, is :meth:`go_on`'s)."""
        finish = seat.reached(self.rules.goal)
        if finish is not None and seat.finish is None:
            seat.end(finish, at)

    def check_resign(self, player_id: str, now: int, finish: Quit = "resigned") -> LogEntry:
        """Step one of giving up (``resigned``) or leaving (``left``): the log entry to append
        before :meth:`apply_resign`."""
        seat = self._running_seat(player_id, now, "resign")
        if seat.finish is not None:
            raise ProtocolError("player_finished", race=self.id)
        return {"p": player_id, "f": finish, "t": self.race_time(now)}

    def apply_resign(self, entry: LogEntry, now: int) -> list[Effect]:
        seat = self._running_seat(str(entry["p"]), now, "resign")
        if seat.finish is not None:
            raise ProtocolError("player_finished", race=self.id)
        self.machine.fire("resign")
        return self._wake(self._finish(seat, entry["f"], entry["t"]))

    def _running_seat(self, player_id: str, now: int, event: RaceEvent) -> Seat:
        """``player_id``'s seat, if the race's table takes ``event`` now and its time is not up."""
        seat = self.seats.get(player_id)
        if seat is None:
            raise ProtocolError("not_in_race", race=self.id)
        if not self.machine.allows(event) or (self.ends_ms is not None and now >= self.ends_ms):
            raise ProtocolError("race_not_running", race=self.id)
        return seat

    # ----- finishing ----------------------------------------------------------------

    def _finish(self, seat: Seat, why: Finish, at: int) -> list[Effect]:
        seat.end(why, at)
        effects: list[Effect] = [Freed(seat.id)]
        if all(s.finish is not None for s in self.seats.values()):
            self.machine.fire("end")
            return effects + self._end(at)
        return [*effects, self._push_standings()]

    def _time_up(self) -> list[Effect]:
        self.machine.fire("time_up")
        at = self.rules.time_limit * 1000
        effects: list[Effect] = []
        for seat in self.seats.values():
            if seat.finish is None:
                seat.end("time", at)
                effects.append(Freed(seat.id))
        return effects + self._end(at)

    def _end(self, at: int) -> list[Effect]:
        """The race is over (its table has just moved it to ``finished``): results for everyone."""
        assert self.started_ms is not None
        self.ended_ms = self.started_ms + at
        self._standings_due = None
        for seat in self.seats.values():
            seat.grace_until = None
        self.results = results(self.seats.values())
        finished: Finished = {
            "type": "finished",
            "race": self.id,
            "variant": self.rules.variant,
            "goal": self.rules.goal,
            "commitment": self.commitment,
            "seed": self._seed.hex(),
            "results": self.results,
        }
        if self.options.seed_kept:  # its deal is raced again later: the seed is told by its owner
            del finished["seed"]
        effects: list[Effect] = [self._broadcast(finished)]
        if self.ghosts.recorded:  # the final standings, ghosts placed by their whole attempts
            effects.append(self._broadcast(self.standings()))
        return [*effects, self._changed(), Over(self.record())]

    # ----- standings ----------------------------------------------------------------

    def _standings_soon(self, now: int) -> None:
        """Push standings within the window: a burst of moves makes one push."""
        if self._standings_due is None and self.state == "running":
            self._standings_due = now + self.timing.standings

    def _standings_soon_at(self, race_time: int) -> None:
        assert self.started_ms is not None
        self._standings_soon(self.started_ms + race_time)

    def _push_standings(self) -> Broadcast:
        self._standings_due = None
        return self._broadcast(self.standings())

    def _broadcast(self, message: Message) -> Broadcast:
        return Broadcast(message, players_only=self.options.private)

    def _changed(self) -> Changed:
        return Changed(self.summary(), players_only=self.options.private)

    # ----- plumbing -----------------------------------------------------------------

    def _wake(self, effects: list[Effect]) -> list[Effect]:
        """``effects``, then a :class:`Wake` if the next due time changed."""
        due = self.next_wake()
        if due != self._woken_for:
            self._woken_for = due
            effects.append(Wake(due))
        return effects

    def go_on(self, now: int) -> list[Effect]:
        """Run a race rebuilt from its log (:func:`terrace.race.restore.restore`) on: end it if
        everyone finished or its time ran out while no server ran it, else give every unfinished
        player a fresh grace period to come back (their connections died with the old server)."""
        assert self.ends_ms is not None
        self.machine.fire("resume")
        if now >= self.ends_ms:
            return self._wake(self._time_up())
        if all(s.finish is not None for s in self.seats.values()):
            last = max((s.finish_ms or 0 for s in self.seats.values()), default=0)
            self.machine.fire("end")
            return self._wake(self._end(last))
        for seat in self.seats.values():
            if seat.finish is None:
                seat.connected = False
                seat.grace_until = now + self.timing.grace
        return self._wake([self._changed()])

    def __repr__(self) -> str:
        return (
            f"<Race {self.id} {self.rules.variant} {self.state} seats={len(self.seats)}/{self.rules.seats}>"
        )
