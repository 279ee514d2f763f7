"""How stores keep values: msgpack bytes of JSON-able data (records, log entries, meta, ratings)."""

from __future__ import annotations

from typing import Any

import msgspec

# (msgspec's msgpack: the same bytes msgpack makes, in a few times fewer instructions; every move
# appends one log entry)
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder()


def pack(obj: Any) -> bytes:
    """msgpack bytes of a JSON-able value (how stores keep records, log entries and meta)."""
    return _ENCODER.encode(obj)


def unpack(data: bytes) -> Any:
    return _DECODER.decode(data)
