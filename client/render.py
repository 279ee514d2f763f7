"""Drawing the game for people: plain data (views, standings rows, race summaries) in, rich renderables out.

Pure functions, no I/O and no prompt: the play screen (``client.screen``), the
lobby and ``replay`` print what these return. Cards are drawn with suit symbols
(``10♥``, ``K♠``), red suits in red; the board reads top to bottom as the
engine lists places (docs/ENGINE.md, "Views") and fits in 80 columns. The
standings sit beside the board when the terminal is wide enough, else below.

:func:`to_text` renders any of them as plain text, for tests and line mode. The play
screen composed from these parts, and the end of a race, are in :mod:`client.layout`.
Kept as one module (about 500 lines) on purpose: every way the client draws a card is here, once.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

View = Mapping[str, Any]

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
_SYMBOL_SUITS = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}
RED_SUITS = frozenset("dh")
_RANKS = "A23456789TJQK"
EMPTY = "··"  # an empty place
TOP_MARKER = "◀"
RED = "bold red"
BLACK = "bold"

VARIANT_NAMES = {
    "terrace": "Terrace",
    "queen-of-italy": "Queen of Italy",
    "signora": "Signora",
    "louis": "Louis",
}
_LOUIS_SUITS = "cdhs"


# ----- cards ---------------------------------------------------------------------------


def card(name: str) -> Text:
    """One card as people write it: ``Th`` -> ``10♥`` (bold red), ``Ks`` -> ``K♠`` (bold).

    An empty name draws the empty-place marker ``··`` (dim); a name that is not a
    card is drawn as it is.
    """
    if not name:
        return Text(EMPTY, style="dim")
    suit = _SYMBOL_SUITS.get(name[-1], name[-1].lower())
    rank = name[:-1].upper()
    if rank == "10":
        rank = "T"
    if suit not in SUIT_SYMBOLS or len(rank) != 1 or rank not in _RANKS:
        return Text(name)
    return Text(
        ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit], style=RED if suit in RED_SUITS else BLACK
    )


def cards(names: Iterable[str], style: str | None = None) -> Text:
    """Cards in a row, one space apart; ``style`` (e.g. ``dim``) is laid over each card's own."""
    out = Text()
    for i, name in enumerate(names):
        if i:
            out.append(" ")
        c = card(name)
        if style:
            c.stylize(style)
        out.append_text(c)
    return out


def _empty(label: str = EMPTY) -> Text:
    return Text(label, style="dim")


def plural(n: int, word: str) -> str:
    """``1 player``, ``2 players``: a count with its noun, singular for one."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ----- boards --------------------------------------------------------------------------


def board(view: View, compact: bool = False) -> RenderableType:
    """The board of a view (docs/ENGINE.md "Views"): the Terrace family's or Louis's layout;
    ``compact`` saves lines for a short terminal."""
    if view.get("variant") == "louis" or "heaps" in view:
        return _louis(view)
    return _family(view, compact)


def _grid() -> Table:
    """Two columns: a place's name, then its cards (wrapping inside their own column)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold cyan", no_wrap=True)
    grid.add_column(overflow="fold")
    return grid


def _status(view: View) -> Text | None:
    status = str(view.get("status", "playing"))
    if status == "won":
        return Text("WON!", style="bold green")
    if status == "lost":
        return Text(
            "STUCK: no card can go home any more, the game is lost", style="bold red"
        )  # standings say `stuck`
    return None


def _headline(view: View, parts: Sequence[str | Text]) -> Text:
    variant = str(view.get("variant", "?"))
    line = Text(VARIANT_NAMES.get(variant, variant), style="bold")
    status = _status(view)
    for part in [*parts, *([status] if status else [])]:
        line.append(" · ", style="dim")
        line.append_text(part if isinstance(part, Text) else Text(part))
    return line


def _family(view: View, compact: bool = False) -> RenderableType:
    base = view.get("base")
    terrace: list[str] = list(view.get("terrace", []))
    parts: list[str | Text] = [
        f"base {'10' if base == 'T' else base}" if base else "base ?",
        f"{view.get('score', 0)} home",  # cards on the foundations, as the pages say it
        f"terrace {view.get('terrace_left', len(terrace))} left",
        plural(int(view.get("moves", 0)), "move"),
    ]
    lines: list[RenderableType] = [_headline(view, parts)]
    if view.get("phase") == "choose-base":
        lines.append(
            Text(
                "Choose the base: 1-F1..4-F1 (its rank starts every foundation)",
                style="bold yellow",
            )
        )

    grid = _grid()
    if terrace:
        row = cards(terrace[:-1])
        if len(terrace) > 1:
            row.append(" ")
        top = card(terrace[-1])
        top.stylize("reverse underline")
        row.append_text(top)
        row.append(f" {TOP_MARKER} top", style="bold yellow")
        if view.get("terrace_free"):
            row.append("  (free: may pack and fill gaps)", style="green")
    else:
        row = Text("cleared ✓", style="bold green")
    grid.add_row("terrace", row)
    grid.add_row("foundations", _family_foundations(view.get("foundations", {}), compact))
    for name, pile in view.get("piles", {}).items():
        grid.add_row(f"pile {name}", cards(pile) if pile else _empty("·· gap"))
    grid.add_row("waste", _waste(view))
    lines.append(grid)
    return Group(*lines)


