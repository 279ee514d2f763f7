"""Every frame a test server sends, checked against the published schema (docs/protocol.schema.json).

A server in a test writes each websocket message through ``server.transport.connection``:
answers with its connection's ``send``, pushes with websockets' ``broadcast``. While a
:class:`FrameCheck` is installed both are watched (the real ones still do the sending):
each frame is decoded as the client would read it and validated against the schema's
definitions for its ``type``. A frame that does not validate is noted, never raised where
it was sent (that would change what the server does); the test that sent it fails at its end
with every frame that did not match and why.

``tests/conftest.py`` installs it for every test.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import msgpack
import pytest
from websockets.asyncio.server import ServerConnection

import server.transport.connection as connection
from terrace.wire.schema import definitions_by_type

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "protocol.schema.json"


@cache
def _validators() -> dict[str, list[jsonschema.protocols.Validator]]:
    document = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    defs = {"$schema": document["$schema"], "$defs": document["$defs"]}
    out: dict[str, list[jsonschema.protocols.Validator]] = {}
    for kind, names in definitions_by_type(document, "ServerMessage").items():
        out[kind] = [jsonschema.Draft202012Validator({**defs, "$ref": f"#/$defs/{name}"}) for name in names]
    return out


def problems(frame: bytes | str) -> list[str]:
    """What is wrong with one frame a server sent ([]: it is a message the schema describes)."""
    try:
        message = json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)
    except ValueError as e:
        return [f"not a msgpack or JSON frame: {e}"]
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return ["not a map with a string type"]
    validators = _validators().get(message["type"])
    if validators is None:
        return [f"type {message['type']!r} is no answer or push of the schema"]
    found: list[str] = []
    for validator in validators:
        errors = sorted(validator.iter_errors(message), key=lambda e: list(e.absolute_path))
        if not errors:
            return []
        found += [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in errors]
    return found


class FrameCheck:
    """Watches what servers in this process send while installed (see the module docstring)."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.frames = 0

    def check(self, frames: Iterable[bytes | str]) -> None:
        for frame in frames:
            self.frames += 1
            found = problems(frame)
            if found:
                shown = frame if isinstance(frame, str) else repr(msgpack.unpackb(frame))
                self.failures.append(f"{shown[:400]}\n    " + "\n    ".join(found[:5]))

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        broadcast: Callable[..., Any] = connection.broadcast
        send = ServerConnection.send

        def checked_broadcast(sockets: Any, message: Any, *args: Any, **kwargs: Any) -> Any:
            self.check([message])
            return broadcast(sockets, message, *args, **kwargs)

        async def checked_send(ws: ServerConnection, message: Any, *args: Any, **kwargs: Any) -> None:
            if isinstance(message, bytes | str):  # (not the fragments of an iterable)
                self.check([message])
            await send(ws, message, *args, **kwargs)

        monkeypatch.setattr(connection, "broadcast", checked_broadcast)
        monkeypatch.setattr(ServerConnection, "send", checked_send)

    def report(self) -> str:
        return f"{len(self.failures)} of {self.frames} frames sent do not match {SCHEMA.name}:\n" + "\n".join(
            self.failures[:20]
        )
