"""What the screen teaches: help per variant with examples that work, one card notation,
the player's own row kept, bots named, the end screen, confirmations, line mode's news."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import terrace
from client.layout import end_screen, screen
from client.render import standings, to_text
from client.screen import Screen, changed_lines
from client.table import Outcome
from client.teach import cards_in_text, help_text, short_form


def _played(variant: str, deal: int, moves: int) -> terrace.Game:  # type: ignore[name-defined]
    g = terrace.new_game(variant, deal)
    for _ in range(moves):
        legal = sorted(g.legal_moves())
        if not legal:
            break
        g.play(legal[len(legal) // 2])
    return g


@pytest.mark.parametrize("variant", list(terrace.VARIANTS))
@pytest.mark.parametrize("moves", [0, 1, 12, 40])
def test_every_example_in_help_is_typed_as_shown_and_reads_as_its_move(variant: str, moves: int) -> None:
    g = _played(variant, 3, moves)
    text = help_text(variant, g.view(), sorted(g.legal_moves()), ["resign"])
    examples = [line.strip() for line in text.splitlines() if line.startswith("  ")]
    assert examples or not g.legal_moves()
    for line in examples:
        move = line.split()[0].rstrip(":")
        typed = short_form(move, variant)
        assert f"({typed})" in line or typed == move
        assert g.resolve(typed) == move, (line, typed)


def test_help_tells_each_variants_own_rules_and_notation() -> None:
    louis = _played("louis", 7, 0)
    text = help_text("louis", louis.view(), sorted(louis.legal_moves()), [])
    assert "heaps a-m" in text and "abeyance" in text and "d for the stock" not in text
    family = _played("signora", 7, 0)
    text = help_text("signora", family.view(), sorted(family.legal_moves()), ["undo", "hint"])
    assert "one suit" in text and "W-S" in text and "d for the stock" in text
    assert "Commands: undo, hint, help, quit." in text
    terrace_text = help_text("terrace", family.view(), [], [])
    assert "colours alternating" in terrace_text and "no second pass" in terrace_text


@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora"])
def test_help_at_the_base_choice_lists_every_base_the_engine_allows(variant: str) -> None:
    game = _played(variant, 7, 0)
    legal = sorted(game.legal_moves())
    assert legal == ["1-F1", "2-F1", "3-F1", "4-F1"]  # the engine: any of the four cards on piles 1-4
    text = help_text(variant, game.view(), legal, [])
    listed = [line.split()[0] for line in text.splitlines() if line.startswith("  ")]
    assert listed == legal
    assert "Now you could type:" in text  # nothing left out, so no count of the others


def test_help_says_how_many_legal_moves_it_leaves_out() -> None:
    game = _played("terrace", 3, 12)
    legal = sorted(game.legal_moves())
    assert len(legal) > 3
    text = help_text("terrace", game.view(), legal, [])
    assert f"Now you could type (3 of {len(legal)} legal moves; Tab lists them all):" in text
    assert sum(line.startswith("  ") for line in text.splitlines()) == 3


def test_help_gives_each_paragraph_on_one_line_for_the_screen_to_wrap() -> None:
    game = _played("terrace", 7, 0)
    lines = help_text("terrace", game.view(), sorted(game.legal_moves()), []).splitlines()
    assert lines[0].startswith("Terrace: build") and lines[0].endswith("there is no second pass.")
    assert lines[1].startswith("Moves are SOURCE-TARGET") and lines[1].endswith("T alone is the terrace.")


def test_cards_in_sentences_are_written_as_the_board_writes_them() -> None:
    assert cards_in_text("5c cannot go on 7d") == "5♣ cannot go on 7♦"
    assert cards_in_text("Th follows 9s; 10h too") == "10♥ follows 9♠; 10♥ too"
    assert cards_in_text("T-F1 and S-W stay places") == "T-F1 and S-W stay places"
    assert cards_in_text("7h does not follow 5h on Ah", "louis") == "7♥ does not follow 5♥ on Ah"
    assert cards_in_text("Kc cannot go on Ah") == "K♣ cannot go on A♥"  # a card in the Terrace family


def _row(name: str, kind: str = "human", **more: Any) -> dict[str, Any]:
    return {
        "player": {"name": name, "kind": kind},
        "score": 1,
        "terrace_left": 10,
        "moves": 3,
        "finished": False,
        "finish": None,
        "place": None,
        "connected": True,
        **more,
    }


def test_standings_cut_to_fit_keep_my_own_row_and_say_who_is_a_bot() -> None:
    rows = [_row(f"bot{i}", "bot") for i in range(6)] + [_row("me")]
    text = to_text(standings(rows, "me", limit=3), 80)
    assert "▶ me" in text and "bot0" in text and "bot1" in text and "bot2" not in text
    assert "bot0 bot" in text  # a program is named as one
    assert to_text(standings(rows, "me"), 80).count("bot ") >= 6


def test_the_screen_fits_80x24_with_four_players_and_a_message() -> None:
    g = _played("terrace", 7, 30)
    rows = [_row("house-greedy-1", "bot"), _row("house-greedy-2", "bot"), _row("house-planner-1", "bot")]
    rows.append(_row("newcomer"))
    text = to_text(screen(g.view(), rows, "newcomer", None, "race", "✗ refused", compact=True), 80)
    assert len(text.rstrip("\n").splitlines()) <= 22  # 24 less the prompt and the bottom bar
    assert "▶ newcomer" in text


class _Table:
    """A table that records what reached it."""

    title = "t"

    def __init__(self) -> None:
        self.done: list[str] = []

    def view(self) -> dict[str, Any]:
        return {"variant": "terrace"}

    def legal(self) -> list[str]:
        return []

    def standings(self) -> list[dict[str, Any]]:
        return []

    def clock(self) -> str | None:
        return None

    def over(self) -> str | None:
        return None

    async def move(self, text: str) -> Outcome:
        self.done.append(text)
        return Outcome(False, message="5c cannot go on 7d")

    def commands(self) -> dict[str, Callable[[], Awaitable[str]]]:
        async def resign() -> str:
            self.done.append("resign")
            return "You resigned."

        return {"resign": resign}


async def test_resign_and_quit_are_asked_about_before_they_are_done() -> None:
    table = _Table()
    s = Screen(table, confirm=("quit", "resign"))  # type: ignore[arg-type]
    assert await s.handle("resign") and table.done == []
    assert s.message is not None and "Type y" in s.message
    assert await s.handle("no thanks")  # anything else drops the question (and is taken as a move)
    assert table.done == ["no thanks"]
    assert await s.handle("resign") and await s.handle("y")
    assert table.done == ["no thanks", "resign"]
    assert await s.handle("quit")  # asked first
    assert not await s.handle("quit")  # the same word again confirms


@pytest.mark.parametrize("word", ["quit", "resign", "leave"])
async def test_no_to_a_question_only_drops_it_and_every_question_says_what_else_does(word: str) -> None:
    table = _Table()
    s = Screen(table, confirm=("quit", "resign", "leave"))  # type: ignore[arg-type]
    assert await s.handle(word)
    assert s.message is not None and f"Type y to {word}, anything else to " in s.message
    assert await s.handle("n")  # an answer: not read as a move
    assert table.done == [] and s.message == "Carrying on."
    assert await s.handle("n")  # asked nothing now: read as a move as usual
    assert table.done == ["n"]


async def test_refusals_are_shown_in_board_notation() -> None:
    s = Screen(_Table())  # type: ignore[arg-type]
    await s.handle("5c7d")
    assert s.message == "✗ 5♣ cannot go on 7♦"


def test_line_mode_prints_only_the_lines_that_changed() -> None:
    before = "title\npile 1  5♣\npile 2  7♦\n1  alice  3"
    after = "title\npile 1  5♣\npile 2  7♦ 6♣\n1  alice  4"
    assert changed_lines(before, after) == ["pile 2  7♦ 6♣", "1  alice  4"]
    assert changed_lines("", after) == after.splitlines()


def test_the_end_screen_says_the_place_the_time_the_rule_and_what_next() -> None:
    results = [
        {**_row("ada"), "place": 1, "finish": "goal", "time": 151_400, "finished": True},
        {**_row("house-greedy-1", "bot"), "place": 2, "finish": "stuck", "time": 20_000, "finished": True},
        {**_row("me"), "place": 3, "finish": "resigned", "time": 90_000, "finished": True},
    ]
    finished = {"race": "9f3a61c2", "variant": "terrace", "goal": "terrace", "results": results}
    text = to_text(end_screen(finished, "me"), 100)
    assert "You placed 3rd of 3" in text and "resigned at 1:30.0" in text
    assert "goal first, by time; then more cards home; then fewer terrace cards left" in text
    assert "terrace play --queue terrace" in text and "terrace replay 9f3a61c2" in text
    assert "terrace verify 9f3a61c2" in text
    assert text.count("ada") == 1  # the results once
    assert "You won" in to_text(end_screen(finished, "ada"), 100)


def test_the_end_screen_in_an_arena_offers_no_race_again_since_the_arena_pairs_you() -> None:
    results = [{**_row("me"), "place": 1, "finish": "goal", "time": 151_400, "finished": True}]
    text = to_text(end_screen({"race": "9f3a61c2", "variant": "terrace", "results": results}, "me", ""), 120)
    assert "race again" not in text and "terrace play" not in text
    assert "Next:\n  step through it: terrace replay 9f3a61c2\n  check it: terrace verify 9f3a61c2" in text


def test_a_louis_end_screen_has_no_terrace_column_nor_terrace_in_its_ranking_rule() -> None:
    results = [
        {**_row("me"), "place": 1, "finish": "goal", "time": 151_400, "finished": True, "terrace_left": 0}
    ]
    louis = to_text(end_screen({"race": "r1", "variant": "louis", "results": results}, "me"), 120)
    assert "terrace" not in louis.replace("terrace replay", "").replace("terrace verify", "").replace(
        "terrace play", ""
    ), louis
    assert "Ranking: goal first, by time; then more cards home; then the earlier last card home." in louis
    family = to_text(end_screen({"race": "r1", "variant": "signora", "results": results}, "me"), 120)
    assert " terrace " in family and "then fewer terrace cards left" in family


def _first(finish: str, players: int, place: int = 1, score: int = 1) -> str:
    """The end screen's first line for ``me`` finishing ``finish`` at ``place`` among ``players``."""
    mine = {**_row("me"), "place": place, "finish": finish, "time": 22_800, "finished": True, "score": score}
    others = [
        {**_row(f"rival{n}"), "place": n + (n >= place), "finish": "stuck", "time": 9_000, "finished": True}
        for n in range(1, players)
    ]
    text = to_text(end_screen({"race": "r1", "results": [mine, *others]}, "me"), 200)
    return text.splitlines()[0]


