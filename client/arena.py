"""``terrace arena``: list arenas, show (or watch) one's standings, verify one, and join one.

``join`` races the arena in the play screen, one race after another: the server pairs the
player again as soon as a race is over, so the next race's countdown follows its end screen.
Quitting the screen leaves the arena (the race goes on without you, as with ``terrace play``).
``verify`` fetches every race of a finished arena, checks each as ``terrace verify`` does, and
recomputes the standings from their places.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import time
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from link import Connection, Refused, checked, fetch
from link.command import interrupt_handled
from terrace.race.arena import check_standings
from terrace.race.audit import audit
from terrace.wire.conversation import Message
from terrace.wire.messages import Started

from . import config
from .race_table import RaceTable, hello_fields
from .render import plural
from .suggest import server_flag


def _when(a: Message, now: int) -> str:
    if now < a["starts_ms"]:
        return f"starts in {_span(a['starts_ms'] - now)}"
    if now < a["ends_ms"]:
        return f"ends in {_span(a['ends_ms'] - now)}"
    # short enough for 80 columns beside the longest scheduled id; Z: UTC
    return "ended " + dt.datetime.fromtimestamp(a["ends_ms"] / 1000, dt.UTC).strftime("%m-%d %H:%MZ")


def _span(ms: int) -> str:
    s = max(0, ms // 1000)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def arenas_table(answer: Message) -> RenderableType:
    now = answer["now"]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    # the id is what `terrace arena join ID` needs: never cut; what the arena is goes below it
    ids = [a["id"] for state in ("running", "upcoming", "finished") for a in answer[state]]
    table.add_column("arena", min_width=max(map(len, ids), default=5))  # the id's line fits, always
    table.add_column("state", no_wrap=True)
    table.add_column("when")
    table.add_column("players", justify="right")
    table.add_column("races", justify="right")
    for state in ("running", "upcoming", "finished"):
        for a in answer[state]:
            named = a["name"] not in (
                a["id"],
                f"{a['variant']} {a['pool']}",
            )  # a schedule's own name says no more
            about = " · ".join(x for x in (a["name"] if named else "", a["variant"], a["pool"]) if x)
            table.add_row(
                f"{a['id']}\n[dim]{escape(about)}[/dim]",
                state,
                _when(a, now),
                str(a["players"]),
                str(a["races"]),
            )
    return table


def standings_table(arena: Message, now: int) -> RenderableType:
    title = f"arena {arena['id']} · {arena['variant']} · pool {arena['pool']} · {_when(arena, now)}"
    table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left")
    for col in ("#", "player", "points", "races", "wins", "streak"):
        table.add_column(col, justify="left" if col == "player" else "right")
    for r in arena["standings"]:
        kind = " (bot)" if r["player"].get("kind") == "bot" else ""
        streak = f"{r['streak']} (double)" if r["streak"] >= 2 else str(r["streak"])
        table.add_row(
            str(r["rank"]),
            r["player"]["name"] + kind,
            f"{r['points']} ({r['held']} held)" if r.get("held") else str(r["points"]),
            str(r["races"]),
            str(r["wins"]),
            streak,
        )
    if not arena["standings"]:
        return Group(title, "Nobody has joined yet.")
    return table


async def command(args: argparse.Namespace, out: Console) -> int:
    """``terrace arena list|show|verify|join``: args.action, args.arena, args.server, args.json, args.watch."""
    action = args.action
    if action == "list":
        answer = await fetch(args.server, "arenas")
        if args.json:
            print(json.dumps({k: answer[k] for k in ("upcoming", "running", "finished")}))
            return 0
        if not any(answer[k] for k in ("upcoming", "running", "finished")):
            out.print("No arenas on this server.")
            return 0
        out.print(arenas_table(answer))
        return 0
    if not args.arena:
        out.print(f"[red]terrace arena {action} needs an arena id[/red]")
        return 2
    if action == "show":
        return await (_watch(args, out) if args.watch else _show(args, out))
    if action == "verify":
        return await _verify(args, out)
    return await join(args, out)


async def _show(args: argparse.Namespace, out: Console) -> int:
    answer = await fetch(args.server, "arena", arena=args.arena)
    if args.json:
        print(json.dumps(answer["arena"]))
        return 0
    out.print(standings_table(answer["arena"], answer["now"]))
    races = plural(len(answer["arena"]["race_ids"]), "race")
    out.print(f"{races}; check them all with: terrace arena verify {args.arena}")
    return 0


async def _watch(args: argparse.Namespace, out: Console) -> int:
    """The standings, updating in place as races end, until the arena is over."""
    latest: dict[str, Any] = {}
    changed = asyncio.Event()

    def heard(msg: Message) -> None:
        if msg.get("type") == "arena" and msg["arena"]["id"] == args.arena:
            latest.update(arena=msg["arena"], now=msg["now"], at=time.time())
            if args.json:
                print(json.dumps(msg["arena"]), flush=True)
            changed.set()

    conn = await Connection.open(args.server, on_push=heard)
    try:
        first = await conn.ask("arena", arena=args.arena, watch=True)
        heard({**first, "type": "arena"})
        with Live(console=out, auto_refresh=False) as live:
            while True:
                now = int(latest["now"] + (time.time() - latest["at"]) * 1000)
                if not args.json:
                    live.update(standings_table(latest["arena"], now), refresh=True)
                if now >= latest["arena"]["ends_ms"] and latest["arena"]["state"] == "finished":
                    return 0
                changed.clear()
                waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(changed.wait()), conn.closed]
                done, _ = await asyncio.wait(waiters, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
                waiters[0].cancel()
                if conn.closed.done():
                    out.print(f"[red]terrace: {conn.closed.result()}[/red]")
                    return 1
                if not done and now >= latest["arena"]["ends_ms"]:
                    latest["arena"] = (await conn.ask("arena", arena=args.arena))["arena"]  # its final state
    finally:
        await conn.close()


async def _verify(args: argparse.Namespace, out: Console) -> int:
    details = (await fetch(args.server, "arena", arena=args.arena))["arena"]
    records, bad = [], []
    for race_id in details["race_ids"]:
        try:
            record = (await fetch(args.server, "record", race=race_id))["race"]
        except Refused as exc:
            bad.append(f"race {race_id}: {exc}")
            continue
        result = audit(record, race=race_id)
        if not result.ok:
            bad.append(f"race {race_id}: " + "; ".join(c.name for c in result.failed))
        records.append(record)
    problems = bad + check_standings(details, records)
    if args.json:
        print(
            json.dumps(
                {
                    "arena": args.arena,
                    "races": len(details["race_ids"]),
                    "ok": not problems,
                    "problems": problems,
                }
            )
        )
    elif problems:
        for p in problems:
            out.print(f"[red]✗[/red] {p}")
    else:
        held = sum(len(players) for players in details.get("held", {}).values())
        less = f", less {plural(held, 'result')} held back for fair play" if held else ""
        out.print(
            f"[green]✓[/green] arena {args.arena}: {plural(len(records), 'race')} verified (commitment, deal, "
            f"every move, places), and the standings are their places' points{less}"
        )
        if held:
            out.print("(each hold for pace checked against its race's move times; a void is the operator's)")
    if details["state"] != "finished" and not args.json:
        out.print("(the arena is not over: its standings may still change)")
    return 1 if problems else 0


# ----- joining: the arena's races in the play screen ---------------------------------


class ArenaTable(RaceTable):
    """A race table that, once a race is over, waits for the next one the arena pairs it into."""

    def __init__(self, url: str, hello: dict[str, Any], arena: str) -> None:
        super().__init__(url, hello)
        self.arena = arena
        self.over_future: asyncio.Future[Message] | None = None

    def _push(self, msg: Message) -> None:
        if msg.get("type") == "arena_over" and msg.get("arena") == self.arena:
            if self.over_future is not None and not self.over_future.done():
                self.over_future.set_result(msg)
            return
        super()._push(msg)

    async def connect(self) -> Message:
        self.over_future = self.over_future or asyncio.get_running_loop().create_future()
        return await super().connect()

    def next_race(self) -> None:
        """Forget the race just over: the next `race` and `started` pushes are the next race's."""
        loop = asyncio.get_running_loop()
        self.started, self.finished = loop.create_future(), loop.create_future()
        self.race, self._view, self._legal, self._rows = {}, {}, [], []
        self.seq, self.my_finish, self.ends_at, self.title = 0, None, None, "terrace"

    async def next_started(self) -> Started | None:
        """The next race's `started`, or None once the arena is over."""
        assert self.started is not None and self.over_future is not None
        waits: list[asyncio.Future[Any]] = [self.started, self.over_future]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        return self.started.result() if self.started.done() else None


