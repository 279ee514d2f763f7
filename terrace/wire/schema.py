"""The protocol as JSON Schema, generated from :mod:`terrace.wire.messages`: ``docs/protocol.schema.json``.

    python -m terrace.wire.schema > docs/protocol.schema.json   # after changing a message type

For authors of clients in other languages: one schema (draft 2020-12) of every message,
``ClientMessage`` (each request) and ``ServerMessage`` (each answer and push), each a
choice of objects told apart by ``type``. Both subprotocols carry the same shapes (JSON
text, or the same map in msgpack). A request may carry fields the schema does not name:
the server ignores them, so request objects allow them, as answers and pushes do (a
client should ignore fields it does not know: later servers may add some).
``tests/terrace/wire/test_schema.py`` keeps the file the same as this module's output, and
the tests check every frame a test server sends against it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec

from terrace.wire.messages import REQUEST_TYPES, SERVER_TYPES

SCHEMA_ID = "urn:terrace-race:protocol:v1"
DEFS = "#/$defs/{name}"


def schema() -> dict[str, Any]:
    """The whole schema, as a JSON-ready dict (see the module docstring)."""
    refs, defs = msgspec.json.schema_components([*REQUEST_TYPES, *SERVER_TYPES], ref_template=DEFS)
    requests = refs[: len(REQUEST_TYPES)]
    for ref in requests:
        # (the Structs refuse unknown fields only to keep such frames off the one-call reading
        # path: the protocol ignores them)
        defs[ref["$ref"].rsplit("/", 1)[1]].pop("additionalProperties", None)
    defs["ClientMessage"] = {
        "description": "A request: what a client sends. Told apart by `type`.",
        "anyOf": requests,
    }
    defs["ServerMessage"] = {
        "description": "An answer (with `re` when its request had an `id`) or a push: what the server "
        "sends. Told apart by `type` (`leaderboard`, `arena` and `redirect` are both answers and pushes).",
        "anyOf": refs[len(REQUEST_TYPES) :],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Terrace Race protocol v1",
        "description": "Every message of protocol v1 (PROTOCOL.md), over terrace.v1.msgpack or "
        "terrace.v1.json: one map per websocket frame.",
        "anyOf": [{"$ref": DEFS.format(name="ClientMessage")}, {"$ref": DEFS.format(name="ServerMessage")}],
        "$defs": dict(sorted(defs.items())),
    }


def text() -> str:
    """The schema as the file holds it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def definitions_by_type(document: dict[str, Any], side: str) -> dict[str, list[str]]:
    """Each message ``type`` of one side (``ClientMessage`` or ``ServerMessage``) of a schema
    ``document``, with the names of the definitions that carry it: a frame of that type must
    match one of them."""
    out: dict[str, list[str]] = {}
    defs = document["$defs"]
    for ref in defs[side]["anyOf"]:
        name = ref["$ref"].rsplit("/", 1)[1]
        for kind in defs[name]["properties"]["type"]["enum"]:
            out.setdefault(kind, []).append(name)
    return out


def main() -> int:
    sys.stdout.write(text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
