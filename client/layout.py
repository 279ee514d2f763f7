"""The play screen composed from :mod:`client.render`'s parts: the board with the standings
beside or below it, the message, and the end of a race (place, time, ranking rule, what next).

Pure functions, plain data in, rich renderables out, like :mod:`client.render`;
:mod:`client.screen` prints :func:`screen` under the move prompt, and ``terrace play``
prints :func:`end_screen` when a race is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from terrace import VARIANTS

from .render import View, board, player_name, plural, race_time, standings
from .suggest import program


def rated_note(results: Sequence[Mapping[str, Any]], unrated: str | None = None) -> str | None:
    """Why a finished race does not count for ratings (None when it does); ``unrated``: the
    race's own word that it went ahead unrated (``same_address``)."""
    players = [r.get("player") or {} for r in results]
    if unrated == "same_address":
        return "Not rated: two of its accounts play from one address (or one install), and such a race counts on no board."
    if len(players) < 2:
        return "Not rated: a race of one."
    if any(p.get("guest", True) for p in players):
        return "Not rated: ratings count only races of registered players (guests and house bots are not)."
    if len({p.get("kind") for p in players}) > 1:
        return "Not rated: ratings compare people with people and bots with bots, never a mix."
    return None


BESIDE_WIDTH = 120  # columns from which the standings sit beside the board, whatever is on it


class _Beside:
    """Two renderables side by side from ``BESIDE_WIDTH`` columns, else one above the other.

    The choice depends on the width alone, never on what the board holds now, so the
    standings do not jump between beside and below as cards move; a board too wide for
    its column folds inside it."""

    def __init__(self, left: RenderableType, right: RenderableType, gap: int = 3, blank: bool = True) -> None:
        self.left, self.right, self.gap, self.blank = left, right, gap, blank

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= BESIDE_WIDTH:
            right = Measurement.get(console, options, self.right).maximum
            grid = Table.grid(padding=(0, self.gap))
            grid.add_column(width=max(1, options.max_width - right - self.gap))
            grid.add_column(width=right)
            grid.add_row(self.left, self.right)
            yield grid
        else:
            yield self.left
            if self.blank:
                yield Text()
            yield self.right

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        left = Measurement.get(console, options, self.left).maximum
        right = Measurement.get(console, options, self.right).maximum
        return Measurement(max(left, right), left + self.gap + right)


def screen(
    view: View,
    rows: Sequence[Mapping[str, Any]],
    me: str | None,
    clock: str | None,
    title: str,
    message: str | None,
    *,
    compact: bool = False,
    row_limit: int | None = None,
    help: str | None = None,
    status: str | None = None,
) -> RenderableType:
    """The whole play screen: title (and clock), the board with the standings beside or below, the message.

    ``status`` (connection news: "reconnecting…") is a line of its own under the title, so the
    board stays in view while the server is away.

    A message starting with ``✗`` (a refused move, as the screen words it) is red. ``compact``
    saves lines for a short terminal (no blank lines, no standings header, fewer foundation
    rows); ``row_limit`` shows that many standings rows at most, ``me``'s always among them;
    ``help`` stands in place of the board until the next input.
    """
    head = Text(title, style="bold")
    if clock:
        head.append(f"    ⏱ {clock}", style="bold yellow")
    parts: list[RenderableType] = [head]
    if status:
        parts.append(Text(status, style="bold yellow" if status.startswith("⚠") else "green"))
    body = Text(help) if help else board(view, compact)
    if rows:
        table = standings(
            rows, me, header=not compact, limit=row_limit, terrace=has_terrace(str(view.get("variant", "")))
        )
        parts.append(_Beside(body, table, blank=not compact))
    else:
        parts.append(body)
    if message:
        failed = message.lstrip().startswith(("✗", "✘"))
        parts.append(Text(message, style="bold red" if failed else "green"))
    return Group(*parts)


