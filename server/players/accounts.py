"""Players, accounts and sessions: who is on the other end of a connection.

A registered account has a secret token, shown once and stored only as its
SHA-256. A guest has no account. Either way a hello opens a *session*, whose
token lets a dropped player come back to the same identity and races. Sessions
are kept in the store too (by hash, for ``session_ttl`` seconds after their last
hello), so a session opened on one node is good on every node of a deployment:
a guest sent to another node by ``redirect`` is the same guest there.

After a restart the players of restored races come back from the races' meta
(:meth:`Accounts.restore`): their sessions, known by hash, work again, so guests
can return to their race; registered players may also say hello with their token.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, cast

from server import names
from server.store import Account, Store
from terrace.errors import ProtocolError
from terrace.vocab import Kind
from terrace.wire.messages import PlayerInfo

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
    address: str = ""  # where its last hello came from ("" for a restored player not back yet)
    client: str = ""  # the client install id its last hello named, if any

    def public(self) -> PlayerInfo:
        return {"id": self.id, "name": self.name, "kind": cast(Kind, self.kind), "guest": not self.registered}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise ProtocolError("bad_name")
    return name


class Accounts:
    """Registers accounts and opens sessions; players live as long as the server."""

    def __init__(self, store: Store, session_ttl: float = 86_400.0, house_key: str = "") -> None:
        self.store = store
        self.session_ttl = session_ttl
        self.house_key = house_key  # names beginning with "house" need it (server.names.reserved)
        self._sessions: dict[str, Player] = {}  # session token hash -> player
        self._players: dict[str, Player] = {}  # player id -> player
        # name key (server.names) -> the guest known by that name, or None while a register
        # or a guest hello of it waits for the store
        self._names: dict[str, Player | None] = {}

    def check_house(self, name: str, house_key: str | None) -> None:
        """Refuse a house name (``house-...``, folded) without this server's house key."""
        if not names.reserved(name):
            return
        if house_key is None:
            raise ProtocolError("name_reserved", name=name)
        if not self.house_key or not hmac.compare_digest(house_key.encode(), self.house_key.encode()):
            raise ProtocolError("bad_house_key")

    async def register(self, name: str, kind: str, house_key: str | None = None) -> tuple[str, Player]:
        """A new account; returns its token (never stored) and its player."""
        check_name(name)
        self.check_house(name, house_key)
        if names.guest_like(name):
            raise ProtocolError("guest_name", name=name)
        held = self._hold(name)  # no guest hello may take the name while the store is asked
        try:
            token = secrets.token_hex(24)  # hex: never a leading "-" that a command line reads as a flag
            account = Account(
                id="p-" + secrets.token_hex(6),
                name=name,
                kind=kind,
                token_hash=hash_token(token),
                created_at=int(time.time() * 1000),
            )
            if not await self.store.add_account(account):
                raise ProtocolError("name_taken", name=name)
        finally:
            self._unhold(held, None)
        return token, await self._kept(self._open(account.id, account.name, account.kind, registered=True))

    def _hold(self, name: str) -> tuple[str, ...]:
        """Claim ``name``'s keys for a guest or a registration in progress; ``name_taken`` if a
        guest or another registration holds one. Claimed before any await, so of a register
        and a guest hello of one name, only the first to get here goes on."""
        keys = names.keys(name)
        if any(k in self._names for k in keys):
            raise ProtocolError("name_taken", name=name)
        for k in keys:
            self._names[k] = None
        return keys

    def _unhold(self, keys: tuple[str, ...], holder: Player | None) -> None:
        for k in keys:
            if k in self._names and self._names[k] is holder:
                del self._names[k]

    async def hello(
        self,
        name: str | None,
        token: str | None,
        session: str | None,
        kind: str = "human",
        house_key: str | None = None,
    ) -> Player:
        """The player behind a hello: by session, by account token, or a new guest of ``kind``
        (an account's kind was fixed when it registered)."""
        if session is not None:
            player = self._sessions.get(hash_token(session)) or await self._from_store(session)
            if player is None:
                raise ProtocolError("bad_session")
            player.session = player.session or session  # restored players are known by its hash alone
            return await self._kept(player)
        if token is not None:
            account = await self.store.account_by_token_hash(hash_token(token))
            if account is None:
                raise ProtocolError("bad_token")
            known = self._players.get(account.id)
            if known is not None and not known.session:  # restored, and its session unknown: a new one
                known.session = secrets.token_urlsafe(24)
                self._sessions[hash_token(known.session)] = known
            return await self._kept(
                known or self._open(account.id, account.name, account.kind, registered=True)
            )
        guest = check_name(name) if name is not None else self._guest_name()
        self.check_house(guest, house_key)
        held = self._hold(guest)
        try:
            if await self.store.account_by_name(guest) is not None:
                raise ProtocolError("name_taken", name=guest)
        except BaseException:
            self._unhold(held, None)
            raise
        player = self._open("g-" + secrets.token_hex(6), guest, kind, registered=False)
        for k in held:
            self._names[k] = player
        return await self._kept(player)

    async def _kept(self, player: Player) -> Player:
        """Keep (or refresh) the player's session in the store, where every node finds it."""
        await self.store.session_put(hash_token(player.session), dict(player.public()), self.session_ttl)
        return player

    async def _from_store(self, session: str) -> Player | None:
        """The player of a session another node opened (or this node forgot), if it is still good:
        a guest whose name another guest here has taken since is not."""
        data = await self.store.session_get(hash_token(session))
        if data is None:
            return None
        player = self._players.get(str(data["id"]))
        if player is None:
            name = str(data["name"])
            taken = any(self._names.get(k) is not None for k in names.keys(name))
            if data["guest"] and (taken or await self.store.account_by_name(name)):
                return None
            player = Player(str(data["id"]), name, str(data["kind"]), not data["guest"], session)
            self._players[player.id] = player
            if not player.registered:
                for k in names.keys(name):
                    self._names[k] = player
        self._sessions[hash_token(session)] = player
        return player

    def _guest_name(self) -> str:
        while True:
            name = "guest-" + secrets.token_hex(3)
            if not any(k in self._names for k in names.keys(name)):
                return name

    def forget(self, player: Player) -> None:
        """Drop a guest that left with nothing to come back to (accounts stay known)."""
        if not player.registered:
            self._sessions.pop(hash_token(player.session), None)
            self._players.pop(player.id, None)
            self._unhold(names.keys(player.name), player)

    def get(self, player_id: str) -> Player | None:
        """The player with that id, while the server knows it."""
        return self._players.get(player_id)

    def session_hash(self, player_id: str) -> str:
        """The hash of the player's session (how a race's meta names it for a restart)."""
        player = self._players[player_id]
        if player.session:
            return hash_token(player.session)
        # restored, and not back yet: known by the hash alone
        return next(h for h, p in self._sessions.items() if p is player)

    def restore(self, info: dict[str, Any]) -> Player:
        """The player of a restored race's meta (``public()`` plus ``session_hash``), or of a queue
        entry another node made; the same player for every race that names it. Its session is
        known by hash only until it says hello here."""
        player = self._players.get(info["id"])
        if player is None:
            registered = not info["guest"]
            player = Player(info["id"], info["name"], info["kind"], registered=registered, session="")
            self._players[player.id] = player
            if not registered:
                for k in names.keys(player.name):
                    self._names[k] = player
        self._sessions.setdefault(info["session_hash"], player)
        return player

    def _open(self, pid: str, name: str, kind: str, registered: bool) -> Player:
        session = secrets.token_urlsafe(24)
        player = Player(id=pid, name=name, kind=kind, registered=registered, session=session)
        self._sessions[hash_token(session)] = player
        self._players[pid] = player
        return player
