"""The Louis engine: twelve heaps, ace and king foundations, abeyance, three deals.

docs/rulebook.md, "Louis". Pack 0's aces and kings start the eight foundations;
the other 96 cards are dealt one by one onto heaps ``a``..``m`` (no ``j``). While
dealing, only the card just dealt may be played; once the stock is out every
heap top is free, heaps pack by suit one rank up or down, and the heaps may be
gathered and dealt again, three deals in all.

Two rules depend on the rules version (``terrace.rules.versions``): since version 2 a
card in abeyance that fits both foundations leaves its cell only by the two-card
move, and ``redeal`` waits until no card can go to a foundation.
"""

from __future__ import annotations

from typing import Any

from terrace.errors import IllegalMove
from terrace.rules.cards import NAME, RANK, SUIT, SUITS, card_id, parse_card
from terrace.rules.deal import Deal, shuffle
from terrace.rules.game import Event, Game, Move
from terrace.rules.variants import Variant
from terrace.rules.versions import RULES_VERSION

HEAP_LETTERS = "abcdefghiklm"
HEAPS = range(12)
ACES = range(12, 16)  # Ac Ad Ah As, built up
KINGS = range(16, 20)  # Kc Kd Kh Ks, built down
CELLS = range(20, 24)  # Xc Xd Xh Xs, one card each
S = 24
REDEAL = 25
PLACE_NAMES = (
    *HEAP_LETTERS,
    *(f"A{s}" for s in SUITS),
    *(f"K{s}" for s in SUITS),
    *(f"X{s}" for s in SUITS),
    "S",
    "redeal",
)
# Heaps are gathered g, h, i, k, l, m, a, b, c, d, e, f for the next deal.
GATHER_ORDER = (6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5)
FOUNDATION_CARDS = tuple(card_id(0, s, 1) for s in SUITS) + tuple(card_id(0, s, 13) for s in SUITS)


