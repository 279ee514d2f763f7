"""The lost search: whether a progress move can still become legal through shuffle moves.

docs/rulebook.md, "When a game is lost": a game is lost when no sequence of shuffle moves
(those that only move a card between piles, gaps, the waste and the like) makes a progress
move legal; past ``SEARCH_LIMIT`` distinct positions it counts as playing. The walk relocates
cards and puts them back, never copying the game, and what searches found is kept by context
(:class:`Reaching`) so the next search of a race's seats starts from it.

:class:`LostSearch` is a part of :class:`terrace.rules.game.Game`, kept apart by job: it reads
the game's places and rule hooks, declared below, and changes nothing it does not put back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

Move = tuple[int, int]

# What a game's searches keep (Game._reaching) before it starts afresh: positions known (a
# 104-byte key each: some 600 KB at most, shared by a race's seats), and contexts (a context
# lives until a progress move: a race's seats keep a few each).
REACHING_SIZE = 4_096
REACHING_CONTEXTS = 64

# In a path's steps (Game._steps): past this, a fixed place (terrace, waste, cell) as a target.
_FIXED = 1000


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


class LostSearch:
    """The lost search of a :class:`~terrace.rules.game.Game` (its base class)."""

    _places: list[list[int]]
    _reach: dict[tuple[Any, ...], Reaching]
    _found: list[Move]
    searched: int
    stock_place: int

    def _generate(self) -> list[Move]:
        raise NotImplementedError

    def _any_progress(self, moves: Iterable[Move]) -> bool:
        raise NotImplementedError

    def _search_places(self) -> tuple[Sequence[int], Sequence[int]]:
        raise NotImplementedError

    def _extra_state(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _search_moves(self) -> Callable[[], Sequence[Move] | None]:
        """For the lost search, from a position without a progress move, while only shuffle moves
        are played: a function giving the current position's moves, or None when one of them is
        a progress move. Engines may give a faster one, the same moves in the same order."""
        generate, any_progress = self._generate, self._any_progress

        def moves() -> Sequence[Move] | None:
            found = generate()
            return None if any_progress(found) else found

        return moves

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
        search_moves = LostSearch._search_moves(self) if self._any_progress(legal) else self._search_moves()
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