@pytest.mark.parametrize(
    ("finish", "players", "place", "said"),
    [
        # a race of one: nobody to beat, so never "won"; the finish says how it ended
        ("resigned", 1, 1, "You resigned · 1st of 1 · at 0:22.8 · 1 card home"),
        ("left", 1, 1, "You left · 1st of 1 · at 0:22.8"),
        ("disconnected", 1, 1, "You were disconnected · 1st of 1 · at 0:22.8"),
        ("goal", 1, 1, "You reached the goal! · 1st of 1 · at 0:22.8"),
        ("stuck", 1, 1, "Stuck: no card can go home · 1st of 1 · at 0:22.8"),
        ("time", 1, 1, "Time ran out · 1st of 1 · at 0:22.8"),
        # several: first place is a win unless you gave up (resigned or left) to get it
        ("goal", 3, 1, "You won! 1st of 3 · goal at 0:22.8"),
        ("stuck", 3, 1, "You won! 1st of 3 · stuck at 0:22.8"),
        ("time", 3, 1, "You won! 1st of 3 · time at 0:22.8"),
        ("resigned", 3, 1, "You resigned · 1st of 3 · at 0:22.8"),
        ("left", 3, 1, "You left · 1st of 3 · at 0:22.8"),
        ("resigned", 3, 2, "You placed 2nd of 3 · resigned at 0:22.8"),
        ("goal", 3, 3, "You placed 3rd of 3 · goal at 0:22.8"),
    ],
)
def test_the_end_screen_calls_a_win_only_a_win(finish: str, players: int, place: int, said: str) -> None:
    line = _first(finish, players, place)
    assert line.startswith(said), line
    assert ("You won" in line) == said.startswith("You won")


