"""Offline practice (client/practice.py): moves, refusals, undo, hints, restart and the end, on the engine."""

from __future__ import annotations

import re

import pytest

import terrace
from client import practice
from client.practice import PracticeTable
from client.render import board, to_text
from client.table import Table
from terrace.rules.news import news


def test_a_practice_table_is_a_table_with_a_title_and_no_standings() -> None:
    table: Table = PracticeTable("terrace", 7)
    assert table.title == "practice – terrace, deal 7"
    assert table.view() == terrace.new_game("terrace", 7).view()
    assert table.legal() == ["1-F1", "2-F1", "3-F1", "4-F1"]
    assert table.standings() == []
    assert table.over() is None
    clock = table.clock()
    assert clock is not None and re.fullmatch(r"\d\d:\d\d", clock)
    assert set(table.commands()) == {"undo", "hint", "restart"}


def test_without_a_deal_a_random_numbered_deal_is_played() -> None:
    table = PracticeTable("signora", None)
    assert 1 <= table.deal <= 1_000_000
    assert table.title == f"practice – signora, deal {table.deal}"
    assert table.view() == terrace.new_game("signora", table.deal).view()


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        PracticeTable("klondike", 1)


async def test_an_accepted_move_changes_the_view_and_says_what_happened() -> None:
    table = PracticeTable("terrace", 7)
    before = table.view()
    outcome = await table.move("2f")
    assert outcome.ok and outcome.move == "2-F1"
    assert outcome.events == [{"type": "base", "card": "Td", "rank": "T"}]
    assert "Base 10" in outcome.message
    after = table.view()
    assert after != before and after["foundations"]["F1"] == ["Td"] and after["moves"] == 1


async def test_an_illegal_move_gives_the_engines_reason_and_changes_nothing() -> None:
    table = PracticeTable("terrace", 7)
    before = table.view()
    outcome = await table.move("w3")
    with pytest.raises(terrace.IllegalMove) as refused:
        terrace.new_game("terrace", 7).play("w3")
    assert not outcome.ok and outcome.move == "" and outcome.events == []
    assert outcome.message == refused.value.message
    assert "base" in outcome.message.lower()
    assert table.view() == before
    await table.move("2f")
    before = table.view()
    outcome = await table.move("tf")  # the terrace top (6s) cannot go home on a 10 base
    assert not outcome.ok and outcome.message
    assert table.view() == before


async def test_d_turns_the_stock() -> None:
    table = PracticeTable("terrace", 7)
    await table.move("2f")
    before = table.view()
    outcome = await table.move("d")
    assert outcome.ok and outcome.move == "S-W"
    after = table.view()
    assert after["stock"] == before["stock"] - 1 and len(after["waste"]) == len(before["waste"]) + 1
    assert (await table.move("deal")).move == "S-W"


async def test_in_louis_d_is_heap_d_and_deal_deals() -> None:
    table = PracticeTable("louis", 1)
    refused = await table.move("d")
    assert (refused.ok, refused.message) == (False, "There is no card at d.")
    outcome = await table.move("deal")
    assert outcome.ok and outcome.move == "S-a"
    assert table.view()["heaps"]["a"] == ["9d"]


async def test_undo_restores_the_previous_view_exactly() -> None:
    table = PracticeTable("terrace", 7)
    views = [table.view()]
    for move in ["2f", "d", "d", "d", "d"]:
        assert (await table.move(move)).ok
        views.append(table.view())
    undo = table.commands()["undo"]
    assert await undo() == "Took back S-W."
    assert table.view() == views[-2]
    for expected in reversed(views[:-2]):
        await undo()
        assert table.view() == expected
    assert table.view() == views[0]


async def test_undo_with_nothing_to_undo() -> None:
    table = PracticeTable("louis", 1)
    before = table.view()
    assert await table.commands()["undo"]() == "Nothing to undo."
    assert table.view() == before


async def test_the_hint_is_one_of_the_legal_moves() -> None:
    table = PracticeTable("terrace", 7)
    hint = table.commands()["hint"]
    said = await hint()
    assert re.fullmatch(r"Hint: [1-4]-F1", said)
    await table.move(said.removeprefix("Hint: "))
    for _ in range(3):
        await table.move("d")
    said = await hint()
    assert said.startswith("Hint: ") and said.removeprefix("Hint: ") in table.legal()
    louis = PracticeTable("louis", 1)
    assert await louis.commands()["hint"]() == "Hint: S-a"


async def test_practice_says_a_move_in_the_words_an_online_race_says_it() -> None:
    table = PracticeTable("terrace", 7)
    outcome = await table.move("2f")
    assert outcome.message == news(outcome.events) == "Base 10: every foundation starts with a 10."


async def test_the_hint_follows_signoras_recycle() -> None:
    table = PracticeTable("signora", 3)
    await table.move("1f")
    while table.view()["stock"]:
        await table.move("d")
    outcome = await table.move("recycle")
    assert outcome.ok and outcome.move == "W-S" and "Waste turned over" in outcome.message
    said = await table.commands()["hint"]()
    assert said.removeprefix("Hint: ") in table.legal()


async def test_without_the_planner_the_hint_lists_the_legal_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(practice, "PLANNER", "no_such_package.planner")
    table = PracticeTable("terrace", 7)
    assert await table.commands()["hint"]() == "Legal moves: 1-F1 2-F1 3-F1 4-F1"


async def test_restart_deals_the_same_deal_again() -> None:
    table = PracticeTable("queen-of-italy", 11)
    fresh = table.view()
    for move in ["1f", "d", "d"]:
        await table.move(move)
    assert table.view() != fresh
    assert await table.commands()["restart"]() == "Dealt deal 11 again."
    assert table.view() == fresh and table.legal() == ["1-F1", "2-F1", "3-F1", "4-F1"]
    assert await table.commands()["undo"]() == "Nothing to undo."


async def test_a_lost_game_says_so_and_stays_open_for_undo() -> None:
    # Deal 7 with the base from pile 1 and the stock turned to the end: nothing more can go home.
    table = PracticeTable("terrace", 7)
    await table.move("1f")
    last = None
    while table.view()["stock"]:
        assert table.over() is None
        last = await table.move("d")
    assert last is not None and last.ok
    assert {"type": "game_over", "status": "lost"} in last.events
    assert table.view()["score"] == 1  # the base alone: one card, said in the singular
    assert last.message == (
        "No card can go home any more: the game is lost with 1 card home, 11 left in the terrace."
        " Type undo to take moves back, or restart."
    )
    assert table.over() is None  # practice goes on: undo and restart still work
    assert "STUCK" in to_text(board(table.view()), width=80)
    assert await table.commands()["undo"]() == "Took back S-W."
    assert table.lost() is None and table.view()["status"] == "playing"
