"""The table of request handlers: each room registers its own; one place applies the rules
every request shares.

Handlers raise :class:`~terrace.errors.ProtocolError` to refuse; the endpoint turns that into
an ``error`` answer. A request not registered as anonymous needs a ``hello`` first. A race
another node owns is answered ``redirect`` here, whichever handler found it out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from server.players.accounts import Player
from server.races.adoption import Adoption
from server.races.nodes import Redirect
from server.store import NotOwner
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.wire.messages import Request

Message = Mapping[str, object]  # an answer or a push: one of terrace.wire.messages' types
# A handler takes its own request type (a Move for "move"...): the table is keyed by that type's name.
Handler = Callable[[Connection, Any], Awaitable[Message | None]]


class Dispatcher:
    def __init__(self, adoption: Adoption) -> None:
        self.adoption = adoption
        self.table: dict[str, Handler] = {}
        self.anonymous: set[str] = set()  # what may be asked before hello

    def add(self, handlers: Mapping[str, Handler], anonymous: Iterable[str] = ()) -> None:
        """Register a room's handlers; ``anonymous`` names those that need no hello."""
        for name in handlers:
            if name in self.table:
                raise ValueError(f"two handlers for {name!r}")
        anonymous = set(anonymous)
        if not anonymous <= set(handlers):
            raise ValueError(f"anonymous names without a handler: {sorted(anonymous - set(handlers))}")
        self.table.update(handlers)
        self.anonymous |= anonymous

    async def handle(self, conn: Connection, req: Request) -> Message | None:
        kind = req.TYPE
        if conn.player is None and kind not in self.anonymous:
            raise ProtocolError("hello_first", request=kind)
        try:
            answer = await self.table[kind](conn, req)
        except Redirect as r:  # another node owns the race: the client asks there
            return r.to_message(req.id)
        except NotOwner as taken:  # another node took the race over since: nothing was done here
            self.adoption.lost(taken.race_id, taken.holder)
            return Redirect(taken.race_id, taken.holder).to_message(req.id)
        if answer is not None and req.id is not None and "re" not in answer:
            return {**answer, "re": req.id}
        return answer


def player_of(conn: Connection) -> Player:
    """The player of a connection that said hello (the dispatcher saw to it)."""
    assert conn.player is not None
    return conn.player


def answering(answer: Message, req: Request) -> dict[str, object]:
    """``answer`` as the answer to ``req`` (with ``re`` when the request had an ``id``)."""
    return {**answer, "re": req.id} if req.id is not None else dict(answer)
