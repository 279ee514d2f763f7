"""The play page teaches: the goal and rules the terminal's help says (one source, the core's
terrace/rules/teach.py), a ? for more, every place in words on hover and for screen readers,
Louis's places explained, legal moves said with cards, refusals in the board's card symbols."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from client.teach import help_text
from server.app import RaceServer
from terrace.rules.teach import LOUIS_LEGEND, NOTATION, cards_in_text, place_words, rule_lines

from .conftest import http_url, shot

pytestmark = pytest.mark.asyncio(loop_scope="module")

TYPED_CARD = re.compile(r"(?<![\w♣♦♥♠])(10|[A2-9TJQK])[cdhs](?![\w♣♦♥♠])")


async def _hello(page: Any, server: RaceServer, name: str, path: str = "/play") -> None:
    await page.goto(http_url(server, path))
    await page.locator("#name").fill(name)
    await page.locator("#go").click()
    await page.get_by_text(f"You are {name}").wait_for()


async def _rules(page: Any) -> list[str]:
    return await page.locator("#teach ul.rules li").all_inner_texts()  # type: ignore[no-any-return]


def _terminal_rules(variant: str) -> str:
    """The rules paragraph of the terminal's ``help`` (its first line)."""
    return help_text(variant, {}, [], []).splitlines()[0]


async def test_the_page_and_the_terminal_teach_the_same_rules(server: RaceServer, page: Any) -> None:
    await _hello(page, server, "newt")
    rules = await _rules(page)  # before any race: the goal first, then the rules
    assert rules == rule_lines("terrace", "terrace")
    assert rules[0] == "Goal: be the first to empty the terrace: all 11 of its cards on the foundations."
    assert " ".join(rules[1:]) == _terminal_rules("terrace")
    await page.locator("#goal").select_option("clear")
    assert (await _rules(page))[0] == "Goal: be the first to put every card on the foundations (all 104)."
    for variant in ("queen-of-italy", "signora", "louis"):
        await page.locator("#variant").select_option(variant)
        rules = await _rules(page)
        assert " ".join(rules[1:]) == _terminal_rules(variant), variant
    # "?" opens the rest, and says it is open: for Louis, what its places are, and the notation
    more = page.locator("#teach-more")
    assert await more.is_hidden()
    await page.locator("#teach-toggle").click()
    assert await page.locator("#teach-toggle").get_attribute("aria-expanded") == "true"
    assert await page.locator("#teach-more .legend li").all_inner_texts() == list(LOUIS_LEGEND)
    notation = await page.locator("#teach-more .notation").inner_text()
    assert notation == " ".join(NOTATION["louis"]) == help_text("louis", {}, [], []).splitlines()[1]
    await shot(page, "teach-home-louis")
    await page.locator("#teach-toggle").click()
    assert await more.is_hidden()


async def test_a_race_says_its_moves_with_cards_its_places_in_words_and_refusals_in_symbols(
    server: RaceServer, page: Any
) -> None:
    await _hello(page, server, "tilly")
    await page.locator("#seats").fill("1")
    await page.locator("#create").click()
    await page.locator("#start").click()
    await page.locator(".board").wait_for()
    # the rules stay beside the board
    assert await _rules(page) == rule_lines("terrace", "terrace")
    # each place says what it is, on hover (title) and to a screen reader (aria-label)
    terrace = page.locator('[data-place="T"]')
    assert await terrace.get_attribute("title") == place_words("T", "terrace")
    label = await terrace.get_attribute("aria-label") or ""
    assert label.startswith("terrace: 11 cards, top ") and label.endswith(place_words("T", "terrace"))
    for place in ("S", "W", "F1", "3"):
        assert await page.locator(f'[data-place="{place}"]').get_attribute("title") == place_words(
            place, "terrace"
        )
    # the base choice said with its cards: "7♥ → F1", the notation kept for typing
    buttons = page.locator("#legal button")
    texts = await buttons.all_inner_texts()
    moves = await buttons.evaluate_all("bs => bs.map(b => b.dataset.move)")
    assert moves == ["1-F1", "2-F1", "3-F1", "4-F1"]
    cards = [await page.locator(f'[data-place="{move[0]}"] .card').last.inner_text() for move in moves]
    for text, move, card in zip(texts, moves, cards, strict=True):
        # two decks: where two of the piles show the same card, each button says its pile too
        assert text == (f"{card} (pile {move[0]}) → F1" if cards.count(card) > 1 else f"{card} → F1")
        assert (
            await buttons.nth(moves.index(move)).get_attribute("title")
            == f"{card} from pile {move[0]} to F1 (type {move})"
        )
    await buttons.first.click()
    await page.get_by_text("move 1", exact=True).wait_for()
    said = await page.locator("#note").inner_text()
    assert said.startswith(f"Played {texts[0]} (1-F1). Base ")
    await shot(page, "teach-racing")
    # a refusal names its cards as the board draws them: some pile onto another that refuses it
    legal = set(await buttons.evaluate_all("bs => bs.map(b => b.dataset.move)"))
    tried = next(f"{a}-{b}" for a in "123456789" for b in "123456789" if a != b and f"{a}-{b}" not in legal)
    await page.locator("#typed").fill(tried)
    await page.locator("#typed").press("Enter")
    refusal = page.locator("#note .error")
    await refusal.wait_for()
    text = await refusal.inner_text()
    assert text.startswith("Refused: ") and re.search("[♣♦♥♠]", text), text
    assert not TYPED_CARD.search(text), text  # never 7h beside a board that shows 7♥


