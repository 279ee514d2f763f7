"""``terrace races``, ``terrace watch`` and ``terrace top``: the lobby, live standings, leaderboards.

``watch`` with no race follows the whole lobby (subscribe ``lobby``); with a
race id it spectates that race. Either way the table updates in place as
pushes arrive (rich Live), and never shows a card of a running race: the
server sends standings only.

The server lists races a page at a time (``races_page`` of them, ``next`` where the
next page starts); ``races`` and ``watch`` read the pages in turn up to ``--limit``
races (1,000 by default) and say when there were more.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from typing import Any, cast

from rich.console import Console, Group
from rich.live import Live

from link import Connection, checked, fetch
from terrace.wire.conversation import Message
from terrace.wire.messages import (
    Finished,
    RacePush,
    RacesAnswer,
    Row,
    Spectating,
    Standings,
    Summary,
    read,
)

from .suggest import command


async def pages(conn: Connection, first: Message, limit: int) -> tuple[list[Message], int]:
    """The races of ``first`` (a ``races`` or lobby ``subscribe`` answer) and of the pages after
    it, at most ``limit`` of them, each once; and how many the server has in all."""
    listed: dict[str, Message] = {}
    answer = first
    while True:
        for race in answer.get("races", []):
            listed.setdefault(race["id"], race)  # a race that moved up a page between two asks
        after = answer.get("next")
        if after is None or len(listed) >= limit:
            break
        answer = await conn.ask("races", start=after)
    total = int(answer.get("total", len(listed)))
    return list(listed.values())[:limit], max(total, len(listed))


def more(shown: int, total: int) -> str | None:
    """What a listing cut at ``--limit`` says about the races it left out."""
    if total <= shown:
        return None
    return f"Showing {shown} of {total} races; --limit {total} shows them all."


async def races(args: argparse.Namespace, out: Console) -> int:
    """``terrace races``: args.server, args.json, args.limit."""
    from .render import finished_races, lobby

    conn = await Connection.open(args.server)
    try:
        # Typed, so a key the server does not send (the old ``recent``) is a type error.
        answer = read(await conn.ask("races"), RacesAnswer)
        listed, total = await pages(conn, cast(Message, answer), args.limit)
    finally:
        await conn.close()
    if args.json:
        print(json.dumps({"races": listed, "total": total, "finished": answer["finished"]}))
        return 0
    out.print(lobby(listed) if listed else "No races right now.")
    if (note := more(len(listed), total)) is not None:
        out.print(note)
    if answer["finished"]:
        out.print(finished_races(answer["finished"]))
    return 0


class _Watch:
    """What a watcher knows: races by id, standings by race, and the race that ended (if watched)."""

    def __init__(self, race: str | None) -> None:
        self.race = race
        self.races: dict[str, Summary] = {}
        self.total = 0  # races the lobby had when it was first read (more than --limit: a note)
        self.rows: dict[str, list[Row]] = {}
        self.finished: asyncio.Future[Finished] = asyncio.get_running_loop().create_future()
        self.changed = asyncio.Event()

    def push(self, msg: Message) -> None:
        kind = msg.get("type")
        if kind == "race":
            summary = read(msg, RacePush)["race"]
            self.races[summary["id"]] = summary
        elif kind == "standings":
            standings = read(msg, Standings)
            self.rows[standings["race"]] = standings["rows"]
        elif kind == "finished":
            finished = read(msg, Finished)
            race = finished["race"]
            self.rows[race] = list(finished["results"])
            if race in self.races:
                self.races[race] = {**self.races[race], "state": "finished"}
            if race == self.race and not self.finished.done():
                self.finished.set_result(finished)
        self.changed.set()

    def renderable(self) -> Any:
        from .render import lobby, standings

        if self.race is not None:
            race = self.races.get(self.race)
            variant, state = (race["variant"], race["state"]) if race else ("?", "?")
            title = f"race {self.race} · {variant} · {state}"
            return Group(title, standings(self.rows.get(self.race, [])))
        live = [r for r in self.races.values() if r["state"] != "finished"]
        # the screen waits for news: say so, or an empty lobby looks like a command that hung
        parts: list[Any] = [
            lobby(live) if live else "No races right now; watching for new ones (Ctrl-C stops)."
        ]
        if (note := more(len(self.races), self.total)) is not None:
            parts.append(note)
        for race_id, rows in self.rows.items():
            race = self.races.get(race_id)
            if race is not None and race["state"] == "running":
                parts += [f"race {race_id}", standings(rows)]
        return Group(*parts)


async def watch(args: argparse.Namespace, out: Console) -> int:
    """``terrace watch [RACE]``: args.server, args.race (optional), args.json (one push per line),
    args.limit (races of the lobby read at first)."""
    w = _Watch(args.race)
    # JSON lines from the first push on: a push read right behind the `subscribed` answer is handled
    # before the code waiting for that answer runs again, so switching afterwards could miss it
    conn = await Connection.open(args.server, on_push=_json_lines(w) if args.json else w.push)
    try:
        if args.race:
            answer = await conn.request("spectate", race=args.race)
            if (
                answer.get("code") == "no_race"
            ):  # over and archived, perhaps: then its record says how it ended
                record = await conn.request("record", race=args.race)
                if record["type"] == "record":
                    return _over(record, args, out)
            spectating = read(checked(answer), Spectating)
            w.races[args.race] = spectating["race"]
            w.rows[args.race] = spectating["standings"]["rows"]
        else:
            # subscribed first, so no change is missed while the pages are read; a push that came
            # meanwhile is newer than a page, so it is kept
            first = await conn.ask("subscribe", topic="lobby")
            if "races" not in first:  # a server that sends no page with `subscribed`
                first = await conn.ask("races")
            listed, w.total = await pages(conn, first, args.limit)
            for race in listed:
                w.races.setdefault(race["id"], cast(Summary, race))
            for msg in first.get("standings", []):
                w.rows.setdefault(msg["race"], msg["rows"])
        if args.json:
            return await _watch_json(w, conn, args)
        with Live(w.renderable(), console=out, auto_refresh=False) as live:
            while not w.finished.done() and not conn.closed.done():
                w.changed.clear()
                changed = asyncio.ensure_future(w.changed.wait())
                waiters: list[asyncio.Future[Any]] = [changed, w.finished, conn.closed]
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                live.update(w.renderable(), refresh=True)
        if conn.closed.done() and not w.finished.done():
            out.print(f"[red]terrace: {conn.closed.result()}[/red]")
            return 1
        return 0
    finally:  # refusals and drops are reported by the command line, once
        await conn.close()


def _over(record: Message, args: argparse.Namespace, out: Console) -> int:
    """``terrace watch`` of a race that is over: how it ended, and where to look further."""
    if args.json:
        print(json.dumps(record), flush=True)
        return 0
    from .render import standings

    race = args.race
    out.print(f"Race {race} is over.")
    out.print(standings(record["race"].get("results", []), None))
    replay, verify = command(args, f"terrace replay {race}"), command(args, f"terrace verify {race}")
    out.print(f"Next: step through it: {replay} · check it: {verify}", style="cyan")
    return 0


def _json_lines(w: _Watch) -> Callable[[Message], None]:
    def show(msg: Message) -> None:
        w.push(msg)
        print(json.dumps(msg), flush=True)

    return show


async def _watch_json(w: _Watch, conn: Connection, args: argparse.Namespace) -> int:
    waiters: list[asyncio.Future[Any]] = [w.finished, conn.closed]
    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    return 0 if w.finished.done() or not args.race else 1


async def top(args: argparse.Namespace, out: Console) -> int:
    """``terrace top [BOARD]``: args.server, args.board, args.variant, args.pool, args.goal, args.period,
    args.around, args.page, args.count, args.json."""
    fields: dict[str, Any] = {"board": args.board, "variant": args.variant, "count": args.count}
    if args.board == "rating":
        fields["pool"] = args.pool
    if args.board == "fastest":
        fields["period"] = args.period
        if args.goal:
            fields["goal"] = args.goal
    if args.around:
        fields["around"] = args.around
    else:
        fields["start"] = (args.page - 1) * args.count
    answer = await fetch(args.server, "leaderboard", **fields)
    if args.json:
        print(json.dumps(answer))
        return 0
    from .render import leaderboard

    out.print(leaderboard(answer, me=args.around))
    return 0
