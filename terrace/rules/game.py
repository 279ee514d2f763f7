"""What every variant's game has in common: moves in and out, status, the lost search.

A game keeps its cards in *places* (lists of card ids, bottom to top), each
with a name used by the notation. A move is a pair of place indices
(source, target); engines subclass :class:`Game` and supply the rule hooks:

- ``_board()``: the position as the player sees it (the view without status and moves);
- ``_generate()``: every legal move of the current position;
- ``_is_progress(move)``: the progress moves of docs/rulebook.md, "When a game is lost";
- ``_apply(move)``: carry a legal move out, returning its events;
- ``_why(move)``: the :class:`IllegalMove` explaining a refused move;
- ``_sources(token)`` / ``_targets(token)``: what a typed token may name.

The lost search itself (whether a progress move can still become legal) is
:class:`terrace.rules.lost.LostSearch`, this class's base; the status and its memo are here.

Kept as one module (about 510 lines): reading typed moves, playing them and the fast moves
solvers use share the position representation and its undo, which must stay in step.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, cast

from terrace.errors import IllegalMove
from terrace.rules.cards import NAME
from terrace.rules.deal import Deal, seed_of
from terrace.rules.lost import LostSearch, Reaching
from terrace.rules.notation import WORDS, candidates
from terrace.rules.variants import Variant
from terrace.rules.versions import RULES_VERSION, rules_of

Move = tuple[int, int]
Event = dict[str, Any]
Found = tuple[str, tuple[Move, ...]]  # a status and the shuffle path that showed it (Game.found)

# Reasons that say little when F was typed and another foundation explains better.
_UNTELLING = frozenset({"foundation_suit", "not_base_rank", "foundation_complete"})

# docs/rulebook.md, "When a game is lost": past this many distinct positions the game counts as playing.
SEARCH_LIMIT = 20_000

# Lost searches that decide within this many positions (about 97% of them, each
# position ~10 us) are simply redone; longer ones are remembered by position.
QUICK_SEARCH = 200

# Lost-search results a game remembers before it starts afresh.
MEMO_SIZE = 4096

# No move is longer than "10h -> F1"; longer text is refused before any parsing.
MAX_MOVE_TEXT = 24

MAX_MOVES = 5_000
"""Moves one game may hold. Moving a card back and forth between piles is legal for
ever, and every move costs the server memory and a log entry; a real game never comes
near this: it has at most about 500 progress moves (each of 104 cards dealt at most
three times and sent home once) with a few rearrangements between them, and the
greedy yardstick of benchmarks/engine.py finishes in a few hundred. Past it a move is
refused with ``move_limit`` (the player may still resign, or wait for the time limit)."""


class _Reading(NamedTuple):
    """One way to read typed text: the source token, the places it and the target may be."""

    token: str
    sources: list[int]
    targets: list[int] | None  # None: no target typed
    first: bool  # take the first target that accepts (``F``)


class Game(LostSearch):
    """One player's game of one variant on one deal. Not thread-safe."""

    variant: Variant
    place_names: tuple[str, ...]
    foundation_places: range
    stock_place: int  # face down: no answer may depend on the order of its cards
    words: ClassVar[Mapping[str, str]] = {}  # an engine's own whole-word moves, beside notation.WORDS

    def __init__(self, variant: Variant, deal: Deal, rules_version: int = RULES_VERSION) -> None:
        self.variant = variant
        self.deal = deal
        self.seed = seed_of(deal)
        self.rules = rules_of(rules_version)  # the switches of terrace.rules.versions
        self.rules_version = rules_version
        self._places: list[list[int]] = []
        self._history: list[str] = []
        self._legal: dict[str, Move] | None = None  # canonical name -> move
        self._status: str | None = None
        self._events: list[Event] = []
        self.searched = 0  # positions visited by the last lost search (for benchmarks)
        # Lost-search results by position. Status depends only on what the view shows
        # (the stock matters by its count alone), so the view is an exact key; a player
        # shuffling cards back and forth revisits positions and pays for each search once.
        self._memo: dict[str, str] = {}
        # Positions on the path of a search that found progress: each of them reaches it too, so
        # each is "playing" whatever a fresh search would count on the way. By what the search
        # leaves alone (foundations, the stock's size, the engine's extra state), then by the
        # search's own key: a search meeting one of them stops there. See _reaching.
        self._reach: dict[tuple[Any, ...], Reaching] = {}
        self._found: list[Move] = []  # the path the last search with ``_reach`` found (see found)

    # ----- public API -------------------------------------------------------------

    def legal_moves(self) -> list[str]:
        """Every legal move in canonical notation (order unspecified)."""
        return list(self._legal_names())

    def play(self, move: str) -> str:
        """Apply ``move`` (lenient notation) and return its canonical form.

        Raises :class:`IllegalMove` and changes nothing when the move is refused.
        """
        pair = self._resolve(move)
        name = self.move_name(pair)
        self._events = self._apply(pair)
        self._history.append(name)
        self._legal = None
        self._status = None
        self._found = []
        return name

    def resolve(self, move: str) -> str:
        """The canonical form of ``move`` if it is legal now; raises IllegalMove otherwise."""
        return self.move_name(self._resolve(move))

    def is_legal(self, move: str) -> bool:
        """Whether ``move`` (lenient notation) would be accepted now."""
        try:
            self._resolve(move)
        except IllegalMove:
            return False
        return True

    @property
    def status(self) -> str:
        """``"playing"``, ``"won"`` or ``"lost"`` (docs/rulebook.md, "When a game is lost")."""
        if self._status is None:
            self._status = self._decide_status()
        return self._status

    def quick_status(self, budget: int = QUICK_SEARCH) -> str | None:
        """The status if it is known cheaply, else None.

        Cheap means: no search needed, a search that decides within ``budget``
        positions (most do, in well under a millisecond), or a remembered long
        search. Lets a caller with an event loop run the rest (up to ~0.5 s)
        elsewhere: ``g.settle(g.copy().status)`` in a worker thread or process.
        """
        if self._status is None:
            if self._won():
                self._status = "won"
            elif self._any_progress(self._legal_names().values()):
                self._status = "playing"
            else:
                self._status = self._short_search(budget) or self._memo.get(self.position_key())
        return self._status

    def _short_search(self, budget: int) -> str | None:
        """The status if the lost search decides it within ``budget`` positions."""
        if budget <= 0:
            return None
        reachable = self._progress_reachable(self._legal_pairs(), min(budget, SEARCH_LIMIT), self._reaching())
        return None if reachable is None else "playing" if reachable else "lost"

    def position_key(self) -> str:
        """What the player sees, as one string: two positions with the same key have the
        same status, whatever the deal (the stock counts only by its size)."""
        return repr(self._board())

    def share_searches(self, other: Game) -> None:
        """Remember lost-search results together with ``other`` (the seats of one race,
        which meet the same positions), so each position is searched once."""
        self._memo = other._memo
        self._reach = other._reach

    def settle(self, status: str, path: Sequence[Move] = ()) -> None:
        """Record a status decided on a copy of this very position (see :meth:`quick_status`), and
        the path that search found to a progress move (:meth:`found`): the next short searches
        try it first. The path is only a hint: each of its steps is played only where legal, and
        only a progress move met at its end counts."""
        if status not in ("playing", "won", "lost"):
            raise ValueError(f"not a status: {status!r}")
        self._status = status
        self._remember(status, self.position_key())
        if status == "playing" and path:
            # Only a hint for the next searches, which play it again move by move where legal:
            # nothing is taken as known from it.
            self._reaching().path = [(int(card), int(onto)) for card, onto in path]

    def found(self) -> Found:
        """The status, and the path of shuffle moves from here to a progress move that deciding it
        found (empty when none was needed or none was found): what a search worker sends back for
        :meth:`settle`. The path reads only what the player sees (the stock by its size)."""
        status = self.status
        return status, tuple(self._found)

    @property
    def score(self) -> int:
        """Cards on the foundations."""
        return sum(len(self._places[f]) for f in self.foundation_places)

    @property
    def terrace_left(self) -> int:
        return 0

    @property
    def moves(self) -> list[str]:
        """The canonical moves played so far."""
        return list(self._history)

    @property
    def last_move(self) -> str | None:
        """The canonical form of the last move played (None before the first)."""
        return self._history[-1] if self._history else None

    def last_move_was(self, *types: str) -> bool:
        """Whether an event of the last move is of one of ``types`` (no copy of the events)."""
        for event in self._events:  # noqa: SIM110 (a plain loop: any() over a generator costs a frame)
            if event["type"] in types:
                return True
        return False

    @property
    def move_events(self) -> list[Event]:
        """What the last move did, without deciding the game's status (no lost search)."""
        return list(self._events)

    @property
    def last_events(self) -> list[Event]:
        """What the last move did, plus a ``game_over`` event if it ended the game."""
        events = list(self._events)
        if self._history and self.status != "playing":
            events.append({"type": "game_over", "status": self.status})
        return events

    def copy(self) -> Game:
        """An independent copy (for bots that search)."""
        g = _copy.copy(self)
        g._places = [p[:] for p in self._places]
        g._history = self._history[:]
        return g

    def view(self) -> dict[str, Any]:
        """JSON-safe plain data of what the player may see (docs/ENGINE.md, Views)."""
        view = self._board()  # a new dict each time: add to it rather than copy it
        view["status"] = self.status
        view["moves"] = len(self._history)
        return view

    def move_name(self, move: Move) -> str:
        return f"{self.place_names[move[0]]}-{self.place_names[move[1]]}"

    def __repr__(self) -> str:
        deal = self.deal if isinstance(self.deal, int) else "secret"  # never print a race seed
        return (
            f"<{type(self).__name__} {self.variant.id} deal={deal} {self.status} "
            f"moves={len(self._history)} score={self.score} terrace_left={self.terrace_left}>"
        )

    # ----- fast moves (for solvers and bots) ----------------------------------------
    # A search plays thousands of moves a second: these skip notation, history, events and
    # the status, and take a move back in place. After using them, call :meth:`touched`
    # before the public API above (its caches would describe the position before).

    @property
    def places(self) -> list[list[int]]:
        """The card ids of every place (``place_names`` order), bottom to top: the live lists,
        for reading only (change them through :meth:`push` and :meth:`pop`)."""
        return self._places

    def legal_pairs(self) -> list[Move]:
        """Every legal move of the current position as a pair of place indices (a new list)."""
        return self._generate()

    def is_progress(self, move: Move) -> bool:
        """Whether ``move`` is a progress move (docs/rulebook.md, "When a game is lost")."""
        return self._is_progress(move)

    def push(self, move: Move) -> object:
        """Play the legal pair ``move`` fast; the token given back takes it back (:meth:`pop`)."""
        token = self.snapshot()
        self._apply(move)
        return token

    def advance(self, move: Move) -> None:
        """Play the legal pair ``move`` fast, for good (no way back: cheaper than :meth:`push`)."""
        self._apply(move)

    def pop(self, move: Move, token: object) -> None:
        """Take back ``move``, the last one :meth:`push` played (which gave ``token``)."""
        self.restore(token)

    def board(self) -> dict[str, Any]:
        """:meth:`view` without ``status`` and ``moves``: never runs the lost search."""
        return self._board()

    def won(self) -> bool:
        """Whether every card is home."""
        return self._won()

    def snapshot(self) -> object:
        """The whole position, for :meth:`restore` (the history is not part of it)."""
        return ([p[:] for p in self._places], self._extra_state())

    def restore(self, state: object) -> None:
        """Go back to a position :meth:`snapshot` gave."""
        places, extra = cast(tuple[list[list[int]], tuple[Any, ...]], state)
        self._places = [p[:] for p in places]
        self._set_extra_state(extra)
        self.touched()

    def set_position(self, state: object, moves: int = 0) -> None:
        """Put the game in the position ``state`` (as :meth:`snapshot` gives), as if ``moves``
        unknown moves had led there (a bot's imagined game)."""
        self.restore(state)
        self._history = ["?"] * moves
        self._events = []
        self._memo = {}
        self._reach = {}

    def set_stock(self, cards: Sequence[int]) -> None:
        """Make the stock ``cards``, dealt first to last (a guess, for bots that imagine it).
        The caller keeps the deck whole: ``cards`` must be exactly the stock's cards."""
        if sorted(cards) != sorted(self._places[self.stock_place]):
            raise ValueError("the stock must keep its cards")
        self._places[self.stock_place] = list(cards)[::-1]  # pop() deals the next card
        self.touched()

    def touched(self) -> None:
        """Forget what was worked out for the position (after :meth:`push` / :meth:`pop`)."""
        self._legal = None
        self._status = None
        self._found = []

    def _extra_state(self) -> tuple[Any, ...]:
        """What a position holds besides its places (engines override)."""
        return ()

    def _set_extra_state(self, extra: tuple[Any, ...]) -> None:
        pass

    # ----- rule hooks (engines override) --------------------------------------------

    def _board(self) -> dict[str, Any]:
        """The view without status and move count: the position as the player sees it (a new dict
        on every call: :meth:`view` adds to it)."""
        raise NotImplementedError

    def _generate(self) -> list[Move]:
        raise NotImplementedError

    def _is_progress(self, move: Move) -> bool:
        raise NotImplementedError

    def _apply(self, move: Move) -> list[Event]:
        raise NotImplementedError

    def _why(self, move: Move) -> IllegalMove:
        raise NotImplementedError

    def _sources(self, token: str) -> list[int] | None:
        """Places a source token may name, [] for a card not available, None if not a token."""
        raise NotImplementedError

    def _targets(self, token: str) -> tuple[list[int], bool] | None:
        """Places a target token may name, and whether to take the first that accepts."""
        raise NotImplementedError

    def _word(self, word: str) -> Move | None:
        """The move a whole word (``deal``, ``redeal``, ``recycle``) stands for now."""
        return None

    def _won(self) -> bool:
        return self.score == 104

    def _any_progress(self, moves: Iterable[Move]) -> bool:
        """Whether any of ``moves`` is a progress move (engines may inline :meth:`_is_progress`)."""
        return any(self._is_progress(m) for m in moves)

    def _search_places(self) -> tuple[Sequence[int], Sequence[int]]:
        """Places shuffle moves touch: (interchangeable ones, ones whose identity matters)."""
        raise NotImplementedError

    # ----- shared machinery ---------------------------------------------------------

    def _legal_names(self) -> dict[str, Move]:
        if self._legal is None:
            name = self.move_name
            self._legal = {name(m): m for m in self._generate()}
        return self._legal

    def _legal_pairs(self) -> Sequence[Move]:
        return list(self._legal_names().values())

    def _relocate(self, src: int, dst: int) -> None:
        self._places[dst].append(self._places[src].pop())

    def _resolve(self, text: str) -> Move:
        if not isinstance(text, str) or len(text) > MAX_MOVE_TEXT:
            raise IllegalMove("bad_notation", text=str(text)[:MAX_MOVE_TEXT])
        if len(self._history) >= MAX_MOVES:
            raise IllegalMove("move_limit", limit=MAX_MOVES)
        exact = self._legal_names().get(text)
        if exact is not None:
            return exact
        if self._won():
            raise IllegalMove("game_over")
        word = WORDS.get(text.strip().lower()) or self.words.get(text.strip().lower())
        if word is not None:
            move = self._word(word)
            if move is None:
                raise IllegalMove("bad_notation", text=text)
            if move not in self._legal_pairs():
                raise self._why(move)
            return move
        parses: list[_Reading] = []
        for s_tok, d_tok in candidates(text):
            srcs = self._sources(s_tok)
            if srcs is None:
                continue
            if d_tok is None:
                parses.append(_Reading(s_tok, srcs, None, True))
                continue
            tgt = self._targets(d_tok)
            if tgt is not None:
                parses.append(_Reading(s_tok, srcs, tgt[0], tgt[1]))
        if not parses:
            raise IllegalMove("bad_notation", text=text)
        legal = self._legal_pairs()
        found: list[Move] = []
        for reading in parses:
            for m in self._matching(legal, reading.sources, reading.targets, reading.first):
                if m not in found:
                    found.append(m)
        if len(found) == 1:
            return found[0]
        if found:
            options = " or ".join(self.move_name(m) for m in found)
            raise IllegalMove("ambiguous_move", text=text, options=options)
        # Explain with the first reading that names a real source (``ah`` in Louis is
        # heap a to heap h, even though "Ah" could be a card).
        return self._explain(next((r for r in parses if r.sources), parses[0]))

    def _matching(
        self, legal: Sequence[Move], srcs: list[int], dsts: list[int] | None, first: bool
    ) -> list[Move]:
        if dsts is None:
            # No target: to a foundation if it can, else its only move.
            homes = self._matching(legal, srcs, list(self.foundation_places), True)
            if homes:
                return homes
            return [m for m in legal if m[0] in srcs]
        ms = [m for m in legal if m[0] in srcs and m[1] in dsts]
        if first:
            best: dict[int, Move] = {}
            for m in ms:
                if m[0] not in best or dsts.index(m[1]) < dsts.index(best[m[0]][1]):
                    best[m[0]] = m
            ms = list(best.values())
        return ms

    def _explain(self, reading: _Reading) -> Move:
        srcs, dsts = reading.sources, reading.targets
        if not srcs:
            raise IllegalMove("card_not_available", card=reading.token)
        if dsts is None:
            src = srcs[0]
            if not self._places[src]:
                raise IllegalMove("empty_source", place=self.place_names[src])
            if src == self.stock_place:  # explained by the stock's own move, never by its hidden top card
                deal = self._word("deal")
                assert deal is not None
                raise self._why(deal)
            raise IllegalMove("no_move_from", card=NAME[self._places[src][-1]], place=self.place_names[src])
        reasons = [self._why((srcs[0], dst)) for dst in dsts]
        # With F, name a foundation of the right suit or base where there is one.
        telling = [r for r in reasons if r.code not in _UNTELLING]
        raise (telling or reasons)[0]

    def _decide_status(self) -> str:
        if self._won():
            return "won"
        legal = self._legal_pairs()
        if self._any_progress(legal):
            return "playing"
        short = self._short_search(QUICK_SEARCH)
        if short is not None:
            return short
        key = self.position_key()  # a long search: remembered, since it costs far more than the key
        known = self._memo.get(key)
        if known is not None:
            return known
        status = (
            "lost" if self._progress_reachable(legal, SEARCH_LIMIT, self._reaching()) is False else "playing"
        )
        self._remember(status, key)
        return status

    def _remember(self, status: str, key: str) -> None:
        if len(self._memo) >= MEMO_SIZE:
            self._memo.clear()
        self._memo[key] = status

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_memo"] = {}  # a pickled copy (sent to a search worker) travels light
        state["_reach"] = {}
        return state