COUNTED_WITHIN = 5.0  # seconds a race's end takes to reach the arena's standings, at most


def _mine(arena: Message, me: Any) -> dict[str, Any]:
    """The player's row of an arena's standings (races and points so far), or an empty one."""
    row = next((r for r in arena.get("standings", []) if r["player"]["id"] == me), None)
    return dict(row) if row is not None else {"races": 0, "points": 0, "places": []}


async def _after_race(
    table: ArenaTable, arena: str, me: Any, before: dict[str, Any], seats: int
) -> tuple[dict[str, Any], str] | None:
    """Between two races: the race just over's place and points, and the arena so far, once the
    arena has counted it (a moment after its end); None if it is not counted in time."""
    deadline = time.monotonic() + COUNTED_WITHIN
    while True:
        details = (await table.ask("arena", arena=arena))["arena"]
        standings = details.get("standings", [])
        row = next((r for r in standings if r["player"]["id"] == me), None)
        if row is not None and row["races"] > before["races"]:
            break
        if time.monotonic() > deadline:
            return None
        await asyncio.sleep(0.2)
    from .layout import ordinal

    gained = row["points"] - before["points"]
    place = row["places"][-1] if row["places"] else None
    where = f"{ordinal(place)} of {seats}" if place else "placed"
    line = (
        f"Arena {arena}: {where} in this race, +{plural(gained, 'point')}; "
        f"{plural(row['points'], 'point')} after {plural(row['races'], 'race')}, "
        f"rank {row['rank']} of {len(standings)}."
    )
    return dict(row), line