def test_the_end_screen_counts_cards_home_in_the_singular_for_one() -> None:
    assert _first("goal", 3, 2, score=1).endswith(" · 1 card home")
    assert _first("goal", 3, 2, score=0).endswith(" · 0 cards home")
    assert _first("goal", 3, 2, score=2).endswith(" · 2 cards home")


def test_an_empty_board_says_why_and_how_to_get_on_it() -> None:
    from client.render import leaderboard

    empty = {"board": "rating", "variant": "terrace", "pool": "humans", "rows": [], "total": 0}
    text = to_text(leaderboard(empty), 400)
    assert "Nobody on this board yet." in text and "terrace register NAME" in text
    assert "house bots are not rated" in text
    fastest = to_text(leaderboard({**empty, "board": "fastest", "pool": None}), 400)
    assert "reach the race's goal" in fastest


def test_the_end_screen_says_when_and_why_a_race_is_not_rated() -> None:
    guest = {**_row("me"), "place": 1, "finish": "goal", "time": 1000, "finished": True}
    guest["player"] = {"name": "me", "kind": "human", "guest": True}
    bot = {**_row("robo", "bot"), "place": 2, "finish": "stuck", "finished": True}
    bot["player"] = {"name": "robo", "kind": "bot", "guest": False}
    text = to_text(end_screen({"race": "r1", "results": [guest, bot]}, "me"), 120)
    assert "Not rated: ratings count only races of registered players" in text
    guest["player"] = {**guest["player"], "guest": False}
    text = to_text(end_screen({"race": "r1", "results": [guest, bot]}, "me"), 120)
    assert "Not rated: ratings compare people with people and bots with bots" in text
    bot["player"] = {**bot["player"], "kind": "human"}
    assert "Not rated" not in to_text(end_screen({"race": "r1", "results": [guest, bot]}, "me"), 120)


