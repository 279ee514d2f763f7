"""The online race table: one player's connection to a race on a server, behind the
screen's ``Table`` interface (``client.table``), and who to say hello as.

The server is the truth: views and legal moves come from its answers, an illegal move
shows its reason and changes nothing. If the connection drops mid-race, the table
reconnects with backoff, says hello with its session and carries on; the player sees it
happen on the screen (the board kept, a status line saying "reconnecting…"). A move typed
while the server is away is not sent, and the screen says so (:data:`NOT_SENT`): typed again
once back it is played against the board as it is then. A move already on its way when the
line drops is sent again once the line is back, with the same ``seq``. ``terrace play``, ``terrace daily`` and ``terrace arena join`` race on it.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from link import Connection, HelloRefused, News, Offline, Refused, Session
from terrace.rules.news import news
from terrace.wire.conversation import Message
from terrace.wire.messages import (
    Error,
    Finished,
    Moved,
    RaceIdAnswer,
    RacePush,
    Row,
    Standings,
    Started,
    read,
)

from . import config
from .table import Outcome, View

# What the screen says while the line is down; each fits 80 columns with room to spare.
RECONNECTING = "⚠ The server is away: reconnecting… (try {attempt}). Your board is kept."
BACK = "Reconnected: back in the race."
NOT_SENT = "not sent: the server is away; type it again when back"
RACE_GONE = "The server came back without this race (a restarted server keeps no race in memory): it is over."
ACCOUNT_GONE = (
    "The server no longer knows your account (a server on its memory store forgets accounts when it"
    " restarts): this race is over. Register again (terrace register NAME) to race there."
)


def lost_server(reason: str) -> str:
    """What the screen says once the session gave up on the server, ``reason`` being why."""
    if "bad_token" in reason or "bad_session" in reason:
        return ACCOUNT_GONE
    return f"Lost the server: {reason.rstrip('.')}."


class RaceTable:
    def __init__(self, url: str, hello: dict[str, Any]) -> None:
        self.link = Session(
            url,
            token=hello.get("token"),
            name=hello.get("name"),
            client=config.client_id(),
            on_push=self._push,
            on_news=self._news,
        )
        self.link.policy.session = hello.get("session")
        self.race: dict[str, Any] = {}  # what we know of our race: its summary, or its start's part of it
        self.unrated_said = False  # the player was told the race goes ahead unrated
        self.title = "terrace"
        self.started: asyncio.Future[Started] | None = None
        self.finished: asyncio.Future[Finished] | None = None
        self._view: View = {}
        self._legal: list[str] = []
        self._rows: list[Row] = []
        self.seq = 0
        self.my_finish: str | None = None
        self.ends_at: float | None = None  # local monotonic time the race ends
        self.status_line: str | None = None  # connection news for the screen
        self.race_gone: str | None = None  # the server came back without our race
        self.on_change: Callable[[], None] = lambda: None

    # ----- connection ----------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.link.url

    @property
    def conn(self) -> Connection | None:
        return self.link.conn

    @property
    def session(self) -> str | None:
        return self.link.policy.session

    @session.setter
    def session(self, value: str | None) -> None:
        self.link.policy.session = value

    @property
    def player(self) -> Message:
        return self.link.player

    async def connect(self) -> Message:
        """Open and say hello; raises Refused (bad token, taken name) or Offline."""
        loop = asyncio.get_running_loop()
        self.started = self.started or loop.create_future()
        self.finished = self.finished or loop.create_future()
        try:
            return await self.link.connect()
        except HelloRefused as exc:
            raise Refused(exc.answer) from exc

    def _news(self, news: News) -> None:
        if news.kind == "lost":
            self.status_line = RECONNECTING.format(attempt=news.attempt)
        elif news.kind == "back":
            self.status_line = BACK
            racing = self.started is not None and self.started.done() and self.my_finish is None
            if racing and self.race.get("id") and self.link.welcome.get("race") != self.race["id"]:
                self.status_line = self.race_gone = RACE_GONE  # the hello did not put us back in it
                if self.finished is not None and not self.finished.done():
                    self.finished.set_exception(Offline(RACE_GONE))
                    self.finished.exception()  # said here: no "never retrieved" warning if none awaits it
        elif news.reason != "closed":  # given up: the race cannot go on from here
            self.status_line = self.race_gone = lost_server(news.reason)
            if self.finished is not None and not self.finished.done():
                self.finished.set_exception(Offline(self.race_gone))
                self.finished.exception()  # said here: no "never retrieved" warning if none awaits it
        self.on_change()

    async def close(self) -> None:
        await self.link.close()

    async def ask(self, type_: str, **fields: Any) -> Message:
        """A request that survives a dropped line and follows redirects (``error`` answers included)."""
        return await self.link.request(type_, **fields)

    # ----- pushes --------------------------------------------------------------------

    def _push(self, msg: Message) -> None:
        kind = msg.get("type")
        if kind == "race":
            summary = read(msg, RacePush)["race"]
            if not self.race or summary["id"] == self.race.get("id"):
                self.race = dict(summary)
        elif kind == "started":
            self._started(read(msg, Started))
        elif kind == "standings" and msg.get("race") == self.race.get("id"):
            self._rows = read(msg, Standings)["rows"]
        elif kind == "finished" and msg.get("race") == self.race.get("id"):
            finished = read(msg, Finished)
            self._rows = list(finished["results"])
            if self.finished is not None and not self.finished.done():
                self.finished.set_result(finished)
        self.on_change()

    def _started(self, msg: Started) -> None:
        self.race = {**self.race, "id": msg["race"], "variant": msg["variant"], "goal": msg["goal"]}
        if msg.get("unrated"):
            self.race["unrated"] = msg["unrated"]
        self._view, self._legal, self.seq = msg["view"], msg["legal"], msg["seq"]
        clock = msg["clock"]
        self.ends_at = time.monotonic() + (clock["ends_at"] - clock["now"]) / 1000
        unrated = " · unrated" if msg.get("unrated") else ""  # two accounts of one address: no board
        self.title = f"race {msg['race']} · {msg['variant']} · goal {msg['goal']}{unrated}"
        if self.started is not None and not self.started.done():
            self.started.set_result(msg)

    # ----- Table ---------------------------------------------------------------------

    def view(self) -> View:
        return self._view

    def legal(self) -> list[str]:
        return self._legal

    def standings(self) -> list[Row]:
        return self._rows

    def clock(self) -> str | None:
        if self.ends_at is None:
            return None
        left = max(0, int(self.ends_at - time.monotonic()))
        return f"{left // 60}:{left % 60:02d} left"  # (the status line has a line of its own)

    def away(self) -> bool:
        """The server is away (the line dropped, a reconnect under way): nothing is sent now."""
        return not self.link.online and self.link.gone is None

    def over(self) -> str | None:
        if self.race_gone:
            return self.race_gone
        gone = self.link.gone
        if gone and gone != "closed":
            return lost_server(gone)
        if self.finished is not None and self.finished.done() and not self.finished.exception():
            return "The race is over."
        if self.my_finish:
            return f"You finished: {self.my_finish}."
        return None

    async def move(self, text: str) -> Outcome:
        if self.away():  # sent later it would be played against a board the player no longer sees
            return Outcome(False, message=NOT_SENT)
        reply = await self.ask("move", race=self.race["id"], seq=self.seq + 1, move=text)
        if reply["type"] != "moved":
            error = read(reply, Error)
            if error["code"] in ("player_finished", "race_not_running", "not_in_race"):
                self.my_finish = self.my_finish or "the race ended"
            return Outcome(False, message=error["message"])
        answer = read(reply, Moved)
        if self.status_line == BACK:
            self.status_line = None  # playing on says it better
        self.seq, self._view, self._legal = answer["seq"], answer.get("view", self._view), answer["legal"]
        self._mine_as_moved()
        said = news(answer["events"])
        finish = answer.get("finish")
        if finish:
            self.my_finish = {
                "goal": "goal reached",
                "stuck": "stuck (no card can go home any more: the game is lost)",
            }.get(finish, finish)
        self.on_change()
        return Outcome(True, move=answer["move"], message=said, events=answer["events"])

    def _mine_as_moved(self) -> None:
        """Our own standings row as of the move just answered: the next standings push may be a
        moment away (or, after the last move, never come before the end screen)."""
        me = self.link.player.get("id")
        view = self._view
        self._rows = [
            {**row, "score": view["score"], "terrace_left": view["terrace_left"], "moves": view["moves"]}
            if row["player"]["id"] == me
            else row
            for row in self._rows
        ]

    def commands(self) -> dict[str, Callable[[], Awaitable[str]]]:
        async def resign() -> str:
            if self.away():
                return "Resign " + NOT_SENT
            answer = await self.ask("resign", race=self.race["id"])
            if answer["type"] != "resigned":
                return read(answer, Error)["message"]
            read(answer, RaceIdAnswer)
            self.my_finish = "resigned"
            return "You resigned."

        async def leave() -> str:
            if self.away():
                return "Leave " + NOT_SENT
            answer = await self.ask("leave", race=self.race["id"])
            if answer["type"] != "left":
                return read(answer, Error)["message"]
            read(answer, RaceIdAnswer)
            self.my_finish = "left"
            return "You left the race: it is over for you, and you may race again at once."

        return {"resign": resign, "leave": leave}


def hello_fields(args: argparse.Namespace) -> dict[str, Any]:
    """Who to say hello as, and the session to try first (it puts us back into a race).

    --name: that name's stored token, else that guest (with its stored session, if we last
    played as it here); else the server's default stored account; else the guest we last
    played as here; else a new guest.
    """
    stored = config.load_session(args.server)
    name = getattr(args, "name", None)
    if name:
        named = config.load_token(args.server, name)
        if named:
            return {"token": named["token"]}
        return {"name": name, **({"session": stored["session"]} if stored and stored["name"] == name else {})}
    account = config.load_token(args.server)
    if account:
        return {"token": account["token"]}
    if stored:
        return {"name": stored["name"], "session": stored["session"]}
    return {}
