"""``terrace play``: find a race (queue, join, create or pick one), wait out the countdown, race.

:class:`RaceTable` is a race on a server behind the screen's ``Table``
interface. The server is the truth: views and legal moves come from its
answers, an illegal move shows its reason and changes nothing. If the
connection drops mid-race, the table reconnects with backoff, says hello with
its session and carries on; the player sees it happen on the screen, and a
move typed meanwhile is sent once the line is back, with the same ``seq``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console

from terrace.conversation import Message, backoff

from . import config
from .link import Connection, Offline, Refused
from .screen import Screen
from .table import Outcome, View

RECONNECT_FOR = 60.0  # the server's default grace period


class RaceTable:
    def __init__(self, url: str, hello: dict[str, Any]) -> None:
        self.url = url
        self.home = url  # where a redirect to a node that is gone falls back to
        self.hello = hello
        self.conn: Connection | None = None
        self.session: str | None = None
        self.player: Message = {}
        self.race: Message = {}  # the latest race summary
        self.title = "terrace"
        self.started: asyncio.Future[Message] | None = None
        self.finished: asyncio.Future[Message] | None = None
        self._view: View = {}
        self._legal: list[str] = []
        self._rows: list[Message] = []
        self.seq = 0
        self.my_finish: str | None = None
        self.ends_at: float | None = None  # local monotonic time the race ends
        self.status_line: str | None = None  # connection news for the screen
        self.on_change: Callable[[], None] = lambda: None
        self._online = asyncio.Event()
        self._reconnecting: asyncio.Task[None] | None = None
        self._gone: str | None = None  # why the table gave up on the server
        self._moving = False  # following a redirect: the old connection closes on purpose

    # ----- connection ----------------------------------------------------------------

    async def connect(self) -> Message:
        """Open and say hello; raises Refused (bad token, taken name) or Offline."""
        loop = asyncio.get_running_loop()
        self.started = self.started or loop.create_future()
        self.finished = self.finished or loop.create_future()
        self.conn = await Connection.open(self.url, on_push=self._push)
        hello = {"session": self.session} if self.session else self.hello
        try:
            welcome = await self.conn.ask("hello", **hello)
        except Refused as e:  # another node, which does not know our session: hello afresh
            if e.code != "bad_session":
                raise
            welcome = await self.conn.ask("hello", **self.hello)
        self.session, self.player = welcome["session"], welcome["player"]
        self._online.set()
        self.conn.closed.add_done_callback(self._dropped)
        return welcome

    def _dropped(self, closed: asyncio.Future[str]) -> None:
        if self._moving:
            return
        self._online.clear()
        if self.finished is not None and self.finished.done():
            return
        if closed.result() in ("closed", "this player connected from somewhere else"):
            self.status_line = f"Disconnected: {closed.result()}."
            self.on_change()
            return
        self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect(closed.result()))

    async def _reconnect(self, reason: str) -> None:
        deadline = time.monotonic() + RECONNECT_FOR
        for attempt, delay in enumerate(backoff(), 1):
            self.status_line = f"Connection lost ({reason}); reconnecting, attempt {attempt}…"
            self.on_change()
            await asyncio.sleep(delay)
            try:
                await self.connect()
                self.status_line = "Reconnected: back in the race."
                self.on_change()
                return
            except (Offline, OSError):
                self.url = self.home  # a node we were sent to may be gone: its races move on elsewhere
                if time.monotonic() > deadline:
                    self.status_line = "Could not reconnect: the server is gone."
                    self._gone = f"could not reconnect to {self.url} for {RECONNECT_FOR:.0f} s"
                    self._online.set()  # wakes waiting requests, which now fail
                    self.on_change()
                    return

    async def close(self) -> None:
        if self._reconnecting is not None:
            self._reconnecting.cancel()
        if self.conn is not None:
            await self.conn.close()

    async def ask(self, type_: str, **fields: Any) -> Message:
        """A request that survives a dropped line: waits for the reconnect, then sends it again."""
        while True:
            await self._online.wait()
            if self._gone:
                raise Offline(self._gone)
            assert self.conn is not None
            try:
                answer = await self.conn.send(type_, **fields)
            except Offline:
                await asyncio.sleep(0)  # the drop callback clears _online and starts the reconnect
                continue
            if answer.get("type") != "redirect":
                return answer
            await self._follow(str(answer["url"]))

    async def _follow(self, url: str) -> None:
        """A ``redirect``: the race lives on the node at ``url``; say hello there and ask again."""
        old, self._moving = self.conn, True
        try:
            if old is not None:
                await old.close()
            self.url = url
            try:
                await self.connect()
                return
            except (Offline, OSError):
                self.url = self.home  # the owner is gone: ask home again once its lease runs out
            await asyncio.sleep(0.5)
            await self.connect()
        finally:
            self._moving = False

    # ----- pushes --------------------------------------------------------------------

    def _push(self, msg: Message) -> None:
        kind = msg.get("type")
        if kind == "race":
            if not self.race or msg["race"]["id"] == self.race.get("id"):
                self.race = msg["race"]
        elif kind == "started":
            self._started(msg)
        elif kind == "standings" and msg.get("race") == self.race.get("id"):
            self._rows = msg["rows"]
        elif kind == "finished" and msg.get("race") == self.race.get("id"):
            self._rows = msg["results"]
            if self.finished is not None and not self.finished.done():
                self.finished.set_result(msg)
        self.on_change()

    def _started(self, msg: Message) -> None:
        self.race = {**self.race, "id": msg["race"], "variant": msg.get("variant"), "goal": msg.get("goal")}
        self._view, self._legal, self.seq = msg["view"], msg["legal"], msg.get("seq", 0)
        clock = msg.get("clock") or {}
        if clock.get("ends_at") and clock.get("now"):
            self.ends_at = time.monotonic() + (clock["ends_at"] - clock["now"]) / 1000
        self.title = f"race {msg['race']} · {msg.get('variant')} · goal {msg.get('goal')}"
        if self.started is not None and not self.started.done():
            self.started.set_result(msg)

    # ----- Table ---------------------------------------------------------------------

    def view(self) -> View:
        return self._view

    def legal(self) -> list[str]:
        return self._legal

    def standings(self) -> list[Message]:
        return self._rows

    def clock(self) -> str | None:
        if self.ends_at is None:
            return None
        left = max(0, int(self.ends_at - time.monotonic()))
        text = f"{left // 60}:{left % 60:02d} left"
        return f"{text} · {self.status_line}" if self.status_line else text

    def over(self) -> str | None:
        if self._gone:
            return f"Lost the server: {self._gone}."
        if self.finished is not None and self.finished.done() and not self.finished.exception():
            return "The race is over."
        if self.my_finish:
            return f"You finished: {self.my_finish}."
        return None

    async def move(self, text: str) -> Outcome:
        answer = await self.ask("move", race=self.race["id"], seq=self.seq + 1, move=text)
        if answer["type"] != "moved":
            if answer.get("code") in ("player_finished", "race_not_running", "not_in_race"):
                self.my_finish = self.my_finish or "the race ended"
            return Outcome(False, message=str(answer.get("message", answer.get("code"))))
        self.seq, self._view, self._legal = answer["seq"], answer["view"], answer["legal"]
        news = _news(answer.get("events", []))
        if answer.get("finish"):
            self.my_finish = {"goal": "goal reached!", "stuck": "no more moves (the game is lost)"}.get(
                answer["finish"], answer["finish"]
            )
        self.on_change()
        return Outcome(True, move=answer["move"], message=news, events=answer.get("events", []))

    def commands(self) -> dict[str, Callable[[], Awaitable[str]]]:
        async def resign() -> str:
            answer = await self.ask("resign", race=self.race["id"])
            if answer["type"] == "resigned":
                self.my_finish = "resigned"
                return "You resigned."
            return str(answer.get("message"))

        return {"resign": resign}


def _news(events: list[Message]) -> str:
    words = {
        "terrace_cleared": "Terrace cleared!",
        "game_over": "Game over.",
        "recycled": "Waste turned over.",
        "redealt": "Redealt.",
    }
    return " ".join(words[e["type"]] for e in events if e.get("type") in words)


# ----- the command ---------------------------------------------------------------------


def hello_fields(args: argparse.Namespace) -> dict[str, Any]:
    """Who to say hello as: --name (a guest), else the token stored for this server, else a guest."""
    if getattr(args, "name", None):
        return {"name": args.name}
    stored = config.load_token(args.server)
    if stored:
        return {"token": stored["token"]}
    return {}


async def play(args: argparse.Namespace, out: Console) -> int:
    """``terrace play``: args.server, args.name, args.queue, args.race, args.create, args.seats, args.goal."""
    table = RaceTable(args.server, hello_fields(args))
    try:
        welcome = await table.connect()
        me = welcome["player"]["name"]
        out.print(f"Connected to {args.server} as [bold]{me}[/bold].")
        race_id = await _find_race(table, args, out)
        if race_id is None:
            return 0
        assert table.started is not None
        if not table.started.done():
            out.print("Waiting for the race to start…  (Ctrl-C to leave)")
            await _countdown(table, out)
        screen = Screen(table, me=me)
        table.on_change = screen.changed
        ended = await screen.run()
        if ended is None:
            out.print(
                "You left the race; it goes on without you (reconnect within the grace period with the same name)."
            )
            return 0
        if table.finished is not None and not table.finished.done():
            out.print(f"{ended} Waiting for the others… (Ctrl-C to leave)")
            await table.finished
        from .render import standings

        assert table.finished is not None
        out.print(standings(table.finished.result()["results"], me))
        return 0
    finally:  # refusals and drops are reported by the command line, once
        await table.close()


async def _find_race(table: RaceTable, args: argparse.Namespace, out: Console) -> str | None:
    assert table.started is not None
    if table.started.done():  # a hello that put us back into a race
        return str(table.started.result()["race"])
    if args.queue:
        fields = {"variant": args.queue, **({"goal": args.goal} if args.goal else {})}
        queued = await table.ask("queue", **fields)
        _check(queued)
        out.print(f"Queued for {queued['variant']} (goal {queued['goal']}), position {queued['position']}.")
        return "queued"
    if args.race:
        _check(await table.ask("join", race=args.race))
        return str(args.race)
    if args.create:
        fields = {"variant": args.create, "seats": args.seats, "start": "full", "join": True}
        if args.goal:
            fields["goal"] = args.goal
        created = await table.ask("create", **fields)
        _check(created)
        table.race = created["race"]
        out.print(f"Created race {created['race']['id']}: it starts when {args.seats} players have joined.")
        return str(created["race"]["id"])
    return await _pick(table, out)


async def _pick(table: RaceTable, out: Console) -> str | None:
    """Show the open races and let the player pick one, queue, or leave."""
    from prompt_toolkit import PromptSession

    from .render import lobby

    listing = await table.ask("races")
    open_races = [r for r in listing.get("races", []) if r.get("state") == "open"]
    out.print(lobby(open_races) if open_races else "No open races right now.")
    hint = "a race id to join, a variant to queue for (terrace, signora, …), or q to quit"
    answer = (await PromptSession[str]().prompt_async(f"Join or queue ({hint}): ")).strip()
    if answer in ("", "q", "quit"):
        return None
    from terrace import VARIANTS

    if answer in VARIANTS:
        _check(await table.ask("queue", variant=answer))
        return "queued"
    _check(await table.ask("join", race=answer))
    return answer


async def _countdown(table: RaceTable, out: Console) -> None:
    assert table.started is not None
    shown: set[int] = set()
    while not table.started.done():
        starts_at = table.race.get("starts_at")
        if starts_at and table.race.get("state") == "countdown":
            left = max(0, round((starts_at - time.time() * 1000) / 1000))
            if left not in shown:
                shown.add(left)
                out.print(f"Starting in {left}…")
        await asyncio.wait([table.started], timeout=0.2)


def _check(answer: Message) -> None:
    if answer.get("type") == "error":
        raise Refused(answer)
