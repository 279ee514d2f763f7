"""Who hears what: players' connections, a race's spectators, lobby subscribers, leaderboard watchers.

Races push through here: a race's news reaches its seated players, its spectators and
every lobby subscriber; a ``started`` view reaches its one player only. Events of races
on other nodes (:meth:`Audience.remote`) reach the spectators and subscribers here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server.players.accounts import Accounts
from server.transport.connection import Connection, fan_out

Message = Mapping[str, Any]


class Audience:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.spectators: dict[str, set[Connection]] = {}  # race id -> connections
        self.subscribers: set[Connection] = set()  # topic "lobby"
        self.board_watchers: set[Connection] = set()  # topic "leaderboards"
        self.daily_watchers: set[Connection] = set()  # topic "daily"
        # the latest `race` and `standings` heard of each spectated race another node runs
        self.heard: dict[str, dict[str, Message]] = {}

    # ----- sending ------------------------------------------------------------------

    def to_player(self, player_id: str, msg: Message) -> None:
        player = self.accounts.get(player_id)
        if player is not None and player.connection is not None:
            player.connection.push(msg)

    def to_race(self, race_id: str, player_ids: Iterable[str], msg: Message) -> None:
        """To a race's players, its spectators and lobby subscribers, each once."""
        conns = {
            p.connection
            for pid in player_ids
            if (p := self.accounts.get(pid)) is not None and p.connection is not None
        }
        fan_out(conns | self.spectators.get(race_id, set()) | self.subscribers, msg)

    def to_boards(self, msg: Message) -> None:
        fan_out(self.board_watchers, msg)

    def to_daily(self, msg: Message) -> None:
        fan_out(self.daily_watchers, msg)

    def remote(self, race_id: str, msg: Message) -> None:
        """An event of a race another node owns: its spectators and subscribers here hear it."""
        fan_out(self.spectators.get(race_id, set()) | self.subscribers, msg)
        if msg.get("type") in ("race", "standings") and race_id in self.spectators:
            self.heard.setdefault(race_id, {})[msg["type"]] = msg
        if msg.get("type") == "race" and msg["race"]["state"] in ("finished", "cancelled"):
            self.race_gone(race_id)

    def catch_up(self, race_id: str, shared: Mapping[str, Message]) -> None:
        """Push a remote race's summary and standings as the store has them (``shared``), each
        only when it is not what was heard last: what a gap in the events left out."""
        heard = self.heard.get(race_id, {})
        if "summary" in shared and heard.get("race", {}).get("race") != shared["summary"]:
            self.remote(race_id, {"type": "race", "race": shared["summary"]})
        if "standings" in shared and heard.get("standings") != shared["standings"]:
            self.remote(race_id, shared["standings"])

    # ----- who listens --------------------------------------------------------------

    def spectate(self, conn: Connection, race_id: str) -> None:
        self.spectators.setdefault(race_id, set()).add(conn)
        conn.spectating.add(race_id)

    def unspectate(self, conn: Connection, race_id: str) -> None:
        watching = self.spectators.get(race_id)
        if watching is not None:
            watching.discard(conn)
            if not watching:
                del self.spectators[race_id]
                self.heard.pop(race_id, None)
        conn.spectating.discard(race_id)

    def race_gone(self, race_id: str) -> None:
        """The race is over: nobody spectates it any more."""
        for conn in self.spectators.pop(race_id, set()):
            conn.spectating.discard(race_id)
        self.heard.pop(race_id, None)

    def subscribe(self, conn: Connection, topic: str) -> None:
        self._topic(topic).add(conn)

    def unsubscribe(self, conn: Connection, topic: str) -> None:
        self._topic(topic).discard(conn)

    def _topic(self, topic: str) -> set[Connection]:
        if topic == "daily":
            return self.daily_watchers
        return self.board_watchers if topic == "leaderboards" else self.subscribers

    def gone(self, conn: Connection) -> None:
        """A connection closed: it stops watching everything."""
        for race_id in list(conn.spectating):
            self.unspectate(conn, race_id)
        self.subscribers.discard(conn)
        self.board_watchers.discard(conn)
        self.daily_watchers.discard(conn)
