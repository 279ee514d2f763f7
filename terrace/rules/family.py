"""The Terrace family engine: ``terrace``, ``queen-of-italy`` and ``signora``.

One engine reads the variant's switches (``terrace.rules.variants``) for the three
places the rules differ: how foundations match, who may fill a gap, and what
happens to the stock and the terrace late in the game (docs/rulebook.md, "The
Terrace family"). Every rules version plays these three alike.

Move generation indexes what every foundation and pile top will accept by a
small integer key, so a position's moves cost one dictionary lookup per
available card instead of trying every source against every target.

Kept as one module (about 470 lines): the move index, the moves, what each move does (also
played and taken back in place for solvers) and why a move is refused all read the one
numbering of places and must change together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from terrace.errors import IllegalMove
from terrace.rules.cards import NAME, RANK, RANKS, RED, SUIT, parse_card
from terrace.rules.deal import Deal, shuffle
from terrace.rules.game import Event, Game, Move
from terrace.rules.variants import Variant
from terrace.rules.versions import RULES_VERSION

T, W, S = 0, 1, 2
PILES = range(3, 12)  # piles 1..9
PILE1 = PILES[0]
FOUNDATIONS = range(12, 20)  # F1..F8
F1 = 12
PLACE_NAMES = ("T", "W", "S", *(str(i) for i in range(1, 10)), *(f"F{i}" for i in range(1, 9)))
_BY_NAME = {n: i for i, n in enumerate(PLACE_NAMES)}

# Keys: what a card *is*, compared with what a top *accepts*.
_COLOUR_KEY = tuple(RANK[c] * 2 + RED[c] for c in range(104))
_SUIT_KEY = tuple(RANK[c] * 4 + SUIT[c] for c in range(104))
_UP = tuple(RANK[c] % 13 + 1 for c in range(104))  # next rank up, K -> A
_DOWN = tuple(RANK[c] - 1 or 13 for c in range(104))  # next rank down, A -> K
# What a top card accepts, as the key of the card it takes: on a foundation the next rank up
# (of its suit, or of the other colour) and on a pile the next rank down of the other colour.
_HOME_SUIT = tuple(_UP[c] * 4 + SUIT[c] for c in range(104))
_HOME_COLOUR = tuple(_UP[c] * 2 + (not RED[c]) for c in range(104))
_PILE_ACCEPTS = tuple(_DOWN[c] * 2 + (not RED[c]) for c in range(104))
_SOURCES = (T, W, *PILES)
_CARDS_BY_SUIT_KEY: dict[int, list[int]] = {}
_CARDS_BY_COLOUR_KEY: dict[int, list[int]] = {}
_CARDS_OF_RANK: dict[int, list[int]] = {}
for _c in range(104):
    _CARDS_BY_SUIT_KEY.setdefault(_SUIT_KEY[_c], []).append(_c)
    _CARDS_BY_COLOUR_KEY.setdefault(_COLOUR_KEY[_c], []).append(_c)
    _CARDS_OF_RANK.setdefault(RANK[_c], []).append(_c)
_PAIRS = tuple(tuple((s, d) for d in range(len(PLACE_NAMES))) for s in range(len(PLACE_NAMES)))
_MOVE_NAMES = {(s, d): f"{a}-{b}" for s, a in enumerate(PLACE_NAMES) for d, b in enumerate(PLACE_NAMES)}
# push()'s tokens for the moves it takes back without a snapshot
_MOVED, _TURNED, _RECYCLED, _FILLED = "moved", "turned", "recycled", "filled"


class FamilyGame(Game):
    place_names = PLACE_NAMES
    stock_place = S
    foundation_places = FOUNDATIONS
    words: ClassVar[Mapping[str, str]] = {"d": "deal"}  # no place is called d here (Louis has a heap d)

    def __init__(self, variant: Variant, deal: Deal, rules_version: int = RULES_VERSION) -> None:
        super().__init__(variant, deal, rules_version)
        deck = shuffle(range(104), deal)
        self._places = [[] for _ in PLACE_NAMES]
        self._places[T] = deck[0:11]
        for i in range(4):
            self._places[PILES[i]].append(deck[11 + i])
        self._places[S] = deck[15:][::-1]  # pop() deals the next card
        self._base: int | None = None
        self._recycles_left = variant.recycles
        self._suit_mode = variant.foundation_match == "suit"
        # per place, the card ids last shown and their names: a move changes two or three places,
        # and the view names the other cards (up to a whole waste) again on every move otherwise
        self._shown_ids: list[list[int]] = [[] for _ in PLACE_NAMES]
        self._shown: list[list[str]] = [[] for _ in PLACE_NAMES]

    # ----- derived state -------------------------------------------------------------

    @property
    def phase(self) -> str:
        return "choose-base" if self._base is None else "play"

    @property
    def terrace_left(self) -> int:
        return len(self._places[T])

    @property
    def base(self) -> int | None:
        """The foundations' base rank (1..13), None before it is chosen."""
        return self._base

    @property
    def recycles_left(self) -> int:
        return self._recycles_left

    def _extra_state(self) -> tuple[Any, ...]:
        return (self._base, self._recycles_left)

    def _set_extra_state(self, extra: tuple[Any, ...]) -> None:
        self._base, self._recycles_left = extra

    def push(self, move: Move) -> object:
        # In place, without a snapshot but for the base's choice (a search's hottest path):
        # the token says how to take the move back.
        src, dst = move
        p = self._places
        if self._base is None:
            return super().push(move)
        if src == S:
            p[W].append(p[S].pop())
            return _TURNED
        if dst == S:
            p[S] = p[W][::-1]
            p[W] = []
            self._recycles_left -= 1
            return _RECYCLED
        p[dst].append(p[src].pop())
        if self.variant.autofill_gaps and src >= PILE1 and not p[src] and p[S]:
            p[src].append(p[S].pop())
            return _FILLED
        return _MOVED

    def pop(self, move: Move, token: object) -> None:
        p = self._places
        if token is _MOVED:
            src, dst = move
            p[src].append(p[dst].pop())
        elif token is _TURNED:
            p[S].append(p[W].pop())
        elif token is _FILLED:
            src, dst = move
            p[S].append(p[src].pop())
            p[src].append(p[dst].pop())
        elif token is _RECYCLED:
            p[W] = p[S][::-1]
            p[S] = []
            self._recycles_left += 1
        else:
            super().pop(move, token)

    def _terrace_free(self) -> bool:
        """Signora frees the terrace top for packing once stock and waste are both empty."""
        p = self._places
        return self.variant.terrace_freed_late and not p[S] and not p[W]

    def _search_places(self) -> tuple[range, tuple[int, int]]:
        return PILES, (T, W)  # the rules treat the nine piles alike

    # ----- rule hooks ----------------------------------------------------------------

    def _generate(self) -> list[Move]:
        # Hot: the server runs it once per move and the lost search once per position, so
        # the keys come from tables and every move is appended in the same order as ever.
        p = self._places
        base = self._base
        if base is None:
            return [(PILES[i], F1) for i in range(4)]
        moves: list[Move] = []
        add = moves.append
        suit_mode = self._suit_mode
        fkey = _SUIT_KEY if suit_mode else _COLOUR_KEY
        home_accepts = _HOME_SUIT if suit_mode else _HOME_COLOUR

        accepts_home: dict[int, list[int]] = {}
        first_empty = None
        for f in FOUNDATIONS:
            pf = p[f]
            if not pf:
                if first_empty is None:
                    first_empty = f
            elif len(pf) < 13:
                key = home_accepts[pf[-1]]
                if key in accepts_home:
                    accepts_home[key].append(f)
                else:
                    accepts_home[key] = [f]

        accepts_pile: dict[int, list[int]] = {}
        gaps: list[int] = []
        for i in PILES:
            pi = p[i]
            if pi:
                key = _PILE_ACCEPTS[pi[-1]]
                if key in accepts_pile:
                    accepts_pile[key].append(i)
                else:
                    accepts_pile[key] = [i]
            else:
                gaps.append(i)

        any_gap_source = self.variant.gap_fill == "any"
        terrace_free = self._terrace_free()
        for src in _SOURCES:
            ps = p[src]
            if not ps:
                continue
            card = ps[-1]
            if RANK[card] == base:
                if first_empty is not None:
                    add((src, first_empty))
            else:
                homes = accepts_home.get(fkey[card])
                if homes:
                    for f in homes:
                        add((src, f))
            if src == T and not terrace_free:
                continue
            targets = accepts_pile.get(_COLOUR_KEY[card])
            if targets:
                for dst in targets:
                    if dst != src:
                        add((src, dst))
            if gaps and (src == W or any_gap_source):
                for dst in gaps:
                    if dst != src:
                        add((src, dst))
        if p[S]:
            if not (self._recycles_left < self.variant.recycles and p[W]):
                add((S, W))
        elif p[W] and self._recycles_left > 0:
            add((W, S))
        return moves

    def _search_moves(self) -> Callable[[], Sequence[Move] | None]:
        # The lost search asks this once per position (20,000 in the longest searches). While
        # only shuffle moves are played the foundations and the stock stay as they are, so what
        # goes home, and whether the stock moves, is worked out once here: per position are left
        # the piles' tops, and the waste being empty or not. The moves come in _generate's order
        # (less those the search would skip unseen: the same card into a second gap).
        p = self._places
        base = self._base
        if base is None:
            return super()._search_moves()
        home_accepts = _HOME_SUIT if self._suit_mode else _HOME_COLOUR
        accepts_home = {home_accepts[p[f][-1]] for f in FOUNDATIONS if 0 < len(p[f]) < 13}
        empty_foundation = any(not p[f] for f in FOUNDATIONS)
        # (a Python step per card that may go home, not per card: once per search)
        goes_home = [False] * 104
        for key in accepts_home:
            for c in _CARDS_BY_SUIT_KEY[key] if self._suit_mode else _CARDS_BY_COLOUR_KEY[key]:
                goes_home[c] = True
        for c in _CARDS_OF_RANK[base]:  # a base card goes only to an empty foundation (never onto one)
            goes_home[c] = empty_foundation
        stock = bool(p[S])
        recycles, left = self.variant.recycles, self._recycles_left
        # a stock move (progress) with the waste empty, and with cards on it: S-W unless a
        # recycled stock must wait for an empty waste, else W-S while recycles are left
        stock_move_empty, stock_move_full = stock, (left >= recycles) if stock else (left > 0)
        terrace_late = self.variant.terrace_freed_late and not stock
        any_gap_source = self.variant.gap_fill == "any"
        pile_accepts, colour_key, pairs = _PILE_ACCEPTS, _COLOUR_KEY, _PAIRS

        def moves() -> list[Move] | None:
            waste = p[W]
            if stock_move_full if waste else stock_move_empty:
                return None
            accepts: dict[int, list[int]] = {}
            gaps: list[int] = []
            for i in PILES:
                pi = p[i]
                if pi:
                    key = pile_accepts[pi[-1]]
                    if key in accepts:
                        accepts[key].append(i)
                    else:
                        accepts[key] = [i]
                else:
                    gaps.append(i)
            found: list[Move] = []
            add = found.append
            terrace_free = terrace_late and not waste
            for src in _SOURCES:
                ps = p[src]
                if not ps:
                    continue
                card = ps[-1]
                if goes_home[card]:
                    return None  # (once in a search: it ends there)
                if src == T and not terrace_free:
                    continue
                row = pairs[src]
                targets = accepts.get(colour_key[card])
                if targets:
                    for dst in targets:
                        if dst != src:
                            add(row[dst])
                if gaps and (src == W or any_gap_source):
                    # Into any gap the card makes the same position (pile order drops out of
                    # the search's key): past the first, the search would find each seen.
                    # (src has cards: it is no gap.)
                    add(row[gaps[0]])
            return found

        return moves

    def _any_progress(self, moves: Iterable[Move]) -> bool:
        # a plain loop: any() over a generator costs a frame per move, and the search asks per position
        for src, dst in moves:  # noqa: SIM110
            if dst >= F1 or src == S or dst == S:
                return True
        return False

    def move_name(self, move: Move) -> str:
        return _MOVE_NAMES[move]

    def _legal_names(self) -> dict[str, Move]:
        # once per move: the names from the table, without a method call per move
        if self._legal is None:
            names = _MOVE_NAMES
            self._legal = {names[m]: m for m in self._generate()}
        return self._legal

    def _won(self) -> bool:
        # asked on every move: the first foundation is short of its 13 cards most of a game
        p = self._places
        return len(p[F1]) == 13 and sum(map(len, p[F1:])) == 104

    def _is_progress(self, move: Move) -> bool:
        return move[1] >= F1 or move[0] == S or move[1] == S

    def _apply(self, move: Move) -> list[Event]:
        src, dst = move
        p = self._places
        if self._base is None:
            card = p[src].pop()
            p[F1].append(card)
            self._base = RANK[card]
            p[src].append(p[S].pop())
            for i in PILES[4:]:
                p[i].append(p[S].pop())
            return [{"type": "base", "card": NAME[card], "rank": RANKS[RANK[card] - 1]}]
        if src == S:
            p[W].append(p[S].pop())
            return [{"type": "turned"}]
        if dst == S:
            p[S] = p[W][::-1]  # the first card dealt in the first pass comes first again
            p[W] = []
            self._recycles_left -= 1
            return [{"type": "recycled"}]
        card = p[src][-1]
        self._relocate(src, dst)
        events: list[Event] = []
        if dst >= F1:
            events.append({"type": "home", "card": NAME[card], "to": PLACE_NAMES[dst]})
        if src == T and not p[T]:
            events.append({"type": "terrace_cleared"})
        if self.variant.autofill_gaps and src in PILES and not p[src] and p[S]:
            p[src].append(p[S].pop())
            events.append({"type": "gap_filled", "pile": PLACE_NAMES[src]})
        return events

    def _why(self, move: Move) -> IllegalMove:
        src, dst = move
        p = self._places
        names = PLACE_NAMES
        if self._base is None:
            return IllegalMove("choose_base_first")
        if src >= F1:
            return IllegalMove("foundation_is_final")
        if src == dst:
            return IllegalMove("same_place")
        if src == S:
            if dst != W:
                return IllegalMove("bad_target", source=names[src], target=names[dst])
            if not p[S]:
                return IllegalMove("stock_empty")
            return IllegalMove("play_waste_first")
        if dst == S:
            if src != W:
                return IllegalMove("bad_target", source=names[src], target=names[dst])
            if self.variant.recycles == 0:
                return IllegalMove("no_recycle")
            if self._recycles_left == 0:
                return IllegalMove("recycle_used")
            if p[S]:
                return IllegalMove("stock_not_empty")
            return IllegalMove("waste_empty")
        if dst in (T, W):
            return IllegalMove("bad_target", source=names[src], target=names[dst])
        if not p[src]:
            return IllegalMove("empty_source", place=names[src])
        card = p[src][-1]
        fields: dict[str, Any] = {"card": NAME[card], "target": names[dst]}
        if dst >= F1:
            f = p[dst]
            if not f:
                return IllegalMove("not_base_rank", base=RANKS[self._base - 1], **fields)
            if len(f) == 13:
                return IllegalMove("foundation_complete", target=names[dst])
            fields["top"] = NAME[f[-1]]
            if RANK[card] != _UP[f[-1]]:
                return IllegalMove("foundation_rank", **fields)
            if self._suit_mode:
                return IllegalMove("foundation_suit", **fields)
            return IllegalMove("foundation_colour", **fields)
        if src == T and not self._terrace_free():
            when = (
                " until the stock and the waste are both used up" if self.variant.terrace_freed_late else ""
            )
            return IllegalMove("terrace_to_foundation_only", when=when)
        if not p[dst]:
            return IllegalMove("gap_waste_only")
        fields["top"] = NAME[p[dst][-1]]
        if RANK[card] != _DOWN[p[dst][-1]]:
            return IllegalMove("tableau_rank", **fields)
        return IllegalMove("tableau_colour", **fields)

    def _sources(self, token: str) -> list[int] | None:
        place = _BY_NAME.get(token.upper())
        if place is not None:
            return [place]
        card = parse_card(token)
        if card is None:
            return None
        rank, suit = card
        p = self._places
        return [s for s in (T, W, *PILES) if p[s] and RANK[p[s][-1]] == rank and SUIT[p[s][-1]] == suit]

    def _targets(self, token: str) -> tuple[list[int], bool] | None:
        t = token.upper()
        if t == "F":
            return list(FOUNDATIONS), True
        place = _BY_NAME.get(t)
        if place is None:
            return None
        if place >= F1 and not self._places[place]:
            # Empty foundations are interchangeable: any of them names the canonical one.
            return [f for f in FOUNDATIONS if not self._places[f]], True
        return [place], False

    def _word(self, word: str) -> Move | None:
        if word == "deal":
            return (S, W)
        if word == "recycle":
            return (W, S)
        return None

    # ----- views -----------------------------------------------------------------------

    def _board(self) -> dict[str, Any]:
        # Once per move answered: names only for the places shown (the stock is a count), and only
        # for the places that changed since the last view (each view gets lists of its own). The
        # test of a place is inline: a call per place would cost what naming its cards does.
        p = self._places
        ids, shown, named = self._shown_ids, self._shown, self._named
        base = self._base
        return {
            "variant": self.variant.id,
            "phase": "choose-base" if base is None else "play",
            "base": None if base is None else RANKS[base - 1],
            "terrace": shown[T][:] if ids[T] == p[T] else named(T),
            "foundations": {PLACE_NAMES[f]: shown[f][:] if ids[f] == p[f] else named(f) for f in FOUNDATIONS},
            "piles": {PLACE_NAMES[i]: shown[i][:] if ids[i] == p[i] else named(i) for i in PILES},
            "waste": shown[W][:] if ids[W] == p[W] else named(W),
            "stock": len(p[S]),
            "recycles_left": self._recycles_left,
            "terrace_free": self._terrace_free(),
            "score": self.score,
            "terrace_left": len(p[T]),
        }

    def copy(self) -> FamilyGame:
        g = super().copy()
        assert isinstance(g, FamilyGame)
        # lists of its own: a copy used in another thread must never pair one naming's ids with
        # another's names (each view's check reads both)
        g._shown_ids, g._shown = self._shown_ids[:], self._shown[:]
        return g

    def _named(self, place: int) -> list[str]:
        """The names of ``place``'s cards, kept for the next view (a copy of them returned)."""
        cards = self._places[place]
        self._shown_ids[place] = cards[:]
        names = self._shown[place] = [NAME[c] for c in cards]
        return names[:]

    @property
    def score(self) -> int:
        return sum(map(len, self._places[F1:]))  # the foundations are the last places

    def __str__(self) -> str:
        v = self.view()
        found = "  ".join(f"{k}:{(c[-1] if c else '--')}" for k, c in v["foundations"].items())
        lines = [
            f"{self.variant.name}  base {v['base'] or '?'}  score {v['score']}  {v['status']}",
            "terrace: " + " ".join(v["terrace"]),
            found,
        ]
        lines += [f" {k}: " + " ".join(c) for k, c in v["piles"].items()]
        lines.append(f"waste: {' '.join(v['waste'][-5:])}  stock: {v['stock']}")
        return "\n".join(lines)
