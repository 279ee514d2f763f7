"""What a move did, in words for a person: one sentence per engine event, shared by every client.

The engine says what a move did as events (docs/ENGINE.md, "Status, events"); :func:`sentence`
gives the one sentence every client shows for an event, and :func:`news` a move's events as one
line. A card going home, a stock card turned and a Louis card dealt say nothing: the board shows
them. The web pages say the same words from ``server/static/news.js``, which mirrors this module
(``tests/web/test_news_js.py`` compares the two on every event kind).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

KINDS = (
    "base",
    "home",
    "terrace_cleared",
    "turned",
    "recycled",
    "gap_filled",
    "dealt",
    "redealt",
    "game_over",
)
"""Every kind of event the engine reports."""

_RANK_WORDS = {"A": "an ace", "8": "an 8", "T": "a 10", "J": "a jack", "Q": "a queen", "K": "a king"}


def sentence(event: Mapping[str, Any]) -> str:
    """The sentence for one engine event ("" for one the board shows by itself)."""
    kind = event.get("type")
    if kind == "base":
        rank = str(event.get("rank"))
        shown = "10" if rank == "T" else rank
        return f"Base {shown}: every foundation starts with {_RANK_WORDS.get(rank, f'a {rank}')}."
    if kind == "terrace_cleared":
        return "Terrace cleared!"
    if kind == "recycled":
        return "Waste turned over: on this last pass, play each card before you turn the next."
    if kind == "gap_filled":
        return f"Pile {event.get('pile')} filled from the stock."
    if kind == "redealt":
        return f"Deal {event.get('deal')} begins."
    if kind == "game_over":
        if event.get("status") == "won":
            return "Every card is home: the game is won!"
        return "No card can go home any more: the game is lost."
    return ""


def news(events: Iterable[Mapping[str, Any]]) -> str:
    """A move's events as one line ("" when none says anything)."""
    return " ".join(said for said in map(sentence, events) if said)
