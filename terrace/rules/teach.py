"""What a player is taught, once for every client: each variant's goal and rules in a few lines,
its move notation, what each place on the board is, and one way of writing cards (``10♥``).

Pure data and pure functions. The terminal's ``help`` (client/teach.py) and the web pages (the
server writes :func:`teach_data` into ``/static/teach.js``) read these same lines, so a person
learns the same rules in either. Players may type a ten as ``10`` or ``T``; every sentence shown
writes ``10``, with suit symbols, as the board draws cards.
"""

from __future__ import annotations

import re
from typing import Any

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
# A card as typed (``7h``, ``Th``, ``10h``) standing alone in a sentence.
CARD_PATTERN = r"(?<![\w♣♦♥♠])(10|[A2-9TJQK])([cdhs])(?![\w♣♦♥♠])"
_CARD = re.compile(CARD_PATTERN)

RULES: dict[str, tuple[str, ...]] = {
    "terrace": (
        "Terrace: build the 8 foundations F1-F8 up from the base rank, colours alternating,",
        "round the corner (K, A, 2). Piles 1-9 build down, colours alternating, one card at a time.",
        "Only the terrace top (T) moves, and only to a foundation. A gap takes the waste top only.",
        "Turn the stock onto the waste one card at a time; there is no second pass.",
    ),
    "queen-of-italy": (
        "Queen of Italy: build the 8 foundations F1-F8 up from the base rank, colours alternating,",
        "round the corner (K, A, 2). Piles 1-9 build down, colours alternating, one card at a time.",
        "Only the terrace top (T) moves, and only to a foundation. A gap is refilled from the stock",
        "at once; once the stock is out the waste top may fill it. No second pass.",
    ),
    "signora": (
        "Signora: build the 8 foundations F1-F8 up from the base rank in one suit, round the corner",
        "(K, A, 2). Piles 1-9 build down, colours alternating. Any free card may fill a gap.",
        "The terrace top (T) goes to foundations; once stock and waste are used up it may go to a pile.",
        "Once the stock is out you may turn the waste over once (W-S): then play each card before the next.",
    ),
    "louis": (
        "Louis: the aces (Ac Ad Ah As) build up in suit to K, the kings (Kc Kd Kh Ks) down in suit to A.",
        "Deal the stock onto the heaps a-m (no j); the card just dealt may go to a foundation at once.",
        "Once the stock is out, heap tops go to foundations, or onto a heap whose top is the same suit",
        "and one rank higher or lower. A card fitting both foundations of its suit waits in abeyance (X).",
    ),
}

NOTATION: dict[str, tuple[str, ...]] = {
    "family": (
        "Moves are SOURCE-TARGET: T terrace top, W waste top, S stock, 1-9 piles, F1-F8 foundations.",
        "Short forms: no dash (w3), F for the first foundation that takes the card (4f, tf),",
        "d for the stock (S-W); a card may name its place (7c-F2). A ten is 10 (T also, inside a card's name); T alone is the terrace.",
    ),
    "louis": (
        "Moves are SOURCE-TARGET: S stock, heaps a-m, Ac..As and Kc..Ks foundations, Xc..Xs abeyance.",
        "Heaps are lower case, foundations start with A or K: aAh is heap a to the ace foundation of",
        "hearts, ah is heap a onto heap h, aF the first foundation that takes it. deal deals the next card.",
    ),
}

# What wins a race, by goal (Louis has only ``clear``).
GOALS: dict[str, str] = {
    "terrace": "Goal: be the first to empty the terrace: all 11 of its cards on the foundations.",
    "clear": "Goal: be the first to put every card on the foundations (all 104).",
}

# The first move of the family, which nothing else on the board says.
FIRST_MOVE = (
    "Your first move picks the base: one of the cards on piles 1-4 goes to F1, and every "
    "foundation then starts with a card of its rank."
)

# Louis's places, which a person meeting the game cannot guess from their names.
LOUIS_LEGEND: tuple[str, ...] = (
    "Heaps a-m (there is no j): the stock is dealt onto them one card at a time, in turn.",
    "Ac Ad Ah As: the ace foundations, built up in suit from the ace to the king.",
    "Kc Kd Kh Ks: the king foundations, built down in suit from the king to the ace.",
    "Xc Xd Xh Xs: abeyance, one cell per suit: a card that fits both foundations of its suit "
    "may wait there until a card continues one side; then both go there in one move.",
    "Three deals: once the stock is out and no card can go home, redeal gathers the heaps "
    "and deals them again.",
)


