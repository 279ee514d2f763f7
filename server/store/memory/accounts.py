"""The memory store's accounts (their names and tokens) and sessions."""

from __future__ import annotations

from typing import Any

from server import names
from server.store.base import (
    Account,
)
from server.store.codec import pack, unpack
from server.store.memory.base import MemoryBase


class MemoryAccounts(MemoryBase):
    def _init_accounts(self, max_sessions: int) -> None:
        self._accounts: dict[str, Account] = {}  # id -> account
        self._by_name: dict[str, str] = {}  # name key (server.names: case and look-alikes folded) -> id
        self._by_token: dict[str, str] = {}  # token hash -> id
        self._sessions: dict[str, tuple[bytes, float]] = {}  # hash -> (data, clock() expiry)
        self._sweep_at = 64
        # past it the session put longest ago goes: each guest hello puts one for a day, so a flood of
        # hellos would otherwise grow the server's memory for a day
        self._max_sessions = max_sessions

    # ----- accounts

    async def add_account(self, account: Account) -> bool:
        """Store ``account``; False (and nothing stored) if its name, or one like it, is taken."""
        keys = names.keys(account.name)
        if any(k in self._by_name for k in keys):
            return False
        self._accounts[account.id] = account
        self._by_name.update(dict.fromkeys(keys, account.id))
        self._by_token[account.token_hash] = account.id
        return True

    async def index_names(self) -> int:
        return 0  # kept in this process only: always indexed under today's keys

    async def account_by_id(self, account_id: str) -> Account | None:
        return self._accounts.get(account_id)

    async def account_by_name(self, name: str) -> Account | None:
        aid = next((self._by_name[k] for k in names.keys(name) if k in self._by_name), None)
        return self._accounts[aid] if aid else None

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        aid = self._by_token.get(token_hash)
        return self._accounts[aid] if aid else None

    # ----- sessions

    async def session_put(self, session_hash: str, data: dict[str, Any], ttl: float) -> None:
        now = self._clock()
        if len(self._sessions) >= self._sweep_at:  # expired ones go now and then: the dict stays small
            self._sessions = {h: kept for h, kept in self._sessions.items() if kept[1] > now}
            self._sweep_at = 2 * len(self._sessions) + 64
        self._sessions.pop(session_hash, None)  # a session put again is the newest
        while len(self._sessions) >= self._max_sessions:
            del self._sessions[next(iter(self._sessions))]
        self._sessions[session_hash] = (pack(data), now + ttl)

    async def session_get(self, session_hash: str) -> dict[str, Any] | None:
        kept = self._sessions.get(session_hash)
        if kept is None or kept[1] <= self._clock():
            return None
        return dict(unpack(kept[0]))
