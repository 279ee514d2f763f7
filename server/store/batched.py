"""Log appends of many players in one Redis round trip.

Every move is appended to its race's log before it is answered. One append per round trip
costs the server more CPU than the rest of the move (a connection taken from the pool, a
command written, a reply read, each in Python), so on one Redis the appends that come while
one batch is on its way wait and go together in the next: one pipeline, one write, one read.
Nobody waits for a timer (the first append of a quiet moment goes at once), and each caller
is answered only once Redis has acknowledged its own append.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions as rexc


class BatchedScript:
    """Run one Lua script for many callers, batching the calls that arrive while a batch is in flight."""

    def __init__(self, client: aioredis.Redis, text: str) -> None:
        self.client = client
        self.text = text
        self._sha: str | None = None
        self.round_trips = 0  # pipelines sent (for tests and curious operators)
        self._waiting: list[tuple[list[str], list[Any], asyncio.Future[Any]]] = []
        self._sender: asyncio.Task[None] | None = None

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        """The script's result for ``keys`` and ``args``, once Redis has run it."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((keys, args, done))
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
            for _, _, done in self._waiting:  # cancelled (the store closing): nobody hangs
                if not done.done():
                    done.set_exception(rexc.ConnectionError("the store closed"))
            self._waiting = []

    async def _run(self, batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]]) -> None:
        try:
            results = await self._pipeline(batch)
            if any(_noscript(r) for r in results):  # Redis restarted or flushed its scripts
                self._sha = None
                results = await self._pipeline(batch)
        except Exception as exc:  # Redis unreachable (the caller's guard makes it StoreDown), or a bug
            _fail(batch, exc)
            return
        except BaseException:  # cancelled with the store: its callers hear that the store went away
            _fail(batch, rexc.ConnectionError("the store closed during the append"))
            raise
        for (_, _, done), result in zip(batch, results, strict=True):
            if done.done():  # its caller was cancelled meanwhile
                continue
            if isinstance(result, Exception):
                done.set_exception(result)
            else:
                done.set_result(result)

    async def _pipeline(self, batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]]) -> list[Any]:
        if self._sha is None:
            self._sha = str(await self.client.script_load(self.text))
        self.round_trips += 1
        async with self.client.pipeline(transaction=False) as pipe:
            for keys, args, _ in batch:
                pipe.evalsha(self._sha, len(keys), *keys, *args)
            return list(await pipe.execute(raise_on_error=False))


def _noscript(result: Any) -> bool:
    return isinstance(result, rexc.NoScriptError) or (
        isinstance(result, rexc.ResponseError) and str(result).startswith("NOSCRIPT")
    )


def _fail(batch: list[tuple[list[str], list[Any], asyncio.Future[Any]]], exc: Exception) -> None:
    for _, _, done in batch:
        if not done.done():
            done.set_exception(exc)