def place_words(place: str, variant: str) -> str:
    """One place in words, as hover and screen readers say it (``F3`` -> ``foundation F3: ...``)."""
    family = variant != "louis"
    if family:
        in_suit = variant == "signora"
        if place == "T":
            return "terrace: only its top card (the last one laid) may move, and only to a foundation"
        if place == "S":
            return "stock: face down; turn its next card onto the waste"
        if place == "W":
            return "waste: its top card may go to a foundation or a pile"
        if place.startswith("F"):
            how = "in one suit" if in_suit else "colours alternating"
            return f"foundation {place}: builds up from the base rank, {how}"
        if place.isdigit():
            return f"pile {place}: builds down, colours alternating; only its top card moves"
        return place
    if place == "S":
        return "stock: face down; deal its next card onto the heap whose turn it is"
    if len(place) == 2 and place[0] in "AKX" and place[1] in SUITS:
        suit = SUIT_NAMES[place[1]]
        if place[0] == "A":
            return f"ace foundation of {suit} ({place}): builds up in suit to the king"
        if place[0] == "K":
            return f"king foundation of {suit} ({place}): builds down in suit to the ace"
        return f"abeyance of {suit} ({place}): a card that fits both foundations of {suit} waits here"
    return f"heap {place}: dealt onto from the stock; its top card moves once the stock is out"


def rule_lines(variant: str, goal: str) -> list[str]:
    """The few lines beside the board: the goal, then the variant's rules, one sentence a line."""
    rules = " ".join(RULES.get(variant, RULES["terrace"]))
    return [GOALS.get(goal, GOALS["clear"]), *_sentences(rules)]


def _sentences(text: str) -> list[str]:
    """A paragraph cut after each full stop that ends a sentence (not ``(K, A, 2).`` inside one)."""
    return [s for s in re.split(r"(?<=\.) (?=[A-Z])", text) if s]


def card_text(name: str) -> str:
    """A card as the board shows it: ``Th`` -> ``10♥``; anything else unchanged."""
    m = _CARD.fullmatch(name)
    if not m:
        return name
    rank = "10" if m.group(1) in ("T", "10") else m.group(1)
    return rank + SUITS[m.group(2)]


def cards_in_text(sentence: str, variant: str = "terrace") -> str:
    """Every card name in ``sentence`` written as the board shows it (``5c cannot go on Td`` ->
    ``5♣ cannot go on 10♦``). In Louis a foundation is named like its first card (``Ah``):
    after ``on``, ``to`` or a dash it is a place, and stays as it is typed."""

    def one(m: re.Match[str]) -> str:
        before = sentence[: m.start()].rstrip().lower()
        place = before.endswith((" on", " to", "-", "at")) and m.group(1) in "AK"
        if place and variant == "louis":
            return m.group(0)
        return card_text(m.group(0))

    return _CARD.sub(one, sentence)


def teach_data() -> dict[str, Any]:
    """Everything above as plain data, for the pages (``/static/teach.js``)."""
    families = ("terrace", "queen-of-italy", "signora")
    places = {
        v: {
            p: place_words(p, v)
            for p in ["T", "S", "W", *(f"F{i}" for i in range(1, 9)), *map(str, range(1, 10))]
        }
        for v in families
    }
    places["louis"] = {
        p: place_words(p, "louis") for p in ["S", *"abcdefghiklm", *(k + s for k in "AKX" for s in SUITS)]
    }
    return {
        "rules": {v: list(lines) for v, lines in RULES.items()},
        "notation": {k: list(lines) for k, lines in NOTATION.items()},
        "goals": dict(GOALS),
        "first_move": FIRST_MOVE,
        "louis_legend": list(LOUIS_LEGEND),
        "places": places,
        "rule_lines": {v: {g: rule_lines(v, g) for g in ("terrace", "clear")} for v in RULES},
        "suits": dict(SUITS),
        "card_pattern": CARD_PATTERN,
    }
