"""Where the server keeps what outlives a connection: accounts and finished race records.

:class:`MemoryStore` is the embedded default (one process, gone on restart). The
interface is async so a networked store can stand in without changing callers.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    kind: str  # "human" | "bot"
    token_hash: str
    created_at: int  # unix ms


class MemoryStore:
    """Accounts and records in dicts; keeps at most ``keep_records`` records (oldest go first)."""

    def __init__(self, keep_records: int = 1_000) -> None:
        self._accounts: dict[str, Account] = {}  # id -> account
        self._by_name: dict[str, str] = {}  # casefolded name -> id
        self._by_token: dict[str, str] = {}  # token hash -> id
        self._records: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._keep = keep_records

    async def add_account(self, account: Account) -> bool:
        """Store ``account``; False (and nothing stored) if its name is taken."""
        key = account.name.casefold()
        if key in self._by_name:
            return False
        self._accounts[account.id] = account
        self._by_name[key] = account.id
        self._by_token[account.token_hash] = account.id
        return True

    async def account_by_name(self, name: str) -> Account | None:
        aid = self._by_name.get(name.casefold())
        return self._accounts[aid] if aid else None

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        aid = self._by_token.get(token_hash)
        return self._accounts[aid] if aid else None

    async def save_record(self, record: dict[str, Any]) -> None:
        self._records[record["id"]] = record
        while len(self._records) > self._keep:
            self._records.popitem(last=False)

    async def record(self, race_id: str) -> dict[str, Any] | None:
        return self._records.get(race_id)

    async def recent_records(self, n: int) -> list[dict[str, Any]]:
        return list(self._records.values())[-n:][::-1]
