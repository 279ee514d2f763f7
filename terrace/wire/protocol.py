"""Protocol v1 as plain data: subprotocols, the frame codec and request schemas.

Sans-I/O: bytes or text in, a checked message dict out, and back. The server,
the client and the bots all read and write frames through this module, so the
two encodings and the rules for fields live in one place (PROTOCOL.md is the
prose reference).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

import msgpack

from terrace.errors import ProtocolError
from terrace.rules.variants import VARIANTS
from terrace.vocab import (
    BOARDS,
    DEALS_MODES,
    ENTRIES,
    GOALS,
    KINDS,
    PERIODS,
    POOLS,
    START_MODES,
    TOPICS,
    VIEW_MODES,
)

MSGPACK = "terrace.v1.msgpack"
JSON = "terrace.v1.json"
SUBPROTOCOLS = (MSGPACK, JSON)  # the first is the default

Message = dict[str, Any]
Frame = bytes | str


class Field(NamedTuple):
    """What one request field may hold."""

    kind: type | tuple[type, ...]
    required: bool = False
    choices: tuple[Any, ...] | None = None
    low: int | None = None  # ints: smallest allowed; str: shortest length
    high: int | None = None  # ints: largest allowed; str: longest length


_ID = Field(str, True, low=1, high=64)
# Name rules are the server's, with their own error (bad_name, which says them): the bound
# here only keeps a frame's worth of text away from them.
_NAME = Field(str, high=256)
_TOKEN = Field(str, low=1, high=128)
_CLIENT = Field(str, low=8, high=64)  # an install's own random id, the same on every connection

# type -> fields. Unknown fields are ignored; known fields with the wrong type are refused.
REQUESTS: dict[str, dict[str, Field]] = {
    "hello": {
        "name": _NAME,
        "token": _TOKEN,
        "session": _TOKEN,
        "kind": Field(str, choices=KINDS),
        "client": _CLIENT,
        "views": Field(str, choices=VIEW_MODES),
    },
    "register": {
        "name": Field(str, True, high=256),
        "kind": Field(str, choices=KINDS),
        "client": _CLIENT,
        "views": Field(str, choices=VIEW_MODES),
    },
    "races": {"start": Field(int, low=0, high=2**31)},
    "create": {
        "variant": Field(str, True, choices=tuple(VARIANTS)),
        "goal": Field(str, choices=GOALS),
        "seats": Field(int, low=1, high=1000),  # the server's own limit (max_seats) says its number
        "time_limit": Field(int, low=1, high=86_400),
        "entry": Field(str, choices=ENTRIES),
        "start": Field(str, choices=START_MODES),
        "join": Field(bool),
        "deals": Field(str, choices=DEALS_MODES),
    },
    "join": {"race": _ID},
    "leave": {"race": _ID},
    "start": {"race": _ID},
    "queue": {
        "variant": Field(str, True, choices=tuple(VARIANTS)),
        "goal": Field(str, choices=GOALS),
        "pool": Field(str, choices=ENTRIES),
        "house": Field(bool),
        "deals": Field(str, choices=DEALS_MODES),
    },
    "unqueue": {},
    "move": {"race": _ID, "seq": Field(int, True, low=0, high=2**31), "move": Field(str, True, high=64)},
    "resign": {"race": _ID},
    "spectate": {"race": _ID},
    "unspectate": {"race": _ID},
    "subscribe": {"topic": Field(str, True, choices=TOPICS)},
    "unsubscribe": {"topic": Field(str, True, choices=TOPICS)},
    "record": {"race": _ID},
    "analysis": {"race": _ID},
    "leaderboard": {
        "board": Field(str, True, choices=BOARDS),
        "variant": Field(str, True, choices=tuple(VARIANTS)),
        "pool": Field(str, choices=POOLS),
        "goal": Field(str, choices=GOALS),
        "period": Field(str, choices=PERIODS),
        "start": Field(int, low=0, high=1_000_000),
        "count": Field(int, low=1, high=100),
        "around": _NAME,
    },
    "ping": {},
    "daily": {
        "variant": Field(str, True, choices=tuple(VARIANTS)),
        "day": Field(str, high=32),  # its form (YYYY-MM-DD) is checked by the daily deal, which says so
        "pool": Field(str, choices=POOLS),
    },
    "challenge_create": {"variant": Field(str, True, choices=tuple(VARIANTS))},
    "challenge_play": {"challenge": _ID, "ghosts": Field(int, low=0, high=8)},
    "challenge_reveal": {"challenge": _ID},
    "challenge": {"challenge": _ID},
    "daily_play": {
        "variant": Field(str, True, choices=tuple(VARIANTS)),
        "day": Field(str, high=32),  # its form (YYYY-MM-DD) is checked by the daily deal, which says so
        "practice": Field(bool),
        "ghosts": Field(int, low=0, high=8),
    },
    # arenas (terrace.race.arena)
    "arenas": {},
    "arena": {"arena": _ID, "watch": Field(bool)},
    "arena_unwatch": {"arena": _ID},
    "arena_join": {"arena": _ID},
    "arena_leave": {"arena": _ID},
    # the bot ladder: a player's page
    "player": {"name": Field(str, True, low=1, high=64)},
}


def encode(message: Mapping[str, Any], subprotocol: str = MSGPACK) -> Frame:
    """One frame: msgpack bytes, or JSON text for the JSON subprotocol."""
    if subprotocol == JSON:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return msgpack.packb(message)  # type: ignore[no-any-return]


def decode(frame: Frame, subprotocol: str = MSGPACK) -> Message:
    """The message map in ``frame``; raises ``ProtocolError("bad_message")``."""
    try:
        if subprotocol == JSON:
            if not isinstance(frame, str):
                raise ProtocolError("bad_message", detail="this subprotocol takes JSON in text frames")
            data = json.loads(frame)
            # JSON may escape lone surrogates ("\ud800"): valid syntax, but not text that
            # could ever be sent back, so it is refused like msgpack's invalid UTF-8.
            if "\\u" in frame and _has_surrogate(data):
                error = ProtocolError(
                    "bad_message", detail="strings must be valid Unicode (no lone surrogates)"
                )
                rid = request_id(data) if isinstance(data, dict) else None
                if rid is not None:
                    error.fields["re"] = rid  # the answer can still name the request
                raise error
        else:
            if not isinstance(frame, bytes):
                raise ProtocolError("bad_message", detail="this subprotocol takes msgpack in binary frames")
            data = msgpack.unpackb(frame)
    except ProtocolError:
        raise
    except (ValueError, RecursionError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as e:
        raise ProtocolError(
            "bad_message", detail=f"not valid {_codec(subprotocol)} ({type(e).__name__})"
        ) from e
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", detail="a message is a map")
    return data


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


def _codec(subprotocol: str) -> str:
    return "JSON" if subprotocol == JSON else "msgpack"


def request_id(message: Mapping[str, Any]) -> int | None:
    """The request's ``id`` if it is a usable one (an integer), else None."""
    rid = message.get("id")
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