RANKING_RULE = (
    "Ranking: goal first, by time; then more cards home; then fewer terrace cards left; "
    "then the earlier last card home. Resigning, leaving or being stuck keeps what you had home."
)
RANKING_RULE_LOUIS = RANKING_RULE.replace("then fewer terrace cards left; ", "")  # Louis has no terrace


def has_terrace(variant: str) -> bool:
    """Whether the variant's players have a terrace (the Terrace family does; Louis has none)."""
    known = VARIANTS.get(variant)
    return known is None or known.family == "terrace"


def ordinal(n: int) -> str:
    """``1`` -> ``1st``, ``2`` -> ``2nd``, ``11`` -> ``11th``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# How a finish is said when it, not a win, heads the end screen (see _your_result).
FINISHED = {
    "goal": "You reached the goal!",
    "stuck": "Stuck: no card can go home",
    "time": "Time ran out",
    "resigned": "You resigned",
    "left": "You left",
    "disconnected": "You were disconnected",
}
GAVE_UP = frozenset({"resigned", "left", "disconnected"})


def _your_result(mine: Mapping[str, Any], players: int) -> Text:
    """The end screen's first line: the place, how the race ended for you and when, cards home.

    "You won!" only for first place among several who did not give up: a race of one has
    nobody to beat, and a player who resigned or left did not win, even placed first by
    cards home (the others did worse); then the finish leads the line."""
    place, finish = mine.get("place"), str(mine.get("finish") or "")
    when = race_time(mine.get("time"))
    how = f"{finish} at {when}" if when else finish
    if place == 1 and players > 1 and finish not in GAVE_UP:
        head = Text(f"You won! 1st of {players} · {how}", style="bold green")
    elif place == 1 and finish in FINISHED:
        at = f" · at {when}" if when else ""
        head = Text(
            f"{FINISHED[finish]} · 1st of {players}{at}", style="bold green" if finish == "goal" else "bold"
        )
    elif isinstance(place, int):
        head = Text(f"You placed {ordinal(place)} of {players} · {how}", style="bold")
    else:
        head = Text(f"Race over · {how}", style="bold")
    head.append(f" · {plural(int(mine.get('score') or 0), 'card')} home", style="")
    return head


def end_screen(
    finished: Mapping[str, Any], me: str | None, again: str | None = None, server: str = ""
) -> RenderableType:
    """The end of a race for ``me`` (a name): the place and time, the results once, the
    ranking rule in one line, and what to do next (race again, replay, verify).

    ``finished`` is the ``finished`` push (or a record): ``race``, ``variant``, ``results``.
    ``again`` is the command that races the same kind of race again (default: queue
    for the variant); an empty one leaves it out, for an arena, which pairs the player
    again by itself. ``server`` is added to the replay and check commands (`` --server URL``
    when it is not the default one: :func:`client.suggest.server_flag`).
    """
    results: Sequence[Mapping[str, Any]] = finished.get("results", [])
    race, variant = str(finished.get("race", "")), str(finished.get("variant", "terrace"))
    mine = next((r for r in results if me is not None and player_name(r.get("player")) == me), None)
    head = _your_result(mine, len(results)) if mine else Text(f"Race {race} is over.", style="bold")
    # each command on a line of its own: joined by " · " they broke mid-command at 80 columns
    nxt = Text("Next:", style="bold")
    terrace = program()  # as this run was started when a bare `terrace` is not on the PATH
    if again is None:
        again = f"{terrace} play --queue {variant}"
    if again:
        nxt.append(f"\n  race again: {again}", style="cyan")
    nxt.append(f"\n  step through it: {terrace} replay {race}{server}", style="cyan")
    nxt.append(f"\n  check it: {terrace} verify {race}{server}", style="cyan")
    rule = RANKING_RULE if has_terrace(variant) else RANKING_RULE_LOUIS
    parts: list[RenderableType] = [
        head,
        standings(results, me, terrace=has_terrace(variant)),
        Text(rule, style="dim"),
    ]
    note = rated_note(results, finished.get("unrated"))
    if note:
        parts.append(Text(note, style="dim"))
    return Group(*parts, nxt)
