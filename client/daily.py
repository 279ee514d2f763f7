"""``terrace daily``: today's deal of a variant, its commitments and board, and your attempt at it.

Without ``--board`` it plays: your one rated attempt of the day (or, with ``--practice``, a
practice game after it; ``--day`` a past day's deal), on the race screen of ``terrace play``,
against the ghosts of earlier attempts shown as standings rows marked ``(ghost)``. With
``--board`` (or ``--json``) it only shows the day: its commitment and tomorrow's, the board,
your attempt, and for a past day its revealed seed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from link import checked
from terrace.race.held import held_sentence
from terrace.wire.messages import Row

from . import config
from .play import LEFT_SCREEN, _countdown
from .race_table import RaceTable, hello_fields
from .render import player_name, plural, race_time
from .screen import Screen
from .suggest import command

ASK_FIRST = "This is your one rated attempt today. Start? [y/N] "
NOT_STARTED = "Not started: your attempt is still yours today. When you are ready:\n  {command}"


class DailyTable(RaceTable):
    """A race table whose standings mark the ghosts, and whose header says it is the daily deal."""

    day = ""  # the deal's day, once known: the header says "Daily deal, DAY"

    def _started(self, msg: Any) -> None:
        super()._started(msg)
        if self.day:
            # no race id: with the clock and the keys it must fit the bottom bar at 80 columns
            self.title = f"Daily deal, {self.day} · {msg['variant']}"

    def standings(self) -> list[Row]:
        return [_ghostly(row) for row in super().standings()]


def _ghostly(row: Row) -> Row:
    player = row["player"]
    if not player.get("ghost"):
        return row
    return {**row, "player": {**player, "name": f"{player['name']} (ghost)"}}


def day_view(answer: Mapping[str, Any], me: str | None = None) -> RenderableType:
    """A ``daily`` answer: the day, its commitments, your attempt, the board, and a past day's seed."""
    head = Text()
    head.append(f"Daily {answer['variant']} · {answer['day']}", style="bold")
    head.append(f" · goal {answer.get('goal')} · {answer.get('time_limit', 0) // 60} min\n")
    # labels short enough that a label and its 64 hex digits fit 80 columns (or break between them)
    head.append(f"commitment {answer['commitment']}\n", style="dim")
    head.append(f"tomorrow's {answer['next_commitment']}\n", style="dim")
    if "seed" in answer:
        head.append(f"seed       {answer['seed']}\n", style="green")
    attempt = answer.get("attempt")
    if attempt is not None:
        state = attempt.get("state")
        if state == "finished":
            result = (
                race_time(attempt.get("time"))
                if attempt.get("goal")
                else f"{plural(int(attempt.get('score') or 0), 'card')} home"
            )
            head.append(f"Your attempt: {result} (race {attempt.get('race')})\n")
            if attempt.get("held"):
                head.append(f"Not on the board: {held_sentence(str(attempt['held']))}.\n", style="yellow")
        elif state == "playing":
            head.append("Your attempt is under way.\n")
        elif state == "lost":
            head.append("Your attempt was lost with its server (used, with no row); practice is open.\n")
        else:
            head.append("You have not played today's attempt yet.\n")
    rows = answer.get("board") or []
    title = f"{answer.get('pool')} · {plural(int(answer.get('total') or 0), 'attempt')}"
    if not rows:
        return Group(head, Text(f"{title}: nobody on this board yet."))
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("player", no_wrap=True)
    table.add_column("goal time", justify="right")
    table.add_column("cards home", justify="right")
    for row in rows:
        name = player_name(row.get("player"))
        table.add_row(
            str(row.get("rank", "")),
            Text(name, style="bold yellow" if name == me else ""),
            race_time(row.get("time")) if row.get("goal") else "-",
            "" if row.get("goal") else str(row.get("score")),
        )
    return Group(head, table)


async def daily(args: argparse.Namespace, out: Console) -> int:
    """``terrace daily``: args.server, args.variant, args.day, args.practice, args.board, args.json, args.name."""
    table = DailyTable(args.server, hello_fields(args))
    try:
        welcome = await table.connect()
        me = welcome["player"]["name"]
        config.save_session(args.server, me, welcome["session"])
        day: dict[str, Any] = {"day": args.day} if args.day else {}
        pool: dict[str, Any] = {"pool": args.pool} if getattr(args, "pool", None) else {}
        answer = checked(await table.ask("daily", variant=args.variant, **day, **pool))
        if args.json:
            print(json.dumps(answer))
            return 0
        out.print(day_view(answer, me))
        if args.board:
            return 0
        if welcome["player"].get("guest"):
            out.print(
                "You play as a guest: past days' deals only (--day), never on the board"
                " (`terrace register NAME` for an account, and today's deal)."
            )
        table.day = str(answer["day"])
        if _rated_next(args, welcome, answer) and not args.yes and not await _yes(ASK_FIRST):
            again = f"terrace daily --variant {args.variant}"
            out.print(NOT_STARTED.format(command=command(args, again, name=True)))
            return 0
        ghosts = 0
        if welcome.get("race"):  # an attempt went on while we were away: its `started` follows
            table.race = {"id": welcome["race"]}
            out.print(f"Back in race {welcome['race']}: it went on while you were away.")
        else:
            fields = {"variant": args.variant, "practice": args.practice, "ghosts": args.ghosts, **day}
            playing = checked(await table.ask("daily_play", **fields))
            table.race = {"id": playing["race"]}
            table.day = str(playing["day"])
            kind = "rated attempt" if playing["rated"] else "practice game"
            ghosts = playing["ghosts"]
            alone = "alone" if args.ghosts == 0 else "alone (no earlier attempt to race yet)"
            against = f"against {plural(ghosts, 'ghost')}" if ghosts else alone
            out.print(f"Your {kind} on {playing['day']}'s deal, {against}.")
        assert table.started is not None
        if not table.started.done():
            await _countdown(table, out)
        screen = Screen(table, me=me, confirm=("quit", "resign", "leave"))
        table.on_change = screen.changed
        ended = await screen.run()
        if ended is None:
            again = f"terrace daily --variant {args.variant}" + (" --practice" if args.practice else "")
            out.print(LEFT_SCREEN.format(command=command(args, again, name=True)))
            return 0
        assert table.finished is not None
        await table.finished
        out.print(ended)
        for _ in range(40):  # the final standings, ghosts placed, follow `finished`
            if not ghosts or any((r.get("player") or {}).get("ghost") for r in table.standings()):
                break
            await asyncio.sleep(0.05)
        standings = table.standings()
        if any((r.get("player") or {}).get("ghost") for r in standings):
            mine = next((r for r in standings if player_name(r.get("player")) == me), None)
            if mine is not None:
                out.print(f"Your place among the ghosts: {mine.get('place')} of {len(standings)}.")
        out.print(day_view(checked(await table.ask("daily", variant=args.variant, **day)), me))
        return 0
    finally:
        await table.close()


def _rated_next(args: argparse.Namespace, welcome: Mapping[str, Any], answer: Mapping[str, Any]) -> bool:
    """Whether playing now spends the day's one rated attempt (asked about first)."""
    if args.practice or args.day or welcome.get("race") or welcome["player"].get("guest"):
        return False
    return (answer.get("attempt") or {}).get("state") not in ("finished", "playing", "lost")


async def _yes(question: str) -> bool:
    """Ask a yes/no question on the terminal (or a line of piped input); only y or yes is yes."""
    try:
        reply = await asyncio.to_thread(input, question)
    except EOFError:
        print()
        return False
    return reply.strip().lower() in ("y", "yes")