def _family_foundations(foundations: Mapping[str, Sequence[str]], compact: bool = False) -> Table:
    """Each foundation's name, base card, top card and count; ``compact``: names and tops only
    (every foundation starts at the base rank, which the headline gives)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", no_wrap=True)
    for _ in foundations:
        grid.add_column(justify="right", no_wrap=True)
    grid.add_row("", *(Text(name, style="bold cyan") for name in foundations))
    piles = list(foundations.values())
    if not compact:
        grid.add_row("base", *(card(p[0]) if p else _empty() for p in piles))
    grid.add_row("top", *(card(p[-1]) if p else _empty() for p in piles))
    if not compact:
        grid.add_row("cards", *(Text(str(len(p)), style="dim") for p in piles))
    return grid


def _waste(view: View) -> Text:
    waste: list[str] = list(view.get("waste", []))
    row = Text()
    if waste:
        if len(waste) > 3:
            row.append("… ", style="dim")
        below = cards(waste[-3:-1], style="dim")
        if below:
            row.append_text(below)
            row.append(" ")
        row.append_text(card(waste[-1]))
        row.append(f" {TOP_MARKER}", style="bold yellow")
        row.append(f" ({len(waste)})", style="dim")
    else:
        row.append_text(_empty())
    row.append("    stock ", style="bold cyan")
    row.append(str(view.get("stock", 0)))
    if view.get("variant") == "signora" or view.get("recycles_left"):
        left = int(view.get("recycles_left", 0))
        row.append(f"    {plural(left, 'recycle')} left" if left else "    no recycle left", style="dim")
    return row


def _louis(view: View) -> RenderableType:
    deal = int(view.get("deal", 1))
    deals = deal + int(view.get("deals_left", 0))
    parts: list[str | Text] = [
        f"deal {deal} of {deals}",
        f"{view.get('score', 0)} home",
        plural(int(view.get("moves", 0)), "move"),
        "dealing" if view.get("phase") == "deal" else "play",
    ]
    lines: list[RenderableType] = [_headline(view, parts)]

    grid = _grid()
    grid.add_row("foundations", _louis_foundations(view))
    live, following = view.get("live"), view.get("next_heap")
    for name, heap in view.get("heaps", {}).items():
        row = Text()
        if heap:
            row.append_text(cards(heap[:-1]))
            if len(heap) > 1:
                row.append(" ")
            top = card(heap[-1])
            if name == live:
                top.stylize("reverse underline")
            row.append_text(top)
        else:
            row.append_text(_empty())
        if name == live:
            row.append(f" {TOP_MARKER} live", style="bold yellow")
        if name == following:
            row.append("  ← next card", style="yellow")
        grid.add_row(f"heap {name}", row)
    stock = int(view.get("stock", 0))
    row = Text(f"{stock} to deal")
    if following:
        row.append(f"   next card to heap {following}", style="dim")
    elif view.get("deals_left"):
        row.append(f"   type redeal for deal {deal + 1}", style="dim")
    else:
        row.append("   last deal", style="dim")
    grid.add_row("stock", row)
    lines.append(grid)
    return Group(*lines)


def _louis_foundations(view: View) -> Table:
    foundations: Mapping[str, Sequence[str]] = view.get("foundations", {})
    abeyance: Mapping[str, str | None] = view.get("abeyance", {})
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    for _ in _LOUIS_SUITS:
        grid.add_column(no_wrap=True)

    def cell(place: str, top: str | None) -> Text:
        out = Text(place + " ", style="cyan")
        out.append_text(card(top) if top else _empty())
        return out

    def top(place: str) -> str | None:
        pile = foundations.get(place) or []
        return pile[-1] if pile else None

    grid.add_row("up A→K", *(cell(f"A{s}", top(f"A{s}")) for s in _LOUIS_SUITS))
    grid.add_row("down K→A", *(cell(f"K{s}", top(f"K{s}")) for s in _LOUIS_SUITS))
    grid.add_row("abeyance", *(cell(f"X{s}", abeyance.get(f"X{s}")) for s in _LOUIS_SUITS))
    return grid


# ----- standings and lobby -------------------------------------------------------------


def player_name(player: Any) -> str:
    if isinstance(player, Mapping):
        return str(player.get("name") or player.get("id") or "?")
    return str(player) if player is not None else "?"


def race_time(ms: Any) -> str:
    if not isinstance(ms, int | float):
        return ""
    tenths = int(ms) // 100
    return f"{tenths // 600}:{tenths // 10 % 60:02d}.{tenths % 10}"


def _shown_rows(rows: Sequence[Mapping[str, Any]], me: str | None, limit: int | None) -> list[int]:
    """Which rows (indexes) fit in ``limit``: the leaders, and always ``me``'s own row."""
    if limit is None or len(rows) <= limit:
        return list(range(len(rows)))
    mine = [i for i, r in enumerate(rows) if me is not None and player_name(r.get("player")) == me]
    keep = max(1, limit) - len(mine[:1])
    return sorted({*range(keep), *mine[:1]})