async def _leave(table: ArenaTable, arena: str, out: Console) -> int:
    """Leave the arena (Ctrl-C or quit): no more pairings; the points so far stay."""
    interrupt_handled()
    await table.ask("arena_leave", arena=arena)
    out.print("You left the arena; your points so far stay in its standings.")
    return 0


async def join(args: argparse.Namespace, out: Console) -> int:
    """``terrace arena join ID``: race the arena's races one after another until it ends."""
    from .layout import end_screen
    from .screen import Screen

    table = ArenaTable(args.server, hello_fields(args), args.arena)
    try:
        welcome = await table.connect()
        me = welcome["player"]["name"]
        config.save_session(args.server, me, welcome["session"])
        joined = checked(await table.ask("arena_join", arena=args.arena))["arena"]
        out.print(
            f"Joined arena {args.arena} as [bold]{me}[/bold] ({_when(joined, int(time.time() * 1000))})."
        )
        out.print("You are paired into a race as soon as someone is free; Ctrl-C leaves the arena.")
        me_id = welcome["player"].get("id")
        counted = _mine((await table.ask("arena", arena=args.arena))["arena"], me_id)  # points so far
        while True:
            try:
                started = await table.next_started()
            except asyncio.CancelledError:  # Ctrl-C while waiting to be paired
                return await _leave(table, args.arena, out)
            if started is None:
                break
            screen = Screen(table, me=me, confirm=("quit", "resign", "leave"))
            table.on_change = screen.changed
            ended = await screen.run()
            if ended is None:
                return await _leave(table, args.arena, out)
            assert table.finished is not None
            if not table.finished.done():
                out.print(f"{ended} Waiting for the others… (Ctrl-C leaves the arena)")
                try:
                    await table.finished
                except asyncio.CancelledError:
                    return await _leave(table, args.arena, out)
            result = table.finished.result()
            out.print(end_screen({**table.race, **result}, me, "", server_flag(args.server)))
            said = await _after_race(table, args.arena, me_id, counted, len(result["results"]))
            if said is not None:
                counted, line = said
                out.print(line)
            table.next_race()
            # a race may outlive its arena (the server says arena_over once its last race is done)
            over = table.over_future is not None and table.over_future.done()
            if over or time.time() * 1000 >= int(joined.get("ends_ms") or 0) > 0:
                out.print("The arena is over: no more races.")
            else:
                out.print("Next race coming: the arena pairs you again as soon as others are free…")
        final = await table.ask("arena", arena=args.arena)
        out.print(standings_table(final["arena"], final["now"]))
        return 0
    finally:
        await table.close()
