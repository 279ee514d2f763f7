"""A real TCP relay between the browser and the server, which a test can cut and mend: an outage
of the network between them (the server itself stays up, its seats held for the grace period)."""

from __future__ import annotations

import asyncio
import contextlib


class Relay:
    """Listens on a free port of 127.0.0.1 and relays every connection to ``target``'s port."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Every relayed connection dropped, and no new one accepted until :meth:`start`."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for w in list(self._links):
            w.transport.abort()
        self._links.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._links |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        self._links.discard(writer)
        writer.transport.abort()
