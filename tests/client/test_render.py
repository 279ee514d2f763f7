"""What a person sees of client/render.py: real engine views drawn as text, cards in their places.

Each test renders a view from the engine (or rows as the server sends them) and
reads the text a terminal would show: which card sits on which line or under
which foundation, the markers, the counts; colour is checked in the ANSI output.
"""

from __future__ import annotations

import io
import re
from typing import Any

from rich.console import Console, RenderableType

import terrace
from client.layout import screen
from client.render import board, card, lobby, standings, to_text

SYMBOL = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def shown(name: str) -> str:
    """How a card name looks on screen, worked out independently of render.py."""
    rank = "10" if name[0] == "T" else name[0]
    return rank + SYMBOL[name[1]]


def text_lines(renderable: RenderableType, width: int = 80) -> list[str]:
    return [line.rstrip() for line in to_text(renderable, width).splitlines()]


def line_of(lines: list[str], label: str) -> str:
    """The one line that starts with ``label`` followed by spaces (a place's row)."""
    found = [ln for ln in lines if re.match(rf"\s*{re.escape(label)}\s", ln + " ")]
    assert len(found) == 1, (label, lines)
    return found[0]


def ansi(renderable: RenderableType, width: int = 80) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system="standard", width=width)
    console.print(renderable)
    return buf.getvalue()


def progress(variant: str, deal: int, home: int) -> terrace.Game:
    """A game played forward (cards home first, else the stock) until ``home`` cards are home."""
    g = terrace.new_game(variant, deal)
    while g.score < home:
        legal = sorted(g.legal_moves())
        homes = [m for m in legal if "-F" in m]
        g.play(homes[0] if homes else "S-W")
    return g


# ----- cards ---------------------------------------------------------------------------


def test_cards_are_drawn_with_suit_symbols_and_ten_as_10() -> None:
    assert card("Th").plain == "10♥"
    assert card("Ks").plain == "K♠"
    assert card("2c").plain == "2♣"
    assert card("Ad").plain == "A♦"
    assert card("10h").plain == "10♥"  # what people type reads too
    assert card("").plain == "··"  # an empty place


def test_red_suits_are_red_and_black_suits_are_not() -> None:
    assert "red" in str(card("Qd").style) and "red" in str(card("5h").style)
    assert "red" not in str(card("Qc").style) and "red" not in str(card("5s").style)
    out = ansi(card("Th"))
    assert "\x1b[1;31m10♥" in out  # bold red on a real terminal
    assert "31m" not in ansi(card("Ks"))


# ----- the Terrace family --------------------------------------------------------------


def test_the_opening_board_of_terrace_deal_7() -> None:
    view = terrace.new_game("terrace", deal=7).view()
    lines = text_lines(board(view))
    text = "\n".join(lines)
    # The terrace, bottom to top, with the available card last and marked.
    row = line_of(lines, "terrace")
    assert " ".join(shown(c) for c in view["terrace"]) + " ◀" in row
    assert row.split("terrace", 1)[1].split()[:11] == [shown(c) for c in view["terrace"]]
    assert "6♠ ◀" in row  # deal 7's terrace top
    # The four base candidates on piles 1-4; piles 5-9 are gaps.
    for pile in "1234":
        assert line_of(lines, f"pile {pile}").split()[2:] == [shown(view["piles"][pile][0])]
    assert line_of(lines, "pile 2").endswith("10♦")
    for pile in "56789":
        assert "gap" in line_of(lines, f"pile {pile}")
    assert "stock 89" in text
    assert "Choose the base: 1-F1..4-F1" in text
    assert "terrace 11 left" in text and "0 home" in text and "0 moves" in text


