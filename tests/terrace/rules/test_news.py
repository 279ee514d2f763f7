"""One sentence per engine event: the words every client shows, written out here."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

import terrace
from terrace.rules.news import KINDS, news, sentence

ROOT = Path(__file__).resolve().parents[3]

# every kind, and every variation a kind's words depend on: the web page's mirror is held to
# these too (tests/web/test_news_js.py)
SAID: list[tuple[dict[str, Any], str]] = [
    ({"type": "base", "card": "Td", "rank": "T"}, "Base 10: every foundation starts with a 10."),
    ({"type": "base", "card": "8h", "rank": "8"}, "Base 8: every foundation starts with an 8."),
    ({"type": "base", "card": "Ac", "rank": "A"}, "Base A: every foundation starts with an ace."),
    ({"type": "base", "card": "Qd", "rank": "Q"}, "Base Q: every foundation starts with a queen."),
    ({"type": "base", "card": "3s", "rank": "3"}, "Base 3: every foundation starts with a 3."),
    ({"type": "home", "card": "Ah", "to": "F1"}, ""),
    ({"type": "terrace_cleared"}, "Terrace cleared!"),
    ({"type": "turned"}, ""),
    ({"type": "recycled"}, "Waste turned over: on this last pass, play each card before you turn the next."),
    ({"type": "gap_filled", "pile": "4"}, "Pile 4 filled from the stock."),
    ({"type": "dealt", "heap": "c"}, ""),
    ({"type": "redealt", "deal": 2}, "Deal 2 begins."),
    ({"type": "game_over", "status": "won"}, "Every card is home: the game is won!"),
    ({"type": "game_over", "status": "lost"}, "No card can go home any more: the game is lost."),
    ({"type": "a_kind_from_a_newer_server"}, ""),
]


@pytest.mark.parametrize("event,said", SAID, ids=[f"{e['type']}-{i}" for i, (e, _) in enumerate(SAID)])
def test_each_event_has_its_one_sentence(event: dict[str, Any], said: str) -> None:
    assert sentence(event) == said


def test_the_sentences_cover_every_kind_the_engine_reports_and_the_guide_lists() -> None:
    assert {e["type"] for e, _ in SAID} >= set(KINDS)
    reported = set()
    for path in (ROOT / "terrace" / "rules").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == "type"
                        and isinstance(value, ast.Constant)
                    ):
                        reported.add(value.value)
    assert reported == set(KINDS)
    guide = (ROOT / "docs" / "ENGINE.md").read_text().split("`last_events` lists", 1)[1]
    assert set(re.findall(r'^\| `\{"type": "([a-z_]+)"', guide, re.M)) == set(KINDS)


def test_a_moves_news_joins_what_its_events_say_and_skips_the_silent_ones() -> None:
    events = [
        {"type": "home", "card": "Kh", "to": "F2"},
        {"type": "terrace_cleared"},
        {"type": "game_over", "status": "won"},
    ]
    assert news(events) == "Terrace cleared! Every card is home: the game is won!"
    assert news([{"type": "turned"}]) == news([]) == ""


def test_the_engines_first_move_says_its_base() -> None:
    game = terrace.new_game("terrace", deal=7)
    game.play("2f")
    assert news(game.last_events) == "Base 10: every foundation starts with a 10."
