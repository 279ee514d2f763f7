"""docs/protocol.schema.json: generated from the message types, and saying what PROTOCOL.md says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from terrace.wire import schema
from terrace.wire.protocol import REQUESTS

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "PROTOCOL.md").read_text()
FILE = ROOT / "docs" / "protocol.schema.json"


def _published() -> dict[str, Any]:
    return json.loads(FILE.read_text())  # type: ignore[no-any-return]


def _properties(document: dict[str, Any], side: str) -> dict[str, set[str]]:
    """Each message type of one side with every field its definitions name."""
    defs = document["$defs"]
    return {
        kind: {f for name in names for f in defs[name]["properties"]}
        for kind, names in schema.definitions_by_type(document, side).items()
    }


def _examples(doc: str) -> list[tuple[str, set[str]]]:
    """Every message PROTOCOL.md shows as a map (``{"type": "...", ...}``): its type and its keys
    (a map inside a message, such as an engine event, is the message's, not one of its own)."""
    found = []
    end_of_last = 0
    for start in (m.start() for m in re.finditer(r'\{"type": ?"', doc)):
        if start < end_of_last:
            continue
        depth, keys, i = 0, set(), start
        while i < len(doc):
            c = doc[i]
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    break
            elif c == '"' and depth == 1:
                end = doc.index('"', i + 1)
                if doc[end + 1 : end + 3].strip().startswith(":"):
                    keys.add(doc[i + 1 : end])
                i = end
            i += 1
        end_of_last = i
        kind = re.match(r'\{"type": ?"([a-z_]+)"', doc[start:]).group(1)  # type: ignore[union-attr]
        found.append((kind, keys))
    return found


def test_the_published_schema_is_the_one_the_types_make() -> None:
    # After changing terrace/wire/messages.py: python -m terrace.wire.schema > docs/protocol.schema.json
    assert FILE.read_text() == schema.text()


def test_the_schema_is_a_valid_draft_2020_12_schema_of_both_sides() -> None:
    document = _published()
    jsonschema.Draft202012Validator.check_schema(document)
    validator = jsonschema.Draft202012Validator(document)
    assert validator.is_valid({"type": "move", "id": 3, "race": "r1", "seq": 1, "move": "S-W"})
    assert validator.is_valid({"type": "move", "race": "r1", "seq": 1, "move": "S-W", "unknown": "ignored"})
    assert not validator.is_valid({"type": "move", "race": "r1", "seq": -1, "move": "S-W"})
    assert validator.is_valid({"type": "pong", "re": 3, "time": 1})
    assert not validator.is_valid({"type": "pong", "re": 3})


def test_every_request_has_the_fields_the_requests_table_of_protocol_md_gives_it() -> None:
    table = DOC.split("### Requests at a glance", 1)[1].split("\n\n", 2)[1]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        fields = {f.strip("`?") for f in re.findall(r"`[a-z_]+\??`", cells[1])}
        rows[cells[0].strip("`")] = fields
    in_schema = {
        kind: fields - {"type", "id"} for kind, fields in _properties(_published(), "ClientMessage").items()
    }
    assert rows == in_schema
    assert set(rows) == set(REQUESTS)


def test_every_answer_and_push_protocol_md_names_is_in_the_schema_and_back() -> None:
    table = DOC.split("### Requests at a glance", 1)[1].split("\n\n", 2)[1]
    answers = {a for line in table.splitlines()[2:] for a in re.findall(r"`([a-z_]+)`", line.split("|")[3])}
    listed = DOC.split("\nPushes: ", 1)[1].split("\n\n", 1)[0]
    pushes = set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", listed)))  # (not who hears them)
    server = set(_properties(_published(), "ServerMessage"))
    # besides the table and the pushes' list: `error` (Errors) and `redirect` (Several server nodes)
    assert server == answers | pushes | {"error", "redirect"}


def test_every_field_of_every_message_shown_in_protocol_md_is_in_the_schema() -> None:
    document = _published()
    client, server = _properties(document, "ClientMessage"), _properties(document, "ServerMessage")
    shown = _examples(DOC)
    assert len(shown) > 60
    unknown = []
    for kind, keys in shown:
        fields = server.get(kind, set()) | client.get(kind, set())  # (a few types are both)
        if not fields:
            unknown.append(f"{kind}: no such message")
        elif keys - fields:
            unknown.append(f"{kind}: {sorted(keys - fields)}")
    assert unknown == []


def test_every_field_of_every_answer_and_push_in_the_schema_is_in_protocol_md() -> None:
    named = set(re.findall(r"`([a-z_]+)`", DOC)) | set(re.findall(r'"([a-z_]+)":', DOC))
    missing = {
        f"{kind}.{field}"
        for kind, fields in _properties(_published(), "ServerMessage").items()
        for field in fields
        if field not in named
    }
    assert missing == set()