def test_foundations_show_base_and_top_under_their_names() -> None:
    g = progress("terrace", 7, home=4)
    view = g.view()
    lines = text_lines(board(view))
    header = next(ln for ln in lines if "F1" in ln and "F8" in ln)
    base_row = next(ln for ln in lines if ln.split()[:1] == ["base"])
    top_row = next(ln for ln in lines if ln.split()[:1] == ["top"])
    count_row = next(ln for ln in lines if ln.split()[:1] == ["cards"])
    tall = [f for f, pile in view["foundations"].items() if len(pile) >= 2]
    assert tall, "the game went far enough for a foundation to grow"
    for f, pile in view["foundations"].items():
        end = header.index(f) + len(f)  # cells are right-aligned under their names
        if pile:
            base, top = shown(pile[0]), shown(pile[-1])
            assert base_row[end - len(base) : end] == base, f
            assert top_row[end - len(top) : end] == top, f
        else:
            assert base_row[end - 2 : end] == "··", f
        assert count_row[:end].split()[-1] == str(len(pile)), f
    base = view["base"]
    assert f"base {'10' if base == 'T' else base}" in lines[0]
    assert f"{view['score']} home" in lines[0]


def test_piles_and_the_waste_after_some_moves() -> None:
    g = terrace.new_game("terrace", deal=7)
    for move in ["2f", "deal", "deal", "deal", "deal", "deal", "deal"]:
        g.play(move)
    view = g.view()
    lines = text_lines(board(view))
    for pile, cards_ in view["piles"].items():
        row = line_of(lines, f"pile {pile}")
        if cards_:
            assert row.split()[2:] == [shown(c) for c in cards_]  # bottom to top, left to right
    waste = line_of(lines, "waste")
    # The waste top with its marker, the two below it, the count; the stock beside it.
    assert " ".join(shown(c) for c in view["waste"][-3:]) + " ◀" in waste
    assert f"({len(view['waste'])})" in waste
    assert f"stock {view['stock']}" in waste and view["stock"] == 77
    assert "7 moves" in lines[0]
    assert "choose the base" not in "\n".join(lines).lower()


def test_the_waste_cards_below_the_top_are_dimmed() -> None:
    g = terrace.new_game("terrace", deal=7)
    for move in ["2f", "deal", "deal", "deal"]:
        g.play(move)
    waste = g.view()["waste"]
    line = next(ln for ln in ansi(board(g.view())).splitlines() if "waste" in ln)
    styles = dict(
        (text, set(sgr.split(";"))) for sgr, text in re.findall(r"\x1b\[([0-9;]+)m([^\x1b]+)", line)
    )
    assert "2" in styles[shown(waste[-3])] and "2" in styles[shown(waste[-2])]  # SGR 2: dim
    assert "2" not in styles[shown(waste[-1])]  # the top, the card that plays, is bright


def test_signora_shows_its_recycle() -> None:
    g = terrace.new_game("signora", deal=3)
    g.play("1f")
    text = to_text(board(g.view()), 80)
    assert text.startswith("Signora") and "1 recycle left" in text
    while g.view()["stock"]:
        g.play("deal")
    g.play("recycle")
    text = to_text(board(g.view()), 80)
    assert "no recycle left" in text and f"stock {g.view()['stock']}" in text


def test_a_lost_game_says_so() -> None:
    g = terrace.new_game("terrace", deal=7)
    g.play("1f")
    while g.view()["stock"]:
        g.play("deal")
    assert g.status == "lost"
    assert "STUCK" in to_text(board(g.view()), 80).splitlines()[0]


def test_the_board_fits_80_columns_and_long_piles_wrap_inside_their_column() -> None:
    view = terrace.new_game("queen-of-italy", deal=7).view()
    view["piles"]["3"] = ["Kc", "Qh", "Jc", "Td", "9s", "8h", "7c", "6d", "5s", "4h", "3c", "2d"] * 2
    view["waste"] = ["Th", "9c", "8d", "7s"]
    lines = text_lines(board(view), 80)
    assert all(len(ln) <= 80 for ln in lines)
    for label in [f"pile {p}" for p in "123456789"] + ["terrace", "foundations", "waste"]:
        line_of(lines, label)
    for f in [f"F{i}" for i in range(1, 9)]:
        assert f in "\n".join(lines)
    i = lines.index(line_of(lines, "pile 3"))
    continued = lines[i + 1]
    assert continued.startswith(" " * 10) and continued.split()[0] in {shown(c) for c in view["piles"]["3"]}
    assert sum(ln.count("♣") + ln.count("♦") + ln.count("♥") + ln.count("♠") for ln in lines[i : i + 3]) >= 24


