"""Protocol v1 as plain data: subprotocols, the frame codec and the checking of requests.

Sans-I/O: bytes or text in, a checked request (a type of :mod:`terrace.wire.messages`) out,
and messages back to frames. The server, the client and the bots all read and write frames
through this module, so the two encodings and the rules for fields live in one place
(PROTOCOL.md is the prose reference). msgspec reads a request and checks it in one call;
what it refuses is read again by the lenient path here, whose refusals name the field and
say what is wrong with it in the protocol's own words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, get_args, get_origin, get_type_hints

import msgpack
import msgspec
import msgspec.inspect

from terrace.errors import ProtocolError
from terrace.wire.messages import REQUEST_TYPES, AnyRequest, Request

MSGPACK = "terrace.v1.msgpack"
JSON = "terrace.v1.json"
SUBPROTOCOLS = (MSGPACK, JSON)  # the first is the default

Message = dict[str, Any]
Frame = bytes | str


class Field(NamedTuple):
    """What one request field may hold (read off its type in :mod:`terrace.wire.messages`)."""

    kind: type | tuple[type, ...]
    required: bool = False
    choices: tuple[Any, ...] | None = None
    low: int | None = None  # ints: smallest allowed; str: shortest length
    high: int | None = None  # ints: largest allowed; str: longest length


def _field(info: Any, hint: Any) -> Field:
    """The :class:`Field` a request field's msgspec type says (``X | None`` is an optional X)."""
    required = True
    if isinstance(info, msgspec.inspect.UnionType):
        required = False
        (info,) = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
    if isinstance(info, msgspec.inspect.LiteralType):  # in the order the type lists them
        (literal,) = [a for a in (hint, *get_args(hint)) if get_origin(a) is Literal]
        return Field(str, required, choices=get_args(literal))
    if isinstance(info, msgspec.inspect.StrType):
        return Field(str, required, low=info.min_length, high=info.max_length)
    if isinstance(info, msgspec.inspect.IntType):
        return Field(int, required, low=info.ge, high=info.le)
    if isinstance(info, msgspec.inspect.BoolType):
        return Field(bool, required)
    raise TypeError(f"no request field may be {info!r}")


def _fields(cls: type[Request]) -> dict[str, Field]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    hints = get_type_hints(cls)
    return {f.encode_name: _field(f.type, hints[f.name]) for f in info.fields if f.encode_name != "id"}


# type -> its class; type -> its fields, in the order they are checked (the class's). Unknown
# fields are ignored; known fields with the wrong type are refused.
REQUEST_CLASSES: dict[str, type[Request]] = {cls.TYPE: cls for cls in REQUEST_TYPES}
REQUESTS: dict[str, dict[str, Field]] = {kind: _fields(cls) for kind, cls in REQUEST_CLASSES.items()}

_JSON_ENCODER = msgspec.json.Encoder()
_MSGPACK_ENCODER = msgspec.msgpack.Encoder()
_JSON_REQUESTS: msgspec.json.Decoder[Request] = msgspec.json.Decoder(AnyRequest)
_MSGPACK_REQUESTS: msgspec.msgpack.Decoder[Request] = msgspec.msgpack.Decoder(AnyRequest)


def encode(message: Mapping[str, Any] | Request, subprotocol: str = MSGPACK) -> Frame:
    """One frame: msgpack bytes, or JSON text for the JSON subprotocol."""
    if subprotocol == JSON:
        return _JSON_ENCODER.encode(message).decode()
    return _MSGPACK_ENCODER.encode(message)


def pack(message: Mapping[str, Any]) -> bytes:
    """A message's msgpack frame (the default subprotocol's): :func:`encode` without the choice."""
    return _MSGPACK_ENCODER.encode(message)


def unpack(frame: bytes) -> Message:
    """The message of a msgpack frame this side made (:func:`pack`): no checks, no refusals."""
    return msgspec.msgpack.decode(frame)  # type: ignore[no-any-return]


def with_re(frame: bytes, rid: int | None) -> bytes:
    """A msgpack map frame with ``re`` added to its fields (``frame`` itself without an id): an
    answer encoded once, sent as the answer to one request without encoding it again."""
    if rid is None:
        return frame
    head = frame[0]
    tail = b"\xa2re" + _MSGPACK_ENCODER.encode(rid)
    if 0x80 <= head < 0x8F:  # a fixmap of up to 14 fields: one more fits in its header
        return bytes((head + 1,)) + frame[1:] + tail
    if head == 0x8F:  # 15 fields: 16 need a map 16 header
        return b"\xde\x00\x10" + frame[1:] + tail
    if head == 0xDE:
        return b"\xde" + (int.from_bytes(frame[1:3]) + 1).to_bytes(2) + frame[3:] + tail
    raise ValueError("not a msgpack map of fewer than 65,535 fields")


def read_request(frame: Frame, subprotocol: str = MSGPACK) -> Request:
    """The checked request in ``frame``, in one step: decoded and checked together, in C.

    A frame that step refuses (a bad value, a field the protocol does not know, not a map at
    all) is read again the lenient way, :func:`decode` then :func:`check_request`, which drops
    unknown fields and says exactly what is wrong; so what is accepted and every refusal are
    the same as theirs. Raises :class:`ProtocolError` (``bad_message``, ``unknown_type``,
    ``bad_field``)."""
    try:
        if subprotocol == JSON:
            if type(frame) is str:
                return _JSON_REQUESTS.decode(frame)
        elif type(frame) is bytes:
            return _MSGPACK_REQUESTS.decode(frame)
    except (msgspec.DecodeError, ValueError, RecursionError):  # (bad UTF-8 is a ValueError)
        pass
    return check_request(decode(frame, subprotocol))


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


def check_request(message: Mapping[str, Any]) -> Request:
    """A decoded request with its type, id and known fields checked, as its typed value;
    unknown fields dropped.

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
    out: Message = {}
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
    return REQUEST_CLASSES[kind](**out)  # (a Struct's constructor checks nothing: all checked above)


def as_message(request: Request) -> Message:
    """A request as the plain map it travels as (``type`` first, absent fields left out)."""
    return msgspec.to_builtins(request)  # type: ignore[no-any-return]


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