async def test_louis_explains_its_places_under_the_board(server: RaceServer, page: Any) -> None:
    await _hello(page, server, "louie", "/play?variant=louis&goal=clear")
    await page.locator("#seats").fill("1")
    await page.locator("#create").click()
    await page.locator("#start").click()
    await page.locator(".board.louis").wait_for()
    assert await page.locator(".board .legend li").all_inner_texts() == list(LOUIS_LEGEND)
    for place in ("a", "Ah", "Ks", "Xd", "S"):
        assert await page.locator(f'[data-place="{place}"]').get_attribute("title") == place_words(
            place, "louis"
        )
    deal = page.locator('#legal button[data-move="S-a"]')
    assert await deal.inner_text() == "deal → heap a"
    await page.set_viewport_size({"width": 390, "height": 844})
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    await shot(page, "teach-louis-phone")


SENTENCES = [
    ("7h does not follow 5d on F2: it needs the next rank up.", "terrace"),
    ("Th cannot go on 10c: a pile alternates colours.", "signora"),
    ("Ah cannot go to Ah.", "louis"),
    ("8h cannot go on 9h: heap cards pack by suit, one rank up or down.", "louis"),
    ("Pile 3 is empty, 2-F1 is fine, 4c5d stays.", "terrace"),
]


async def test_the_pages_write_cards_in_sentences_as_the_core_does(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server, "/play"))
    await page.locator("#name").wait_for()
    got = await page.evaluate(
        """async (cases) => {
            const w = await import("/static/words.js");
            return cases.map(([s, v]) => w.cardsInText(s, v));
        }""",
        SENTENCES,
    )
    assert got == [cards_in_text(s, v) for s, v in SENTENCES]


async def test_two_moves_of_equal_cards_to_one_place_say_where_each_comes_from(
    server: RaceServer, page: Any
) -> None:
    """Two decks are in play: 7s on pile 3 and 7s on the waste can both go to F2, and two buttons
    both reading "7♠ → F2" could not be told apart."""
    await page.goto(http_url(server, "/play"))
    await page.locator("#name").wait_for()
    view = {
        "variant": "terrace",
        "terrace": ["Kd"],
        "waste": ["7s"],
        "piles": {"3": ["9h", "7s"], "4": ["5c"]},
    }
    got = await page.evaluate(
        """async ([view, moves]) => {
            const w = await import("/static/words.js");
            return moves.map((m) => w.moveWords(m, view, "terrace"));
        }""",
        [view, ["3-F2", "W-F2", "4-F2", "T-F2"]],
    )
    assert [g["short"] for g in got] == ["7♠ → F2", "7♠ → F2", "5♣ → F2", "K♦ → F2"]
    assert [g["sourced"] for g in got] == [
        "7♠ (pile 3) → F2",
        "7♠ (waste) → F2",
        "5♣ (pile 4) → F2",
        "K♦ (terrace) → F2",
    ]


TERRACE_CARDS = """() => [...document.querySelectorAll('[data-place="T"] .card')].map((c) => {
  const r = c.getBoundingClientRect();
  const text = document.createRange(); text.selectNodeContents(c);
  const t = text.getBoundingClientRect();
  return { left: r.left, right: r.right, textLeft: t.left, textRight: t.right };
})"""


@pytest.mark.parametrize("width", [1280, 390])
async def test_the_terrace_shows_its_eleven_cards_each_whole(
    server: RaceServer, page: Any, width: int
) -> None:
    """The terrace fan once overlapped 11 cards into 300 px of a 640 px box (5♦, A♦, 10♦ half hidden)."""
    await page.set_viewport_size({"width": width, "height": 900})
    await _hello(page, server, f"fan{width}")
    await page.locator("#seats").fill("1")
    await page.locator("#create").click()
    await page.locator("#start").click()
    await page.locator(".board").wait_for()
    cards = await page.evaluate(TERRACE_CARDS)
    assert len(cards) == 11
    for a, b in itertools.pairwise(cards):
        assert a["right"] <= b["left"] + 0.5, (a, b)  # side by side: nothing covers a card's rank and suit
    for c in cards:
        assert c["left"] <= c["textLeft"] and c["textRight"] <= c["right"] + 0.5 and c["right"] <= width
    assert await page.evaluate("document.documentElement.scrollWidth") <= width
    await shot(page, f"terrace-{width}")


async def test_an_invitation_teaches_the_game_of_its_race(server: RaceServer, page: Any) -> None:
    from .races import guest

    host = await guest(server, "lulu")
    race = (await host.request("create", variant="louis", seats=2, start="manual"))["race"]["id"]
    await page.goto(http_url(server, f"/play/{race}"))
    await page.locator("#invite").wait_for()
    assert await page.locator("#invite-race").inner_text() == (
        "louis · goal clear · 1 of 2 seats taken · starts when lulu presses Start"
    )
    assert await _rules(page) == rule_lines("louis", "clear")  # before a name is given
    await page.locator("#name").fill("newcomer")
    await page.locator("#go").click()
    await page.locator("#join").wait_for()
    assert await _rules(page) == rule_lines("louis", "clear")
    assert await page.locator("#variant").input_value() == "louis"
    await host.close()


async def test_the_terrace_says_which_of_its_cards_is_the_top(server: RaceServer, page: Any) -> None:
    await _hello(page, server, "topper")
    await page.locator("#seats").fill("1")
    await page.locator("#create").click()
    await page.locator("#start").click()
    await page.locator(".board").wait_for()
    marked = await page.evaluate(
        """() => [...document.querySelectorAll('[data-place="T"] .card')].map(
            (c) => getComputedStyle(c, '::after').content)"""
    )
    assert marked[-1] == '"top"' and all(m in ("none", "normal") for m in marked[:-1]), marked