def test_play_says_hello_with_the_token_stored_for_the_name_given(config_dir: object) -> None:
    import argparse

    from client import config
    from client.race_table import hello_fields

    config.save_token("ws://s/ws", "gil", "tok-gil", "human")
    config.save_token("ws://s/ws", "hal", "tok-hal", "human")
    assert hello_fields(argparse.Namespace(server="ws://s/ws", name="Gil")) == {"token": "tok-gil"}
    assert hello_fields(argparse.Namespace(server="ws://s/ws", name=None)) == {"token": "tok-hal"}
    assert hello_fields(argparse.Namespace(server="ws://s/ws", name="ivy")) == {"name": "ivy"}


@pytest.mark.parametrize(
    ("flags", "race", "again"),
    [
        (
            {"create": "terrace", "seats": 1, "winnable": True},
            {},
            "terrace play --create terrace --seats 1 --winnable",
        ),
        (
            {"create": "signora", "seats": 3, "goal": "clear"},
            {},
            "terrace play --create signora --seats 3 --goal clear",
        ),
        ({"queue": "terrace", "winnable": True}, {}, "terrace play --queue terrace --winnable"),
        ({"queue": "louis"}, {}, "terrace play --queue louis"),
        (
            {"race": "abc"},
            {"variant": "queen-of-italy", "goal": "clear"},
            "terrace play --queue queen-of-italy --goal clear",
        ),
        (
            {"race": "abc"},
            {"variant": "louis", "goal": "clear"},
            "terrace play --queue louis",
        ),  # its only goal
    ],
)
def test_race_again_suggests_a_command_for_the_same_kind_of_race(
    flags: dict[str, Any], race: dict[str, Any], again: str
) -> None:
    import argparse

    from client.play import again_command

    args = argparse.Namespace(
        **{"queue": None, "race": None, "create": None, "seats": 2, "goal": None, "winnable": False, **flags}
    )
    assert again_command(args, race) == again
    results = [{**_row("me"), "place": 1, "finish": "resigned", "time": 1000, "finished": True}]
    text = to_text(end_screen({"race": "r1", "variant": "terrace", "results": results}, "me", again), 300)
    assert f"race again: {again}\n" in text  # the whole command, then the next line


def test_tab_offers_the_moves_of_a_card_typed_with_10_or_t() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from client.practice import PracticeTable
    from client.screen import _Moves

    table = PracticeTable("terrace", 7)
    [ten_pile] = [p for p, pile in table.view()["piles"].items() if pile and pile[-1] == "Td"]
    for typed in ("10d", "Td", "t♦", "10D"):
        offered = [c.text for c in _Moves(table, []).get_completions(Document(typed), CompleteEvent())]
        assert offered == [f"{ten_pile}-F1"], (typed, offered)
    assert [c.text for c in _Moves(table, []).get_completions(Document("9z"), CompleteEvent())] == []