class LouisGame(Game):
    place_names = PLACE_NAMES
    stock_place = S
    foundation_places = range(12, 20)

    def __init__(self, variant: Variant, deal: Deal, rules_version: int = RULES_VERSION) -> None:
        super().__init__(variant, deal, rules_version)
        rest = [c for c in range(104) if c not in FOUNDATION_CARDS]
        self._places = [[] for _ in PLACE_NAMES]
        for place, c in zip(self.foundation_places, FOUNDATION_CARDS, strict=True):
            self._places[place].append(c)
        self._places[S] = shuffle(rest, deal)[::-1]  # pop() deals the next card
        self._deal_no = 1
        self._first_circuit = True
        self._last: int | None = None  # heap that took the last card dealt
        self._live: int | None = None  # heap whose top is the card just dealt, while playable

    # ----- derived state -------------------------------------------------------------

    @property
    def deal_no(self) -> int:
        """Which deal is being played (1..3)."""
        return self._deal_no

    @property
    def dealing(self) -> tuple[bool, int | None, int | None]:
        """The dealing state: the first circuit, the heap dealt to last, the live heap."""
        return self._first_circuit, self._last, self._live

    def _extra_state(self) -> tuple[Any, ...]:
        return (self._deal_no, self._first_circuit, self._last, self._live)

    def _set_extra_state(self, extra: tuple[Any, ...]) -> None:
        self._deal_no, self._first_circuit, self._last, self._live = extra

    @property
    def phase(self) -> str:
        return "deal" if self._places[S] else "play"

    def deal_target(self) -> int:
        last = self._last
        if last is None:
            return 0
        if self._first_circuit and not self._places[last]:
            return last  # its card was played away: the first circuit fills every heap
        return (last + 1) % 12

    def _homes(self, card: int) -> tuple[bool, bool]:
        """Whether ``card`` fits its ace foundation and its king foundation directly."""
        p = self._places
        s, r = SUIT[card], RANK[card]
        ace, king = p[ACES[s]], p[KINGS[s]]
        return (
            len(ace) < 13 and r == RANK[ace[-1]] + 1,
            len(king) < 13 and r == RANK[king[-1]] - 1,
        )

    def home_moves(self, src: int, card: int, out: list[Move]) -> bool:
        """Append ``card``'s foundation and abeyance moves; True if it can go home."""
        p = self._places
        s, r = SUIT[card], RANK[card]
        to_ace, to_king = self._homes(card)
        if src in CELLS and to_ace and to_king and self.rules.louis_abeyance_waits:
            return False  # it waits for a card that continues one side (the two-card move)
        if to_ace:
            out.append((src, ACES[s]))
        if to_king:
            out.append((src, KINGS[s]))
        if src in CELLS:
            return to_ace or to_king
        cell = p[CELLS[s]]
        via_ace = via_king = False
        if cell:
            held = cell[0]
            held_ace, held_king = self._homes(held)
            via_ace = held_ace and r == RANK[held] + 1
            via_king = held_king and r == RANK[held] - 1
            if via_ace:
                out.append((src, ACES[s]))
            if via_king:
                out.append((src, KINGS[s]))
        elif to_ace and to_king:
            out.append((src, CELLS[s]))
        return to_ace or to_king or via_ace or via_king

    def _search_places(self) -> tuple[range, range]:
        # The search runs only in the last deal's play phase (until then a deal, a card
        # going home or else a redeal is always a progress move), where heaps are alike
        # and only their cards count.
        return HEAPS, CELLS

    # ----- rule hooks ----------------------------------------------------------------

    def _generate(self) -> list[Move]:
        p = self._places
        moves: list[Move] = []
        for x in CELLS:
            if p[x]:
                self.home_moves(x, p[x][0], moves)
        if p[S]:
            moves.append((S, self.deal_target()))
            if self._live is not None:
                self.home_moves(self._live, p[self._live][-1], moves)
            return moves
        for src in HEAPS:
            if not p[src]:
                continue
            card = p[src][-1]
            if self.home_moves(src, card, moves):
                continue
            s, r = SUIT[card], RANK[card]
            for dst in HEAPS:
                if dst != src and p[dst]:
                    top = p[dst][-1]
                    if SUIT[top] == s and abs(RANK[top] - r) == 1:
                        moves.append((src, dst))
        if self._deal_no < self.variant.deals and not (
            self.rules.louis_redeal_when_stuck and any(m[1] in self.foundation_places for m in moves)
        ):
            moves.append((REDEAL, REDEAL))
        return moves

    def _is_progress(self, move: Move) -> bool:
        return move[1] in self.foundation_places or move[0] >= S

    def _apply(self, move: Move) -> list[Event]:
        src, dst = move
        p = self._places
        if src == REDEAL:
            gathered = [c for h in GATHER_ORDER for c in p[h]]
            for h in HEAPS:
                p[h] = []
            p[S] = gathered[::-1]
            self._deal_no += 1
            self._first_circuit, self._last, self._live = True, None, None
            return [{"type": "redealt", "deal": self._deal_no}]
        if src == S:
            if self._first_circuit and self._last == 11 and dst == 0:
                self._first_circuit = False
            p[dst].append(p[S].pop())
            self._last = dst
            self._live = dst if p[S] else None
            return [{"type": "dealt", "heap": PLACE_NAMES[dst]}]
        card = p[src][-1]
        events: list[Event] = []
        if dst in self.foundation_places and src in HEAPS and not self._homes(card)[dst in KINGS]:
            held = p[CELLS[SUIT[card]]].pop()  # the two-card move: abeyance card first
            p[dst].append(held)
            events.append({"type": "home", "card": NAME[held], "to": PLACE_NAMES[dst]})
        self._relocate(src, dst)
        if dst in self.foundation_places:
            events.append({"type": "home", "card": NAME[card], "to": PLACE_NAMES[dst]})
        if src == self._live:
            self._live = None
        return events

    def _why(self, move: Move) -> IllegalMove:
        src, dst = move
        p = self._places
        names = PLACE_NAMES
        if src == REDEAL or dst == REDEAL:
            if p[S]:
                return IllegalMove("redeal_while_dealing")
            if self._deal_no >= self.variant.deals:
                return IllegalMove("no_more_deals")
            return IllegalMove("redeal_while_playable")
        if src in self.foundation_places:
            return IllegalMove("foundation_is_final")
        if src == S:
            if dst not in HEAPS:
                return IllegalMove("bad_target", source="S", target=names[dst])
            if not p[S]:
                return IllegalMove("stock_empty")
            return IllegalMove("wrong_heap", heap=names[self.deal_target()])
        if dst == S:
            return IllegalMove("bad_target", source=names[src], target="S")
        if src == dst:
            return IllegalMove("same_place")
        if not p[src]:
            return IllegalMove("empty_source", place=names[src])
        card = p[src][-1]
        fields: dict[str, Any] = {"card": NAME[card], "target": names[dst]}
        if src in HEAPS and p[S]:
            if src != self._live:
                return IllegalMove("deal_in_progress")
            if dst in HEAPS:
                return IllegalMove("dealt_card_targets")
        if src in CELLS and dst not in self.foundation_places:
            return IllegalMove("bad_target", source=names[src], target=names[dst])
        if dst in self.foundation_places:
            if SUIT[card] != SUIT[p[dst][0]]:
                return IllegalMove("foundation_suit", **fields)
            if len(p[dst]) == 13:
                return IllegalMove("foundation_complete", target=names[dst])
            if src in CELLS and all(self._homes(card)):
                return IllegalMove("abeyance_waits", **fields)
            return IllegalMove("foundation_rank", top=NAME[p[dst][-1]], **fields)
        if dst in CELLS:
            if dst != CELLS[SUIT[card]]:
                return IllegalMove("abeyance_suit", **fields)
            if p[dst]:
                return IllegalMove("abeyance_full", target=names[dst])
            return IllegalMove("abeyance_needs_both", **fields)
        if not p[dst]:
            return IllegalMove("heap_to_empty")
        scratch: list[Move] = []
        if self.home_moves(src, card, scratch):
            return IllegalMove("must_go_home", card=NAME[card])
        return IllegalMove("heap_sequence", top=NAME[p[dst][-1]], **fields)

    def _place(self, token: str) -> int | None:
        if len(token) == 1:
            if token in HEAP_LETTERS:
                return HEAP_LETTERS.index(token)
            return S if token in "Ss" else None
        if len(token) == 2 and token[0] in "AKXakx" and token[1].lower() in SUITS:
            if token[0] in "ak" and token[1] in HEAP_LETTERS:
                return None  # ``ah``: heap a to heap h, not the foundation
            return PLACE_NAMES.index(token[0].upper() + token[1].lower())
        return None

    def _sources(self, token: str) -> list[int] | None:
        place = self._place(token)
        card = parse_card(token)
        if card is None:
            return None if place is None else [place]
        rank, suit = card
        p = self._places
        held = [s for s in (*HEAPS, *CELLS) if p[s] and RANK[p[s][-1]] == rank and SUIT[p[s][-1]] == suit]
        if place is not None and place not in self.foundation_places:
            held.insert(0, place)
        return held

    def _targets(self, token: str) -> tuple[list[int], bool] | None:
        if token == "F":
            return list(self.foundation_places), True
        place = self._place(token)
        return None if place is None else ([place], False)

    def _word(self, word: str) -> Move | None:
        if word == "deal":
            return (S, self.deal_target())
        if word == "redeal":
            return (REDEAL, REDEAL)
        return None

    def move_name(self, move: Move) -> str:
        return "redeal" if move[0] == REDEAL else super().move_name(move)

    # ----- views -----------------------------------------------------------------------

    def _board(self) -> dict[str, Any]:
        p = self._places
        dealing = bool(p[S])
        return {
            "variant": self.variant.id,
            "phase": self.phase,
            "deal": self._deal_no,
            "deals_left": self.variant.deals - self._deal_no,
            "foundations": {PLACE_NAMES[f]: [NAME[c] for c in p[f]] for f in self.foundation_places},
            "abeyance": {PLACE_NAMES[x]: (NAME[p[x][0]] if p[x] else None) for x in CELLS},
            "heaps": {PLACE_NAMES[h]: [NAME[c] for c in p[h]] for h in HEAPS},
            "stock": len(p[S]),
            "next_heap": PLACE_NAMES[self.deal_target()] if dealing else None,
            "live": PLACE_NAMES[self._live] if self._live is not None else None,
            "score": self.score,
            "terrace_left": 0,
        }

    def __str__(self) -> str:
        v = self.view()
        tops = "  ".join(f"{k}:{c[-1]}" for k, c in v["foundations"].items())
        held = " ".join(f"{k}:{c}" for k, c in v["abeyance"].items() if c)
        lines = [f"Louis  deal {v['deal']}  {v['phase']}  score {v['score']}  {v['status']}", tops]
        if held:
            lines.append("abeyance " + held)
        lines += [f" {k}: " + " ".join(c) for k, c in v["heaps"].items()]
        lines.append(f"stock: {v['stock']}  next heap: {v['next_heap'] or '-'}")
        return "\n".join(lines)
