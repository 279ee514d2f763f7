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

Shuffle moves only relocate one card between places, so the lost search walks
positions by relocating cards and putting them back, never copying the game.

Kept as one module (about 560 lines): the move machinery, the fast moves solvers use and the
lost search share the position representation and its undo, which must stay in step.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple, cast

from terrace.errors import IllegalMove
from terrace.rules.cards import NAME
from terrace.rules.deal import Deal, seed_of
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

# What a game's searches keep (Game._reaching) before it starts afresh: positions known (a
# 104-byte key each: some 600 KB at most, shared by a race's seats), and contexts (a context
# lives until a progress move: a race's seats keep a few each).
REACHING_SIZE = 4_096
REACHING_CONTEXTS = 64

# In a path's steps (Game._steps): past this, a fixed place (terrace, waste, cell) as a target.
_FIXED = 1000

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


class Reaching:
    """What searches found about positions of one context (foundations, stock size, extra state:
    what shuffle moves leave alone): the search keys of positions known to be playing, and the
    last path of shuffle moves found to a progress move (as steps of cards, Game._steps), worth
    trying again from the next position."""

    __slots__ = ("keys", "lost", "path")

    def __init__(self) -> None:
        self.keys: set[bytes] = set()
        # Positions known to be lost: every position a search that proved its root lost met (each
        # reaches fewer positions than that root, none with a progress move).
        self.lost: set[bytes] = set()
        self.path: list[Move] = []