# ----- Louis ---------------------------------------------------------------------------


def test_louis_heaps_foundations_and_the_deal() -> None:
    g = terrace.new_game("louis", deal=1)
    for _ in range(30):
        g.play("deal")
    view = g.view()
    lines = text_lines(board(view), 80)
    assert all(len(ln) <= 80 for ln in lines)
    for heap, cards_ in view["heaps"].items():
        row = line_of(lines, f"heap {heap}")
        assert row.split()[2 : 2 + len(cards_)] == [shown(c) for c in cards_]
    assert "heap j" not in "\n".join(lines)
    assert line_of(lines, f"heap {view['live']}").endswith("◀ live")
    assert "← next card" in line_of(lines, f"heap {view['next_heap']}")
    up = next(ln for ln in lines if "up A→K" in ln)
    down = next(ln for ln in lines if "down K→A" in ln)
    for suit in "cdhs":
        assert f"A{suit} {shown('A' + suit)}" in up and f"K{suit} {shown('K' + suit)}" in down
    assert "Xc ··" in next(ln for ln in lines if "abeyance" in ln)
    assert "deal 1 of 3" in lines[0] and "8 home" in lines[0]
    stock = line_of(lines, "stock")
    assert f"{view['stock']} to deal" in stock and view["stock"] == 66
    assert f"next card to heap {view['next_heap']}" in stock


def test_louis_abeyance_and_foundation_tops_show_the_card_there() -> None:
    view: dict[str, Any] = terrace.new_game("louis", deal=1).view()
    view["foundations"]["Ah"] = ["Ah", "2h", "3h", "4h", "5h", "6h", "7h"]
    view["foundations"]["Kh"] = ["Kh", "Qh", "Jh", "Th", "9h"]
    view["abeyance"]["Xh"] = "8h"
    lines = text_lines(board(view), 80)
    assert "Ah 7♥" in next(ln for ln in lines if "up A→K" in ln)
    assert "Kh 9♥" in next(ln for ln in lines if "down K→A" in ln)
    assert "Xh 8♥" in next(ln for ln in lines if "abeyance" in ln)


# ----- standings, lobby, the screen ----------------------------------------------------


def _row(name: str, score: int, **more: Any) -> dict[str, Any]:
    row = {
        "player": {"id": f"g-{name}", "name": name, "kind": "human", "guest": True},
        "score": score,
        "terrace_left": 11 - score // 2,
        "moves": score * 3,
        "finished": False,
        "finish": None,
        "time": None,
        "place": None,
        "connected": True,
    }
    row.update(more)
    return row


ROWS = [
    _row("carol", 20, terrace_left=0, finished=True, finish="goal", time=412345, place=1),
    _row("alice", 14),
    _row("bob", 3, connected=False),
]


def test_standings_rows_in_place_order_with_me_marked() -> None:
    lines = text_lines(standings(ROWS, me="alice"))
    names = [n for ln in lines for n in ("carol", "alice", "bob") if n in ln]
    assert names == ["carol", "alice", "bob"]
    carol = next(ln for ln in lines if "carol" in ln)
    assert carol.split()[0] == "1" and "goal 6:52.3" in carol and carol.split()[2:5] == ["20", "0", "60"]
    alice = next(ln for ln in lines if "alice" in ln)
    assert "▶ alice" in alice and alice.split()[0] == "2" and "racing" in alice
    assert "▶" not in carol
    assert "○" in next(ln for ln in lines if "bob" in ln) and "●" in alice
    assert "home" in lines[0] and "terrace" in lines[0] and "moves" in lines[0]


def test_during_the_race_the_place_column_shows_the_live_place_and_the_columns_are_labelled() -> None:
    rows = [_row("alice", 5, live=1), _row("bob", 5, live=1), _row("carol", 2, live=3)]  # a tie for first
    for header in (True, False):  # False: a short terminal saves the rule, never the labels
        lines = text_lines(standings(rows, me="bob", header=header))
        assert lines[0].split()[:2] == ["#", "player"] and "finish" in lines[0]
        assert not any(set(ln.strip()) <= {"─", " "} and ln.strip() for ln in lines) or header
        places = {n: ln.split()[0] for ln in lines for n in ("alice", "bob", "carol") if n in ln}
        assert places == {"alice": "1", "bob": "1", "carol": "3"}  # the server's live places, ties shared


