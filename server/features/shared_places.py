"""One account per address and install on a secret deal's board: the scout at the same desk.

A brand-new account may race today's deal (its result is held back, but it has seen the deal),
and so may a challenge's creator: turning the stock through shows every card, so an account
beside it, at the same address or client install, could race the line it read at a person's
pace from an established account. So each attempt at such a deal marks where it came from when
it starts (a sorted set per address and per install, keyed by hashes, the earliest start of each
account), and an attempt's result is held back (``same_address``) when another account of its
address or install had started on the same deal before it ended. Who played first, and was done
before the other began, counts; the operator's ``rated_seats_per_address`` at 0 turns this off,
as it does the rule of rated races. Addresses never leave the store: they are not in any race's
record, only their hashes in the store's keys.
"""

from __future__ import annotations

import hashlib

from server.players.accounts import Player
from server.store import Store


def _hashed(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _keys(scope: str, player: Player) -> list[str]:
    keys = [f"{scope}:addr:{_hashed(player.address)}"] if player.address else []
    if player.client:
        keys.append(f"{scope}:install:{_hashed(player.client)}")
    return keys


def _mine(scope: str, player_id: str) -> str:
    return f"{scope}:places:{player_id}"


async def mark(store: Store, scope: str, player: Player, at_ms: int, ttl: int) -> None:
    """``player`` starts an attempt at the deal ``scope`` names, at ``at_ms``, from where it is now."""
    keys = _keys(scope, player)
    for key in keys:
        await store.board_put(key, player.id, at_ms, "min", ttl)
    kept = await store.daily_get(_mine(scope, player.id))
    known = list(kept["keys"]) if kept else []
    await store.daily_put(_mine(scope, player.id), {"keys": sorted({*known, *keys})}, ttl)


async def shared(store: Store, scope: str, player_id: str, until_ms: int) -> bool:
    """Whether another account of an address or install ``player_id`` played ``scope`` from had
    started an attempt at it before ``until_ms`` (the end of the player's attempt)."""
    kept = await store.daily_get(_mine(scope, player_id))
    for key in kept["keys"] if kept else []:
        for other, started in await store.board_range(key, 0, 100, False):
            if other != player_id and started < until_ms:
                return True
    return False