class Game:
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

    def _reaching(self) -> Reaching:
        """What searches found among positions that have this one's foundations, stock size and
        extra state (what shuffle moves leave alone; with the search's key of a position they give
        the whole position but pile order, which does not change a status). A key in it is
        "playing": progress is reachable, so a fresh search could only find it (True) or give up
        at its limit (None), never prove the game lost. The stock counts by its size alone: its
        order is never part of the context."""
        places = self._places
        loose, fixed = self._search_places()
        searched = {*loose, *fixed, self.stock_place}
        rest = tuple(tuple(p) for i, p in enumerate(places) if i not in searched)
        context = (rest, len(places[self.stock_place]), self._extra_state())
        reach = self._reach
        known = reach.get(context)
        if known is None:
            if (
                len(reach) >= REACHING_CONTEXTS
                or sum(len(r.keys) + len(r.lost) for r in reach.values()) >= REACHING_SIZE
            ):
                reach.clear()
            known = reach[context] = Reaching()
        return known

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

    def _search_moves(self) -> Callable[[], Sequence[Move] | None]:
        """For the lost search, from a position without a progress move, while only shuffle moves
        are played: a function giving the current position's moves, or None when one of them is
        a progress move. Engines may give a faster one, the same moves in the same order."""
        generate, any_progress = self._generate, self._any_progress

        def moves() -> Sequence[Move] | None:
            found = generate()
            return None if any_progress(found) else found

        return moves

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

    def _progress_reachable(
        self, legal: Sequence[Move], limit: int, reaching: Reaching | None = None
    ) -> bool | None:
        """Depth-first over shuffle moves: True if a progress move becomes legal,
        False if none can, None if the search gave up at ``limit`` positions.

        ``reaching`` (:meth:`_reaching`): positions known to reach a progress move, and the last
        path found to one. Meeting a known position is True at once; before the walk, the last
        path's moves are played again where they are legal (each a shuffle move of the position
        it is played in, so where they lead is reachable), and progress there is True at once.
        A search that finds progress adds every position of its path, and keeps the path.
        Without it (the reference walk, position for position) nothing is tried or kept.

        A position is known exactly by 104 bytes: for a card in a loose place
        (a pile, a heap) the card beneath it or FLOOR; for a card in a fixed
        place (terrace, waste, abeyance cell) that place's marker. Pile order
        drops out, so positions that differ only by which pile is which meet,
        and a move updates one byte. Fixed places only lose their top card or
        hold one card during the search, so their markers pin their contents.
        """
        places = self._places
        below, marks = self._search_key()

        # The loop below runs some ten times per position: relocating is written out inline
        # (a function call per relocation was a third of the search).

        def relocate(src: int, dst: int) -> None:
            card = places[src].pop()
            pile = places[dst]
            below[card] = marks[dst] or (pile[-1] if pile else 255)
            pile.append(card)

        root = bytes(below)
        # (a root with a progress move never comes here; if one did, the engine's shortcut, which
        # holds only while shuffle moves are played, would not apply)
        search_moves = Game._search_moves(self) if self._any_progress(legal) else self._search_moves()
        known: set[bytes] = set()  # (without ``reaching`` an empty set: one cheap test per new position)
        if reaching is not None:
            known = reaching.keys
            self._found = []
            if root in reaching.lost:
                self.searched = 1
                return False
            if root in known or self._replay(reaching, legal, search_moves, relocate, below):
                self.searched = 1
                return True
        seen = {root}
        path: list[Move] = []
        stack: list[Iterator[Move]] = []  # the moves left to try of each position on the path
        trying = iter(legal)  # those of the current position
        result: bool | None = False
        moves: Sequence[Move] | None = legal
        while True:
            for move in trying:  # (a for loop: far cheaper per move than next() on the stack's top)
                src, dst = move
                # Most moves lead to a position seen before: its key is made by changing the
                # card's one byte alone, and the card moves only to a position not seen yet.
                from_pile, to_pile = places[src], places[dst]
                card = from_pile[-1]
                was = below[card]
                below[card] = marks[dst] or (to_pile[-1] if to_pile else 255)
                key = bytes(below)
                if key in seen:
                    below[card] = was
                    continue
                to_pile.append(from_pile.pop())
                seen.add(key)
                path.append(move)
                break
            else:  # every move of this position tried: back to the one before
                if not stack:
                    break
                trying = stack.pop()
                src, dst = path.pop()
                relocate(dst, src)
                continue
            if key in known:
                result = True
                break
            moves = search_moves()  # of the new position
            if moves is None:
                result = True
                break
            if len(seen) >= limit:
                result = None
                break
            stack.append(trying)
            trying = iter(moves)
        if result is False and reaching is not None:
            reaching.lost |= seen
        if result and reaching is not None:  # every position on the path reaches the progress found
            steps = self._steps(path, relocate, known, below)
            if moves is None:  # (not when it met a known position: that one's path is not at hand)
                reaching.path = self._found = steps
        while path:  # put every card back where it was
            src, dst = path.pop()
            relocate(dst, src)
        self.searched = len(seen)
        return result

    def _search_key(self) -> tuple[bytearray, list[int]]:
        """The search's key of this position (see :meth:`_progress_reachable`), and each place's
        marker (0 for a loose place)."""
        places = self._places
        loose, fixed = self._search_places()
        below = bytearray([254] * 104)
        for i in loose:
            for depth, card in enumerate(places[i]):
                below[card] = places[i][depth - 1] if depth else 255  # 255: FLOOR
        marker = {place: 200 + n for n, place in enumerate(fixed)}
        for place, mark in marker.items():
            for card in places[place]:
                below[card] = mark
        return below, [marker.get(place, 0) for place in range(len(places))]

    def _replay(
        self,
        reaching: Reaching,
        legal: Sequence[Move],
        search_moves: Callable[[], Sequence[Move] | None],
        relocate: Callable[[int, int], None],
        below: bytearray,
    ) -> bool:
        """Play the last path found again from here, each step only where it is a legal move (so
        every position met is reachable by shuffle moves): whether it comes to a progress move.
        A step names cards, not places (:meth:`_steps`): the card, on top of whichever place now
        holds it, onto the card it went onto, into any gap, or into a fixed place. Every card is
        put back; on success the positions met are known, and the steps played are the path kept."""
        places = self._places
        loose, fixed = self._search_places()
        shown = (*loose, *fixed)  # never the stock: its cards are not the player's to know
        played: list[Move] = []
        moves: Sequence[Move] | None = legal
        for card, onto in reaching.path:
            assert moves is not None
            tops = {places[i][-1]: i for i in shown if places[i]}
            src = tops.get(card)
            if src is None:
                continue
            if onto >= _FIXED:
                dst: int | None = onto - _FIXED
            elif onto >= 0:
                dst = tops.get(onto)
            else:
                dst = next((g for g in loose if not places[g] and (src, g) in moves), None)
            if dst is None or (src, dst) not in moves:
                continue
            relocate(src, dst)
            played.append((src, dst))
            moves = search_moves()
            if moves is None:
                break
        found = moves is None
        if found:
            reaching.path = self._found = self._steps(played, relocate, reaching.keys, below)
        else:
            while played:
                src, dst = played.pop()
                relocate(dst, src)
        return found

    def _steps(
        self, path: list[Move], relocate: Callable[[int, int], None], known: set[bytes], below: bytearray
    ) -> list[Move]:
        """Take back ``path`` (the search's moves, from the root to a position with a progress move),
        noting each position met as known, and give it as steps of cards (see :meth:`_replay`):
        (card, the card it went onto), -1 for a gap, or _FIXED + the place for a fixed place."""
        places = self._places
        loose = set(self._search_places()[0])
        steps: list[Move] = []
        known.add(bytes(below))
        while path:
            src, dst = path.pop()
            pile = places[dst]
            onto = (pile[-2] if len(pile) > 1 else -1) if dst in loose else _FIXED + dst
            steps.append((pile[-1], onto))
            relocate(dst, src)
            known.add(bytes(below))
        steps.reverse()
        return steps