def standings(
    rows: Sequence[Mapping[str, Any]],
    me: str | None = None,
    *,
    header: bool = True,
    limit: int | None = None,
    terrace: bool = True,
) -> RenderableType:
    """The standings table (PROTOCOL.md ``standings``): rows in place order; ``me`` (a name) marked ▶;
    a program's name followed by ``bot``. ``terrace``: a terrace column (not for Louis, which has none).

    Place is the row's ``place`` once given (bold: final), else its live place, the place it
    would have if the race ended now (the server's ``live``; from an older server, its position),
    dim. The columns are always labelled; ``header=False`` (a short terminal) saves the rule
    under the labels. ``limit`` rows at most: the leaders and ``me``'s own row, which is always
    shown.
    """
    table = Table(
        box=box.SIMPLE_HEAD if header else None,
        padding=(0, 1),
        collapse_padding=True,
        show_edge=False,
        pad_edge=False,
        show_header=True,
        header_style="bold" if header else "bold dim",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("player", no_wrap=True, max_width=30)  # a 24-character name and " bot"
    table.add_column("home", justify="right", no_wrap=True)  # cards home: the pages' word too
    if terrace:
        table.add_column("terrace", justify="right", no_wrap=True)
    table.add_column("moves", justify="right", no_wrap=True)
    table.add_column("finish", no_wrap=True)
    table.add_column("", no_wrap=True)  # connected
    for i in _shown_rows(rows, me, limit):
        row = rows[i]
        player = row.get("player")
        name = player_name(player)
        mine = me is not None and name == me
        who = Text("▶ " if mine else "  ", style="bold yellow")
        who.append(name, style="bold yellow" if mine else "")
        if isinstance(player, Mapping) and player.get("kind") == "bot":
            who.append(" bot", style="dim")
        place = row.get("place")
        live = row.get("live", i + 1)
        shown = Text(str(place), style="bold") if place is not None else Text(str(live), style="dim")
        finish = row.get("finish")
        if finish:
            style = "green" if finish == "goal" else "red" if finish in ("stuck", "resigned") else "yellow"
            done = Text(str(finish), style=style)
            when = race_time(row.get("time"))
            if when:
                done.append(" " + when, style="dim")
        elif row.get("finished"):
            done = Text("done", style="dim")
        else:
            done = Text("racing", style="dim")
        connected = row.get("connected", True)
        cells: list[str | Text] = [shown, who, str(row.get("score", ""))]
        if terrace:
            cells.append(str(row.get("terrace_left", "")))
        cells += [
            str(row.get("moves", "")),
            done,
            Text("●", style="green") if connected else Text("○", style="dim red"),
        ]
        table.add_row(*cells)
    return table


def _limit(seconds: Any) -> str:
    if not isinstance(seconds, int):
        return "–"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds // 60}:{seconds % 60:02d}"


def leaderboard(answer: Mapping[str, Any], me: str | None = None) -> RenderableType:
    """A ``leaderboard`` answer as a table: rank, player, value (times as m:ss.t, ratings with mu and sigma)."""
    kind = answer.get("board", "")
    parts = [str(answer.get("variant", "")), str(kind)]
    if answer.get("pool"):
        parts.append(str(answer["pool"]))
    if kind == "fastest":
        parts.append(f"goal {answer.get('goal')}")
        parts.append(str(answer.get("period_key") or "all time"))
    total = answer.get("total", 0)
    title = " · ".join(parts) + f"  ({total} player{'' if total == 1 else 's'})"
    # the title on a line of its own: as the table's title it wrapped to a narrow table's width
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("player", no_wrap=True)
    table.add_column(
        {"rating": "rating", "fastest": "time", "wins": "wins"}.get(str(kind), "value"), justify="right"
    )
    if kind == "rating":
        table.add_column("mu ± sigma", justify="right", style="dim")
        table.add_column("races", justify="right")  # rated races played: the bot ladder's board
    for row in answer.get("rows", []):
        name = player_name(row.get("player"))
        who = Text(name, style="bold yellow" if me is not None and name == me else "")
        value = row.get("value")
        shown = race_time(value) if kind == "fastest" else f"{value:.2f}" if kind == "rating" else str(value)
        cells: list[Any] = [str(row.get("rank", "")), who, shown]
        if kind == "rating":
            cells.append(f"{row.get('mu', 0):.1f} ± {row.get('sigma', 0):.1f}")
            cells.append(str(row.get("races", "")))
        table.add_row(*cells)
    if not answer.get("rows"):
        return Text(title + "\nNobody on this board yet. " + EMPTY_BOARD.get(str(kind), EMPTY_BOARD["wins"]))
    return Group(Text(title, style="italic"), table)


def finished_races(briefs: Sequence[Mapping[str, Any]]) -> RenderableType:
    """Recently finished races (``races`` answer's ``finished``): id, variant, goal, winner, players."""
    # no padding: the box's own space between columns, so two names of the house's 23 letters fit 80
    # columns beside the rest
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 0), show_edge=False, pad_edge=False)
    for column in ("race", "variant", "goal"):
        table.add_column(column, no_wrap=True, overflow="fold")
    # one name a line, the winner's finish under its name: at 80 columns names of 23 letters
    # (the house's) side by side with commas were cut mid-name and left lone commas
    table.add_column("winner", overflow="fold")
    table.add_column("players", overflow="fold")
    for brief in briefs:
        results = list(brief.get("results") or [])
        first = [r for r in results if r.get("place") == 1]
        winner = "\n".join(
            f"{player_name(r.get('player'))}\n({r.get('finish')}, {race_time(r.get('time'))})".replace(
                ", )", ")"
            )
            for r in first
        )
        table.add_row(
            str(brief.get("id", "?")),
            str(brief.get("variant", "?")),
            str(brief.get("goal", "?")),
            winner or "-",
            "\n".join(player_name(r.get("player")) for r in results),
        )
    return table


