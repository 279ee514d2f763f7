"""Players, accounts and sessions: who is on the other end of a connection.

A registered account has a secret token, shown once and stored only as its
SHA-256. A guest has no account. Either way a hello opens a *session*, whose
token lets a dropped player come back to the same identity and races.

After a restart the players of restored races come back from the races' meta
(:meth:`Accounts.restore`): their sessions, known by hash, work again, so guests
can return to their race; registered players may also say hello with their token.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from terrace.errors import ProtocolError

from .store import Account, Store

NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,23}")


@dataclass(eq=False)
class Player:
    """One identity on the server, registered or guest, with its current connection."""

    id: str
    name: str
    kind: str  # "human" | "bot"
    registered: bool
    session: str
    connection: Any = None  # server.connection.Connection while connected
    race: str | None = None  # the race the player is seated in, until it is over for them
    queued: Any = None  # the queue key while waiting in matchmaking

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "guest": not self.registered}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise ProtocolError("bad_name")
    return name


class Accounts:
    """Registers accounts and opens sessions; players live as long as the server."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._sessions: dict[str, Player] = {}  # session token hash -> player
        self._players: dict[str, Player] = {}  # player id -> player
        self._guests: dict[str, Player] = {}  # casefolded name -> guest, while it is known

    async def register(self, name: str, kind: str) -> tuple[str, Player]:
        """A new account; returns its token (never stored) and its player."""
        check_name(name)
        if name.casefold() in self._guests:
            raise ProtocolError("name_taken", name=name)
        token = secrets.token_urlsafe(24)
        account = Account(
            id="p-" + secrets.token_hex(6),
            name=name,
            kind=kind,
            token_hash=hash_token(token),
            created_at=int(time.time() * 1000),
        )
        if not await self.store.add_account(account):
            raise ProtocolError("name_taken", name=name)
        return token, self._open(account.id, account.name, account.kind, registered=True)

    async def hello(self, name: str | None, token: str | None, session: str | None) -> Player:
        """The player behind a hello: by session, by account token, or a new guest."""
        if session is not None:
            player = self._sessions.get(hash_token(session))
            if player is None:
                raise ProtocolError("bad_session")
            player.session = player.session or session  # restored players are known by its hash alone
            return player
        if token is not None:
            account = await self.store.account_by_token_hash(hash_token(token))
            if account is None:
                raise ProtocolError("bad_token")
            known = self._players.get(account.id)
            if known is not None and not known.session:  # restored, and its session unknown: a new one
                known.session = secrets.token_urlsafe(24)
                self._sessions[hash_token(known.session)] = known
            return known or self._open(account.id, account.name, account.kind, registered=True)
        guest = check_name(name) if name is not None else self._guest_name()
        if guest.casefold() in self._guests or await self.store.account_by_name(guest) is not None:
            raise ProtocolError("name_taken", name=guest)
        player = self._open("g-" + secrets.token_hex(6), guest, "human", registered=False)
        self._guests[guest.casefold()] = player
        return player

    def _guest_name(self) -> str:
        while True:
            name = "guest-" + secrets.token_hex(3)
            if name not in self._guests:
                return name

    def forget(self, player: Player) -> None:
        """Drop a guest that left with nothing to come back to (accounts stay known)."""
        if not player.registered:
            self._sessions.pop(hash_token(player.session), None)
            self._players.pop(player.id, None)
            self._guests.pop(player.name.casefold(), None)

    def restore(self, info: dict[str, Any]) -> Player:
        """The player of a restored race's meta (``public()`` plus ``session_hash``); the same
        player for every race that names it. Its session is known by hash only until it says hello."""
        player = self._players.get(info["id"])
        if player is None:
            registered = not info["guest"]
            player = Player(info["id"], info["name"], info["kind"], registered=registered, session="")
            self._players[player.id] = player
            if not registered:
                self._guests[player.name.casefold()] = player
        self._sessions.setdefault(info["session_hash"], player)
        return player

    def _open(self, pid: str, name: str, kind: str, registered: bool) -> Player:
        session = secrets.token_urlsafe(24)
        player = Player(id=pid, name=name, kind=kind, registered=registered, session=session)
        self._sessions[hash_token(session)] = player
        self._players[pid] = player
        return player