def check_request(message: Mapping[str, Any]) -> Message:
    """A request with its type, id and known fields checked; unknown fields dropped.

    Raises :class:`ProtocolError` (``bad_message``, ``unknown_type``, ``bad_field``).
    """
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", detail="a message needs a string 'type'")
    if kind not in REQUESTS:
        raise ProtocolError("unknown_type", request=kind[:40])
    has_id = message.get("id") is not None  # null counts as absent
    if has_id and request_id(message) is None:
        raise ProtocolError("bad_field", field="id", detail="must be an integer")
    out: Message = {"type": kind}
    if has_id:
        out["id"] = message["id"]
    for name, field, plain, low, high in _PLANS[kind]:
        value = message.get(name)
        if value is None:
            if field.required:
                raise ProtocolError("bad_field", field=name, detail="is required")
            continue
        # Every request goes through here: a plain string or integer field within its bounds is
        # accepted with one type test and two comparisons; anything else is checked in full.
        kind_of = type(value)
        if kind_of is plain and low <= (len(value) if kind_of is str else value) <= high:
            out[name] = value
        else:
            out[name] = _checked(name, value, field)
    return out


def _plan(field: Field) -> tuple[type | None, float, float]:
    """What a value that passes at once looks like: its type (None: always the full check) and
    the bounds of its length (a string) or value (an integer)."""
    if field.choices is not None or not isinstance(field.kind, type) or field.kind not in (str, int):
        return None, 0, -1.0
    low = -float("inf") if field.low is None else field.low
    high = float("inf") if field.high is None else field.high
    return field.kind, low, high


# kind -> (name, field, type, low, high) for each of its fields, in REQUESTS' order
_PLANS: dict[str, tuple[tuple[str, Field, type | None, float, float], ...]] = {
    kind: tuple((name, field, *_plan(field)) for name, field in fields.items())
    for kind, fields in REQUESTS.items()
}


def _checked(name: str, value: Any, field: Field) -> Any:
    kinds = field.kind if isinstance(field.kind, tuple) else (field.kind,)
    if isinstance(value, bool) and bool not in kinds:  # bool is an int in Python, not on the wire
        raise ProtocolError("bad_field", field=name, detail=f"must be {_kind_name(kinds)}")
    if not isinstance(value, kinds):
        raise ProtocolError("bad_field", field=name, detail=f"must be {_kind_name(kinds)}")
    if field.choices is not None and value not in field.choices:
        raise ProtocolError(
            "bad_field", field=name, detail=f"must be one of {', '.join(map(str, field.choices))}"
        )
    size = len(value) if isinstance(value, str) else value if isinstance(value, int) else None
    if size is not None and not isinstance(value, bool):
        unit = " characters" if isinstance(value, str) else ""
        if unit and (field.low if size < (field.low or 0) else field.high) == 1:
            unit = " character"
        if field.low is not None and size < field.low:
            raise ProtocolError("bad_field", field=name, detail=f"must be at least {field.low}{unit}")
        if field.high is not None and size > field.high:
            raise ProtocolError("bad_field", field=name, detail=f"must be at most {field.high}{unit}")
    return value


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {bool: "a boolean", int: "an integer", str: "a string", list: "a list", dict: "a map"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)