_REGISTER = (
    "Only registered players appear (a guest has no lasting name): `terrace register NAME`, then race."
)
EMPTY_BOARD = {
    "rating": _REGISTER + " A race is rated when every player in it is a registered account of one"
    " kind: people with people (pool humans), bots with bots (pool bots); races with guests or"
    " house bots are not rated.",
    "fastest": _REGISTER + " Your time counts when you reach the race's goal.",
    "wins": _REGISTER + " A win is first place in a race of two or more.",
}


def lobby(races: Sequence[Mapping[str, Any]]) -> RenderableType:
    """The races table (race summaries, PROTOCOL.md): id, variant, goal, state, players/seats, time limit."""
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True, show_edge=False, pad_edge=False)
    table.add_column("race", style="bold", no_wrap=True)
    table.add_column("variant", no_wrap=True)
    table.add_column("goal", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("players", overflow="fold")
    table.add_column("limit", justify="right", no_wrap=True)
    states = {
        "open": "green",
        "countdown": "yellow",
        "running": "cyan",
        "finished": "dim",
        "cancelled": "dim",
    }
    for race in races:
        players = list(race.get("players") or [])
        seated = Text(f"{len(players)}/{race.get('seats', '?')}", style="bold")
        if players:
            seated.append("  " + ", ".join(player_name(p) for p in players), style="")
        entry = race.get("entry")
        if entry and entry != "all":
            seated.append(f"  ({entry} only)", style="dim")
        if race.get("deals") == "winnable":
            seated.append("  (winnable deal)", style="green")
        state = str(race.get("state", "?"))
        table.add_row(
            str(race.get("id", "?")),
            str(race.get("variant", "?")),
            str(race.get("goal", "?")),
            Text(state, style=states.get(state, "")),
            seated,
            _limit(race.get("time_limit")),
        )
    return table


def to_text(renderable: RenderableType, width: int = 100) -> str:
    """``renderable`` as plain text ``width`` columns wide (no colour, no styles)."""
    console = Console(record=True, width=width, color_system=None, file=io.StringIO(), highlight=False)
    console.print(renderable)
    return console.export_text()