def test_lobby_lists_races() -> None:
    races = [
        {
            "id": "9f3a61c2",
            "variant": "terrace",
            "goal": "terrace",
            "seats": 4,
            "time_limit": 900,
            "entry": "all",
            "start": "manual",
            "state": "open",
            "players": [{"id": "g-1", "name": "alice", "kind": "human", "guest": True}],
        },
        {
            "id": "77aa01bc",
            "variant": "louis",
            "goal": "clear",
            "seats": 2,
            "time_limit": 90,
            "entry": "bots",
            "state": "running",
            "players": [{"name": "planner", "kind": "bot"}, {"name": "greedy", "kind": "bot"}],
            "deals": "winnable",
        },
    ]
    lines = text_lines(lobby(races))
    first = next(ln for ln in lines if "9f3a61c2" in ln)
    assert first.split()[:6] == ["9f3a61c2", "terrace", "terrace", "open", "1/4", "alice"]
    assert first.endswith("15 min")
    second = next(ln for ln in lines if "77aa01bc" in ln)
    assert "louis" in second and "running" in second and "2/2" in second and "planner, greedy" in second
    assert "1:30" in second and "bots only" in second
    below = lines[lines.index(second) + 1 :]  # the players column folds onto the next line
    assert "(winnable deal)" in second + " ".join(below[:1])
    assert "winnable" not in first  # a race on any deal says nothing of it


def test_the_screen_puts_standings_beside_the_board_when_wide_and_below_when_narrow() -> None:
    view = terrace.new_game("terrace", deal=7).view()
    whole = screen(
        view, ROWS, "alice", "12:34", "race 9f3a61c2 - terrace, goal terrace", "✗ Choose the base first"
    )
    wide = text_lines(whole, 120)
    assert wide[0].startswith("race 9f3a61c2") and "12:34" in wide[0]
    beside = line_of(wide, "terrace")
    assert "6♠ ◀" in beside and "carol" in "\n".join(wide[:5])
    assert "player" in wide[1] and wide[1].startswith("Terrace")  # the standings' header beside the board's
    assert "carol" in beside and "goal" in beside  # the leader's row on the terrace's line
    narrow = text_lines(whole, 80)
    assert all(len(ln) <= 80 for ln in narrow)
    assert not any("pile" in ln and ("carol" in ln or "alice" in ln) for ln in narrow)
    assert narrow.index(line_of(narrow, "waste")) < next(i for i, ln in enumerate(narrow) if "carol" in ln)
    assert narrow[-1] == "✗ Choose the base first"
    assert "\x1b[1;31m✗ Choose the base first" in ansi(whole)


def test_the_practice_screen_has_no_standings() -> None:
    view = terrace.new_game("louis", deal=1).view()
    lines = text_lines(screen(view, [], None, None, "practice – louis, deal 1", "S-a"), 80)
    assert lines[0] == "practice – louis, deal 1"
    assert lines[1].startswith("Louis")
    assert lines[-1] == "S-a"
    assert "player" not in "\n".join(lines)


def test_a_rating_board_shows_the_races_each_player_played() -> None:
    from client.render import leaderboard

    answer = {
        "board": "rating",
        "variant": "terrace",
        "pool": "bots",
        "total": 1,
        "rows": [
            {
                "rank": 1,
                "player": {"name": "robo", "kind": "bot"},
                "value": 3.5,
                "mu": 27.0,
                "sigma": 7.8,
                "races": 42,
            }
        ],
    }
    text = to_text(leaderboard(answer), 120)
    header = next(line for line in text.splitlines() if line.split()[:2] == ["#", "player"])
    assert header.split()[-1] == "races"
    assert text.splitlines()[-1].split()[-1] == "42"


async def test_watching_an_empty_lobby_says_it_waits_and_how_to_stop() -> None:
    from client.lobby import _Watch

    text = to_text(_Watch(None).renderable(), 80)
    assert "No races right now; watching for new ones (Ctrl-C stops)." in text
