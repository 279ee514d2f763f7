"""The Redis store's accounts (their names and tokens) and sessions.

Keys (after the prefix; see :mod:`server.store.redis.base`):

=========================================  ======  ==============================================
key                                        type    content
=========================================  ======  ==============================================
``{acct}:account:<id>``                    hash    id, name, kind, token_hash, created_at
``{acct}:account-name:<casefolded name>``  string  account id; SET NX in the script that adds an
                                                   account: two nodes cannot both take a name
``{acct}:account-look:<name key>``         string  account id, one per look-alike key of the name
                                                   (server.names): ``AIice`` cannot join ``Alice``
``{acct}:account-token:<token hash>``      string  account id
``{acct}:names-indexed``                   string  the ``server.names.KEYS_VERSION`` the accounts are
                                                   indexed by (see :meth:`index_names`)
``session:<token hash>``                   string  who the session is; expires (PX)
=========================================  ======  ==============================================
"""

from __future__ import annotations

from typing import Any

from server import names
from server.store.base import (
    Account,
)
from server.store.codec import pack, unpack
from server.store.redis.base import RedisBase, as_bytes, guard, ms, text


class RedisAccounts(RedisBase):
    # ----- accounts

    async def add_account(self, account: Account) -> bool:
        fields = {
            "id": account.id,
            "name": account.name,
            "kind": account.kind,
            "token_hash": account.token_hash,
            "created_at": str(account.created_at),
        }
        keys = [
            self._tag("acct", "account", account.id),
            self._tag("acct", "account-token", account.token_hash),
            *self._name_keys(account.name),
        ]
        args = [account.id, *(x for kv in fields.items() for x in kv)]
        with guard():
            return bool(await self._add_account(keys=keys, args=args))

    async def index_names(self) -> int:
        """Add today's name keys of every account (oldest first, SET NX: a key another account
        already holds stays with it), then mark the store indexed; a node that starts while
        another indexes does the same work again, harmlessly."""
        mark = self._tag("acct", "names-indexed")
        with guard():
            if int(await self._r.get(mark) or 0) >= names.KEYS_VERSION:
                return 0
            accounts = [
                a
                for key in [
                    k async for k in self._r.scan_iter(match=self._tag("acct", "account", "*"), count=500)
                ]
                if (a := await self.account_by_id(text(key).rsplit(":", 1)[-1])) is not None
            ]
            for account in sorted(accounts, key=lambda a: (a.created_at, a.id)):
                for key in self._name_keys(account.name):
                    await self._r.set(key, account.id, nx=True)
            await self._r.set(mark, names.KEYS_VERSION)
        return len(accounts)

    async def account_by_id(self, account_id: str) -> Account | None:
        with guard():
            raw: dict[bytes | str, bytes | str] = await self._r.hgetall(
                self._tag("acct", "account", account_id)
            )
        if not raw:
            return None
        f = {text(k): text(v) for k, v in raw.items()}
        return Account(f["id"], f["name"], f["kind"], f["token_hash"], int(f["created_at"]))

    async def _account_by_index(self, key: str) -> Account | None:
        with guard():
            aid: bytes | str | None = await self._r.get(key)
        return None if aid is None else await self.account_by_id(text(aid))

    def _name_keys(self, name: str) -> list[str]:
        return [
            self._tag("acct", "account-name", name.casefold()),
            *(self._tag("acct", "account-look", k) for k in names.keys(name)),
        ]

    async def account_by_name(self, name: str) -> Account | None:
        """The account named ``name``, or one whose name looks like it (server.names)."""
        with guard():
            found: list[bytes | str | None] = await self._r.mget(self._name_keys(name))
        aid = next((a for a in found if a is not None), None)
        return None if aid is None else await self.account_by_id(text(aid))

    async def account_by_token_hash(self, token_hash: str) -> Account | None:
        return await self._account_by_index(self._tag("acct", "account-token", token_hash))

    # ----- sessions

    async def session_put(self, session_hash: str, data: dict[str, Any], ttl: float) -> None:
        with guard():
            await self._r.set(self._k("session", session_hash), pack(data), px=ms(ttl))

    async def session_get(self, session_hash: str) -> dict[str, Any] | None:
        with guard():
            data: bytes | str | None = await self._r.get(self._k("session", session_hash))
        return None if data is None else dict(unpack(as_bytes(data)))
