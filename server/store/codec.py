"""How stores keep values: msgpack bytes of JSON-able data (records, log entries, meta, ratings)."""

from __future__ import annotations

from typing import Any

import msgpack


def pack(obj: Any) -> bytes:
    """msgpack bytes of a JSON-able value (how stores keep records, log entries and meta)."""
    data: bytes = msgpack.packb(obj)
    return data


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data)
