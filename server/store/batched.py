"""Log appends of many players in one Redis round trip, and in one script call.

Every move is appended to its race's log before it is answered. One append per round trip
costs the server more CPU than the rest of the move (a connection taken from the pool, a
command written, a reply read, each in Python), so on one Redis the appends that come while
one batch is on its way wait and go together in the next. A batch is one call of
``LOG_APPEND_MANY``: one command packed, one reply read, whatever its size (a pipeline of one
command per append packed and read each in Python, about a tenth of a move's CPU on Redis).
Each append is still refused, made or failed on its own. Nobody waits for a timer (the first
append of a quiet moment goes at once), and each caller is answered only once Redis has
acknowledged its own append.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions as rexc

from server.store.scripts import LOG_APPEND_MANY

# one append waiting for its batch: its log key, lease key, node, packed entry, race id, and its caller
Waiting = tuple[str, str, str, bytes, str, "asyncio.Future[Any]"]


class BatchedAppends:
    """Append to race logs for many callers, batching the appends that arrive while a batch is in
    flight into one call of ``LOG_APPEND_MANY``."""

    def __init__(self, client: aioredis.Redis, live_key: str) -> None:
        self.client = client
        self.live_key = live_key  # the index of live races, shared by every append
        self._sha: str | None = None
        self.round_trips = 0  # script calls sent (for tests and curious operators)
        self._waiting: list[Waiting] = []
        self._sender: asyncio.Task[None] | None = None

    async def __call__(self, log_key: str, lease_key: str, owner: str, entry: bytes, race_id: str) -> Any:
        """Once Redis has run this append: ``b""`` when appended, the lease's holder when another
        node holds the race (nothing appended). Raises what Redis answered when it failed."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((log_key, lease_key, owner, entry, race_id, done))
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send())
        return await done

    async def _send(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                await self._run(batch)
        finally:
            self._sender = None
            for *_, done in self._waiting:  # cancelled (the store closing): nobody hangs
                if not done.done():
                    done.set_exception(rexc.ConnectionError("the store closed"))
            self._waiting = []

    async def _run(self, batch: list[Waiting]) -> None:
        try:
            try:
                results = await self._call(batch)
            except rexc.NoScriptError:  # Redis restarted or flushed its scripts
                self._sha = None
                results = await self._call(batch)
        except Exception as exc:  # Redis unreachable (the caller's guard makes it StoreDown), or a bug
            _fail(batch, exc)
            return
        except BaseException:  # cancelled with the store: its callers hear that the store went away
            _fail(batch, rexc.ConnectionError("the store closed during the append"))
            raise
        for (*_, done), result in zip(batch, results, strict=True):
            if done.done():  # its caller was cancelled meanwhile
                continue
            if isinstance(result, Exception):
                done.set_exception(result)
            else:
                done.set_result(result)

    async def _call(self, batch: list[Waiting]) -> list[Any]:
        if self._sha is None:
            self._sha = str(await self.client.script_load(LOG_APPEND_MANY))
        keys: list[Any] = [self.live_key]
        args: list[Any] = []
        for log_key, lease_key, owner, entry, race_id, _ in batch:
            keys += (log_key, lease_key)
            args += (owner, entry, race_id)
        self.round_trips += 1
        return list(await self.client.evalsha(self._sha, len(keys), *keys, *args))


def _fail(batch: list[Waiting], exc: Exception) -> None:
    for *_, done in batch:
        if not done.done():
            done.set_exception(exc)
