"""Protocol v1 codec and request checks (terrace/protocol.py), without sockets."""

from __future__ import annotations

import json
import string

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from terrace.errors import ERRORS, ProtocolError
from terrace.protocol import JSON, MSGPACK, REQUESTS, check_request, decode, encode, request_id

MOVE = {"type": "move", "id": 7, "race": "r1", "seq": 3, "move": "W-3"}


@pytest.mark.parametrize("subprotocol", [MSGPACK, JSON])
def test_a_message_round_trips_through_either_subprotocol(subprotocol: str) -> None:
    frame = encode(MOVE, subprotocol)
    assert isinstance(frame, bytes if subprotocol == MSGPACK else str)
    assert decode(frame, subprotocol) == MOVE


def test_msgpack_is_the_default_subprotocol() -> None:
    assert encode(MOVE) == msgpack.packb(MOVE)
    assert decode(msgpack.packb(MOVE)) == MOVE


def _bad(frame: bytes | str, subprotocol: str = MSGPACK) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode(frame, subprotocol)
    assert info.value.code == "bad_message"
    return info.value


def test_a_text_frame_on_msgpack_and_a_binary_frame_on_json_are_bad_messages() -> None:
    assert "binary frames" in _bad(json.dumps(MOVE), MSGPACK).message
    assert "text frames" in _bad(msgpack.packb(MOVE), JSON).message


@pytest.mark.parametrize(
    "frame",
    [
        b"\xc1",  # a byte msgpack never uses
        msgpack.packb(MOVE)[:-3],  # truncated
        msgpack.packb(MOVE) + b"\x01",  # trailing data
        b"\x91" * 5000 + b"\xc0",  # nested far too deep
        msgpack.packb([1, 2, 3]),  # not a map
        msgpack.packb("move"),
    ],
    ids=["reserved-byte", "truncated", "extra-data", "deep-nesting", "list", "string"],
)
def test_malformed_msgpack_is_a_bad_message(frame: bytes) -> None:
    _bad(frame)


@pytest.mark.parametrize("frame", ["{", '{"type": "ping",}', "[1, 2]", '"ping"', "[" * 100_000])
def test_malformed_json_is_a_bad_message(frame: str) -> None:
    _bad(frame, JSON)


def _refused(message: dict[str, object]) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        check_request(message)
    return info.value


def test_a_message_needs_a_string_type() -> None:
    assert _refused({"id": 1}).code == "bad_message"
    assert _refused({"type": 3}).code == "bad_message"


def test_an_unknown_type_is_named_in_its_error() -> None:
    error = _refused({"type": "teleport", "id": 2})
    assert error.code == "unknown_type"
    assert error.fields == {"request": "teleport"}
    assert error.to_message(2) == {
        "type": "error",
        "code": "unknown_type",
        "message": "Unknown message type 'teleport'.",
        "re": 2,
        "request": "teleport",
    }


def test_a_missing_required_field_is_a_bad_field_naming_it() -> None:
    error = _refused({"type": "move", "race": "r1", "move": "W-3"})
    assert (error.code, error.fields["field"], error.message) == (
        "bad_field",
        "seq",
        "Field 'seq' is required.",
    )


@pytest.mark.parametrize(
    ("field", "value", "detail"),
    [
        ("seq", "3", "must be an integer"),
        ("seq", True, "must be an integer"),
        ("seq", 3.0, "must be an integer"),
        ("seq", 0, "must be at least 1"),
        ("race", 17, "must be a string"),
        ("race", "", "must be at least 1 characters"),
        ("move", "x" * 65, "must be at most 64 characters"),
    ],
)
def test_a_move_field_of_the_wrong_type_or_size_is_refused(field: str, value: object, detail: str) -> None:
    error = _refused({**MOVE, field: value})
    assert error.code == "bad_field"
    assert error.message == f"Field {field!r} {detail}."
    assert error.to_message(7)["field"] == field


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"variant": "klondike"}, "variant"),
        ({"variant": "terrace", "goal": "fastest"}, "goal"),
        ({"variant": "terrace", "seats": 0}, "seats"),
        ({"variant": "terrace", "seats": 2.5}, "seats"),
        ({"variant": "terrace", "entry": "robots"}, "entry"),
        ({"variant": "terrace", "join": "yes"}, "join"),
    ],
)
def test_create_checks_choices_and_bounds(fields: dict[str, object], field: str) -> None:
    error = _refused({"type": "create", **fields})
    assert (error.code, error.fields["field"]) == ("bad_field", field)


def test_a_boolean_field_takes_only_booleans_and_bool_is_no_integer() -> None:
    assert check_request({"type": "create", "variant": "terrace", "join": False})["join"] is False
    assert _refused({"type": "create", "variant": "terrace", "seats": True}).fields["field"] == "seats"


def test_unknown_fields_are_dropped_and_null_counts_as_absent() -> None:
    checked = check_request({**MOVE, "colour": "blue", "extra": [1, 2]})
    assert checked == MOVE
    assert check_request({"type": "hello", "name": None}) == {"type": "hello"}


def test_the_id_must_be_an_integer_and_is_read_even_from_refused_requests() -> None:
    error = _refused({"type": "ping", "id": "seven"})
    assert (error.code, error.fields["field"]) == ("bad_field", "id")
    assert request_id({"type": "ping", "id": "seven"}) is None
    assert request_id({"type": "ping", "id": True}) is None
    assert request_id({"type": "teleport", "id": 9}) == 9


def test_every_request_type_is_accepted_with_its_required_fields() -> None:
    samples = {str: "r1", int: 1, bool: True}
    for kind, fields in REQUESTS.items():
        message: dict[str, object] = {"type": kind, "id": 1}
        for name, field in fields.items():
            if field.required:
                message[name] = field.choices[0] if field.choices else samples[field.kind]  # type: ignore[index]
        assert check_request(message) == message


def test_error_fields_never_replace_the_type_code_or_message() -> None:
    error = ProtocolError("bad_seq", expected=2, seq=5)
    assert error.to_message(4) == {
        "type": "error",
        "code": "bad_seq",
        "message": "Expected seq 2, got 5.",
        "re": 4,
        "expected": 2,
        "seq": 5,
    }
    assert "re" not in error.to_message()


def test_every_error_code_has_a_sentence_that_formats_with_its_fields() -> None:
    for code, sentence in ERRORS.items():
        names = {name for _, name, _, _ in string.Formatter().parse(sentence) if name}
        error = ProtocolError(code, **dict.fromkeys(names, "x"))
        assert error.message and "{" not in error.message, code
    with pytest.raises(KeyError):
        ProtocolError("no_such_code")


@given(st.binary(max_size=200))
def test_any_bytes_either_decode_to_a_map_or_are_a_bad_message(frame: bytes) -> None:
    try:
        message = decode(frame, MSGPACK)
    except ProtocolError as e:
        assert e.code == "bad_message"
    else:
        assert isinstance(message, dict)


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10) | st.binary(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=3,
)


@given(
    st.sampled_from(sorted(REQUESTS)),
    st.dictionaries(
        st.sampled_from(["id", "race", "seq", "move", "variant", "goal", "seats", "name", "topic", "join"]),
        _values,
    ),
)
def test_any_field_values_are_checked_or_refused_never_crash(kind: str, fields: dict[str, object]) -> None:
    try:
        checked = check_request({"type": kind, **fields})
    except ProtocolError as e:
        assert e.code == "bad_field"
    else:
        for name, value in checked.items():
            if name not in ("type", "id"):
                assert isinstance(value, REQUESTS[kind][name].kind)
