"""Protocol v1 codec and request checks (terrace/wire/protocol.py), without sockets."""

from __future__ import annotations

import ast
import json
import string
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from terrace.errors import ERRORS, ProtocolError
from terrace.wire.protocol import (
    JSON,
    MSGPACK,
    REQUESTS,
    as_message,
    check_request,
    decode,
    encode,
    pack,
    read_request,
    request_id,
    unpack,
    with_re,
)

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
    assert _bad(json.dumps(MOVE), MSGPACK).message == (
        "Cannot read that message: this subprotocol takes msgpack in binary frames."
    )
    assert _bad(msgpack.packb(MOVE), JSON).message == (
        "Cannot read that message: this subprotocol takes JSON in text frames."
    )
    assert _bad(bytearray(msgpack.packb(MOVE)), MSGPACK).code == "bad_message"


@pytest.mark.parametrize(
    ("frame", "detail"),
    [
        (b"\xc1", "not valid msgpack (FormatError)"),
        (msgpack.packb(MOVE)[:-3], "not valid msgpack (ValueError)"),
        (b"", "not valid msgpack (ValueError)"),
        (msgpack.packb(MOVE) + b"\x01", "not valid msgpack (ExtraData)"),
        (b"\x91" * 5000 + b"\xc0", "not valid msgpack (StackError)"),
        (b"\x81\xa4type\xa3\xed\xa0\x80", "not valid msgpack (UnicodeDecodeError)"),  # a surrogate in UTF-8
        (msgpack.packb({1: "ping"}), "not valid msgpack (ValueError)"),  # map keys are strings
        (msgpack.packb([1, 2, 3]), "a message is a map"),
        (msgpack.packb("move"), "a message is a map"),
        (msgpack.packb(None), "a message is a map"),
        (b"\xd4\x01\x00", "a message is a map"),  # an ext type
    ],
    ids=[
        "reserved-byte",
        "truncated",
        "empty",
        "extra-data",
        "deep",
        "bad-utf8",
        "int-key",
        "list",
        "str",
        "nil",
        "ext",
    ],
)
def test_each_kind_of_malformed_msgpack_says_what_is_wrong(frame: bytes, detail: str) -> None:
    assert _bad(frame).message == f"Cannot read that message: {detail}."


@pytest.mark.parametrize("frame", ["{", '{"type": "ping",}', "[1, 2]", '"ping"', "[" * 100_000])
def test_malformed_json_is_a_bad_message(frame: str) -> None:
    _bad(frame, JSON)


@pytest.mark.parametrize(
    ("frame", "detail"),
    [
        ("", "not valid JSON (JSONDecodeError)"),
        ("{not json", "not valid JSON (JSONDecodeError)"),
        ('{"type": "ping"} {}', "not valid JSON (JSONDecodeError)"),  # trailing data
        ('{"type": "ping", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "not valid JSON (RecursionError)"),
        ('{"type": "ping", "id": ' + "1" * 5000 + "}", "not valid JSON (ValueError)"),  # int digits limit
        ('["ping"]', "a message is a map"),
        ("null", "a message is a map"),
        ("NaN", "a message is a map"),
    ],
    ids=["empty", "garbage", "extra-data", "deep", "huge-int", "list", "null", "nan"],
)
def test_each_kind_of_malformed_json_says_what_is_wrong(frame: str, detail: str) -> None:
    assert _bad(frame, JSON).message == f"Cannot read that message: {detail}."


@pytest.mark.parametrize(
    "frame",
    ['{"type": "\\ud800"}', '{"type": "spectate", "race": "a\\udfffb"}'],
    ids=["in-type", "in-field"],
)
def test_json_strings_with_lone_surrogates_are_bad_messages(frame: str) -> None:
    # Valid JSON syntax, but no Unicode text: it cannot be UTF-8 encoded (msgpack refuses
    # the same as invalid UTF-8, above), so echoing it in an error could never be sent.
    assert _bad(frame, JSON).code == "bad_message"


def test_a_json_frame_is_one_line_of_utf8_text_without_ascii_escapes() -> None:
    assert encode({"type": "moved", "move": "10h-F1", "name": "Zoë"}, JSON) == (
        '{"type":"moved","move":"10h-F1","name":"Zoë"}'
    )


def _refused(message: dict[str, object]) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        check_request(message)
    return info.value


def test_a_message_needs_a_string_type() -> None:
    for message in ({"id": 1}, {"type": 3}, {"type": None}, {"type": b"ping"}, {"type": ["ping"]}):
        error = _refused(message)
        assert (error.code, error.message) == (
            "bad_message",
            "Cannot read that message: a message needs a string 'type'.",
        )


def test_an_unknown_type_is_cut_to_40_characters_in_its_error() -> None:
    assert _refused({"type": "x" * 100}).fields == {"request": "x" * 40}


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
    assert error.to_message(7) == {  # the detail makes the sentence; it does not travel alone
        "type": "error",
        "code": "bad_field",
        "message": "Field 'seq' is required.",
        "re": 7,
        "field": "seq",
    }


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "join"}, "race"),
        ({"type": "move", "seq": 1, "move": "W-3"}, "race"),
        ({"type": "move", "race": "r1", "seq": 1}, "move"),
        ({"type": "move", "race": "r1", "seq": 1, "move": None}, "move"),  # null is absent
        ({"type": "create"}, "variant"),
        ({"type": "queue", "goal": "clear"}, "variant"),
        ({"type": "register", "kind": "bot"}, "name"),
        ({"type": "subscribe"}, "topic"),
    ],
)
def test_every_required_field_is_required(message: dict[str, object], field: str) -> None:
    error = _refused(message)
    assert (error.code, error.fields, error.message) == (
        "bad_field",
        {"field": field, "detail": "is required"},
        f"Field {field!r} is required.",
    )


@pytest.mark.parametrize(
    ("field", "value", "detail"),
    [
        ("seq", "3", "must be an integer"),
        ("seq", True, "must be an integer"),
        ("seq", 3.0, "must be an integer"),
        ("seq", -1, "must be at least 0"),
        ("race", 17, "must be a string"),
        ("race", "", "must be at least 1 character"),
        ("move", "x" * 65, "must be at most 64 characters"),
    ],
)
def test_a_move_field_of_the_wrong_type_or_size_is_refused(field: str, value: object, detail: str) -> None:
    error = _refused({**MOVE, field: value})
    assert error.code == "bad_field"
    assert error.message == f"Field {field!r} {detail}."
    assert error.to_message(7)["field"] == field


@pytest.mark.parametrize(
    ("fields", "field", "detail"),
    [
        ({"variant": "klondike"}, "variant", "must be one of terrace, queen-of-italy, signora, louis"),
        ({"variant": "terrace", "goal": "fastest"}, "goal", "must be one of terrace, clear"),
        ({"variant": "terrace", "seats": 0}, "seats", "must be at least 1"),
        ({"variant": "terrace", "seats": 1001}, "seats", "must be at most 1000"),
        ({"variant": "terrace", "seats": 2.5}, "seats", "must be an integer"),
        ({"variant": "terrace", "seats": 2.0}, "seats", "must be an integer"),
        ({"variant": "terrace", "seats": "2"}, "seats", "must be an integer"),
        ({"variant": "terrace", "time_limit": 0}, "time_limit", "must be at least 1"),
        ({"variant": "terrace", "time_limit": 86_401}, "time_limit", "must be at most 86400"),
        ({"variant": "terrace", "entry": "robots"}, "entry", "must be one of all, humans, bots"),
        ({"variant": "terrace", "start": "later"}, "start", "must be one of manual, full"),
        ({"variant": "terrace", "join": "yes"}, "join", "must be a boolean"),
        ({"variant": "terrace", "join": 1}, "join", "must be a boolean"),
        ({"variant": 7}, "variant", "must be a string"),
    ],
)
def test_create_checks_types_choices_and_bounds(fields: dict[str, object], field: str, detail: str) -> None:
    error = _refused({"type": "create", **fields})
    assert (error.code, error.fields, error.message) == (
        "bad_field",
        {"field": field, "detail": detail},
        f"Field {field!r} {detail}.",
    )


@pytest.mark.parametrize(
    ("message", "field", "detail"),
    [
        ({"type": "join", "race": 42}, "race", "must be a string"),
        ({"type": "join", "race": "r" * 65}, "race", "must be at most 64 characters"),
        (
            {"type": "move", "race": "r1", "seq": 2**31 + 1, "move": "W-3"},
            "seq",
            "must be at most 2147483648",
        ),
        ({"type": "move", "race": "r1", "seq": -1, "move": "W-3"}, "seq", "must be at least 0"),
        ({"type": "move", "race": "r1", "seq": 1, "move": 3}, "move", "must be a string"),
        ({"type": "hello", "name": "n" * 257}, "name", "must be at most 256 characters"),
        ({"type": "hello", "name": "alice", "token": "t" * 129}, "token", "must be at most 128 characters"),
        ({"type": "register", "name": "bob", "kind": "robot"}, "kind", "must be one of human, bot"),
        (
            {"type": "queue", "variant": "terrace", "pool": "everyone"},
            "pool",
            "must be one of all, humans, bots",
        ),
        ({"type": "subscribe", "topic": "gossip"}, "topic", "must be one of lobby, leaderboards, daily"),
    ],
)
def test_other_requests_check_their_fields(message: dict[str, object], field: str, detail: str) -> None:
    error = _refused(message)
    assert (error.code, error.message) == ("bad_field", f"Field {field!r} {detail}.")


def test_a_boolean_field_takes_only_booleans_and_bool_is_no_integer() -> None:
    assert as_message(check_request({"type": "create", "variant": "terrace", "join": False}))["join"] is False
    assert _refused({"type": "create", "variant": "terrace", "seats": True}).fields["field"] == "seats"


def test_unknown_fields_are_dropped_and_null_counts_as_absent() -> None:
    checked = as_message(check_request({**MOVE, "colour": "blue", "extra": [1, 2]}))
    assert checked == MOVE
    assert as_message(check_request({"type": "hello", "name": None})) == {"type": "hello"}
    assert as_message(check_request({"type": "ping", "seq": "not checked: ping has no seq"})) == {
        "type": "ping"
    }


def test_a_null_id_counts_as_absent() -> None:
    # PROTOCOL.md, Messages: "null counts as absent" (for fields in general).
    assert as_message(check_request({"type": "ping", "id": None})) == {"type": "ping"}


def test_a_checked_request_keeps_its_id_and_known_fields_unchanged() -> None:
    message = {"type": "create", "id": -3, "variant": "louis", "goal": "clear", "seats": 64, "join": False}
    assert as_message(check_request(message)) == message


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
        assert as_message(check_request(message)) == message


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


# Plausible fields for every code, as the server raises them, and the exact sentence.
_SENTENCES: dict[str, tuple[dict[str, object], str]] = {
    "bad_message": ({"detail": "a message is a map"}, "Cannot read that message: a message is a map."),
    "unknown_type": ({"request": "teleport"}, "Unknown message type 'teleport'."),
    "bad_field": ({"field": "seq", "detail": "is required"}, "Field 'seq' is required."),
    "hello_first": ({"request": "join"}, "Say hello (or register) before 'join'."),
    "already_welcomed": ({"name": "alice"}, "This connection is already welcomed as 'alice'."),
    "bad_name": ({}, "A name is 2 to 24 characters: letters, digits, '-' or '_', starting with a letter."),
    "name_taken": (
        {"name": "alice"},
        "The name 'alice' is taken, or looks too like one that is (an account's, or a guest's while a race of theirs goes on): choose another.",
    ),
    "bad_token": ({}, "That token belongs to no account."),
    "bad_session": ({}, "That session is unknown or has expired; say hello again without it."),
    "no_race": ({"race": "9f3a61c2"}, "There is no race '9f3a61c2'."),
    "bad_goal": ({"variant": "louis"}, "Variant 'louis' has only the goal 'clear'."),
    "race_full": ({"race": "9f3a61c2"}, "Race 9f3a61c2 is full."),
    "race_started": ({"race": "9f3a61c2"}, "Race 9f3a61c2 has already started."),
    "entry_refused": ({"race": "9f3a61c2", "entry": "bots"}, "That race is open to bots only."),
    "pool_refused": ({"pool": "humans"}, "The humans queue is for humans only."),
    "already_in_race": ({"race": "9f3a61c2"}, "You are already in race 9f3a61c2; leave it first."),
    "already_queued": ({}, "You are already waiting in the queue."),
    "not_queued": ({}, "You are not waiting in the queue."),
    "not_in_race": ({"race": "9f3a61c2"}, "You are not in race 9f3a61c2."),
    "not_creator": ({"race": "9f3a61c2"}, "Only the creator of race 9f3a61c2 can start it."),
    "race_empty": (
        {"race": "9f3a61c2"},
        "Race 9f3a61c2 has no players yet: it can start once someone has joined.",
    ),
    "race_not_running": ({"race": "9f3a61c2"}, "Race 9f3a61c2 is not running."),
    "player_finished": ({"race": "9f3a61c2"}, "You have finished race 9f3a61c2; no more moves."),
    "bad_seq": ({"expected": 4, "seq": 6}, "Expected seq 4, got 6."),
    "seq_conflict": ({"seq": 3, "move": "W-3"}, "seq 3 was already used for the move 'W-3'."),
    "illegal_move": ({"reason": "stock_empty", "move": "S-W"}, "The rules refuse that move."),
    "not_finished": (
        {"race": "9f3a61c2"},
        "Race 9f3a61c2 has not finished; its record is published when it ends.",
    ),
    "no_winnable_deal": (
        {"seconds": "8"},
        "No deal was proven winnable within 8 s; try again, or create without 'deals'.",
    ),
    "daily_attempted": (
        {"variant": "terrace", "day": "2026-11-18"},
        "You have used your daily attempt at terrace for 2026-11-18; play it again unrated as practice (terrace daily --practice; practice: true in daily_play).",
    ),
    "daily_attempt_first": (
        {"variant": "terrace"},
        "Play your rated daily attempt at terrace before practising on today's deal.",
    ),
    "daily_account_needed": (
        {"variant": "louis"},
        "Today's louis deal is raced by accounts only, one rated attempt each, so that nobody"
        " learns it before racing it; as a guest, play a past day's deal, or register.",
    ),
    "challenge_create_account_needed": (
        {},
        "Only an account can make a challenge: its board counts accounts' first attempts, and its"
        " creator reveals it later; register, then make one.",
    ),
    "challenge_account_needed": (
        {"challenge": "c1"},
        "Challenge c1 is raced by accounts only until its creator reveals it; register to race it.",
    ),
    "daily_unfinished": (
        {"variant": "louis"},
        "Your daily attempt at louis has not finished; practice comes after it.",
    ),
    "daily_not_yet": (
        {"day": "2026-11-19", "today": "2026-11-18"},
        "The daily deal of 2026-11-19 is not out yet (today is 2026-11-18).",
    ),
    "no_challenge": ({"challenge": "c0123456789"}, "There is no challenge 'c0123456789'."),
    "challenge_closing": (
        {"challenge": "c0123456789"},
        "Challenge c0123456789 takes no new attempts: its creator asked for its deal, which is told"
        " once the attempts under way are over.",
    ),
    "not_revealed": (
        {
            "what": "The terrace deal of 2026-11-18",
            "when": ": it is told at 2026-11-19 00:15:03 UTC at the soonest",
        },
        "The terrace deal of 2026-11-18 is still secret, as attempts of it may still be running: it is told"
        " at 2026-11-19 00:15:03 UTC at the soonest; until then it can be neither read, analysed nor practised.",
    ),
    "not_challenge_creator": (
        {"challenge": "c0123456789"},
        "Only the creator of challenge c0123456789 can reveal its deal.",
    ),
    "no_daily": (
        {"variant": "signora", "day": "2026-01-01"},
        "There was no daily signora deal on 2026-01-01 on this server (or it is no longer kept).",
    ),
    "bad_board": (
        {"detail": "a rating board needs pool 'humans' or 'bots'"},
        "No such leaderboard: a rating board needs pool 'humans' or 'bots'.",
    ),
    "not_on_board": ({"board": "wins", "variant": "terrace"}, "That player is not on the wins board."),
    "store_down": ({}, "The server's store is unavailable; nothing was changed. Try again shortly."),
    "rate_limited": ({"retry_after": 0.25}, "Too many messages; wait 0.25 s."),
    "busy": ({}, "Too many requests are waiting on this connection; wait for their answers."),
    "guest_name": (
        {"name": "guest-abc123"},
        "'guest-abc123' reads like the name the server gives a guest who races without one; "
        "an account needs another name.",
    ),
    "name_reserved": (
        {"name": "house-greedy-1"},
        "Names beginning with 'house' ('house-greedy-1' is one) are kept for this server's own house bots; "
        "choose another name.",
    ),
    "bad_house_key": (
        {},
        "That is not this server's house key; a house name needs the key the server was given.",
    ),
    "same_address": (
        {"race": "9f3a61c2"},
        "Another registered player in race 9f3a61c2 plays from your address or client, and it was created "
        "rated, which takes one account per address and client. To race each other, create a race without "
        "'rated' (terrace play --create, or Create on the play page): it goes ahead unrated.",
    ),
    "too_many_races": (
        {"by": "you", "limit": 3},
        "Too many races created by you are waiting to start (at most 3); start or leave one first.",
    ),
    "too_many_registrations": (
        {"retry_after": 1800},
        "Too many accounts were registered from your address; try again in 1800 s.",
    ),
    "internal": ({}, "The server failed on this request; it has been logged."),
    "no_player": ({"name": "robo"}, "There is no registered player 'robo'."),
    "no_arena": ({"arena": "friday-cup"}, "There is no arena 'friday-cup'."),
    "arena_over": ({"arena": "friday-cup"}, "Arena friday-cup is over; join a running or upcoming one."),
    "arena_pool": ({"arena": "friday-cup", "pool": "bots"}, "Arena friday-cup is for bots only."),
    "not_in_arena": ({"arena": "friday-cup"}, "You have not joined arena friday-cup."),
    "already_in_arena": ({"arena": "friday-cup"}, "You are already in arena friday-cup; leave it first."),
}


def test_the_sentence_table_covers_every_error_code() -> None:
    assert set(_SENTENCES) == set(ERRORS)


@pytest.mark.parametrize("code", sorted(_SENTENCES))
def test_each_error_code_formats_with_plausible_fields(code: str) -> None:
    fields, sentence = _SENTENCES[code]
    error = ProtocolError(code, **fields)
    assert (error.code, error.message, str(error)) == (code, sentence, sentence)
    extra = {k: v for k, v in fields.items() if k != "detail"}
    assert error.to_message(5) == {"type": "error", "code": code, "message": sentence, "re": 5, **extra}


def _server_raises() -> list[tuple[str, int, str, set[str], bool]]:
    """Every ``ProtocolError("code", ..., field=...)`` in server/: (file, line, code, field
    names, whether a message is given)."""
    found = []
    for path in sorted(Path(__file__).parents[3].joinpath("server").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ProtocolError":
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path.name}:{node.lineno}: code is not a literal"
                names = {k.arg for k in node.keywords}
                assert None not in names, f"{path.name}:{node.lineno}: **fields"
                found.append((path.name, node.lineno, first.value, names, len(node.args) > 1))  # type: ignore[arg-type]
    return found


def test_every_error_the_server_raises_formats_with_the_fields_it_passes() -> None:
    raises = _server_raises()
    assert len(raises) > 30
    for file, line, code, names, has_message in raises:
        assert code in ERRORS, f"{file}:{line}: unknown code {code!r}"
        error = ProtocolError(code, "given" if has_message else None, **dict.fromkeys(names, "x"))
        assert error.message and "{" not in error.message, f"{file}:{line}"


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
        checked = as_message(check_request({"type": kind, **fields}))
    except ProtocolError as e:
        assert e.code == "bad_field"
    else:
        for name, value in checked.items():
            if name not in ("type", "id"):
                assert isinstance(value, REQUESTS[kind][name].kind)


@pytest.mark.parametrize(
    ("field", "value"),
    [("seq", 0), ("seq", 2**31), ("race", "r"), ("race", "r" * 64), ("move", ""), ("move", "x" * 64)],
)
def test_a_move_field_at_its_bounds_is_accepted_as_it_is(field: str, value: object) -> None:
    # (plain strings and integers within bounds take a shorter path than the rest: same answer)
    checked = as_message(check_request({**MOVE, field: value, "extra": 1}))
    assert checked == {k: v for k, v in {**MOVE, field: value}.items()}
    assert type(checked[field]) is type(value)


@pytest.mark.parametrize("fields", [1, 14, 15, 16, 300])
def test_an_answer_encoded_once_gets_its_re_without_being_encoded_again(fields: int) -> None:
    answer = {"type": "moved", **{f"f{i}": i for i in range(fields - 1)}}
    frame = pack(answer)
    assert unpack(with_re(frame, 12)) == {**answer, "re": 12}
    assert unpack(with_re(frame, -(2**40))) == {**answer, "re": -(2**40)}
    assert with_re(frame, None) == frame == encode(answer)
    assert unpack(frame) == answer


def _outcome(read: Callable[[], object]) -> object:
    try:
        return as_message(read())  # type: ignore[arg-type]
    except ProtocolError as e:
        return (e.code, e.message, e.fields)


_field_names = sorted({name for fields in REQUESTS.values() for name in fields} | {"id", "extra"})
_near_values = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=70)
    | st.sampled_from(["terrace", "louis", "clear", "bots", "all", "lobby", "rating", "week", "full", "r1"])
)


@given(
    st.sampled_from([*sorted(REQUESTS), "teleport"]),
    st.dictionaries(st.sampled_from(_field_names), _near_values, max_size=6),
    st.sampled_from([MSGPACK, JSON]),
)
def test_reading_a_frame_in_one_step_accepts_and_refuses_exactly_as_decode_then_check(
    kind: str, fields: dict[str, object], subprotocol: str
) -> None:
    message = {"type": kind, **fields}
    try:
        frame = encode(message, subprotocol)
    except (OverflowError, ValueError):  # an integer no codec carries: no frame to read
        return
    assert _outcome(lambda: read_request(frame, subprotocol)) == _outcome(
        lambda: check_request(decode(frame, subprotocol))
    )


@pytest.mark.parametrize(
    "frame",
    [
        msgpack.packb(
            {"type": "ping", "x": {1: 2}}
        ),  # a map key msgpack's reading refuses, in an unknown field
        b"\x82\xa4type\xa4ping\xa1x\xa2\xff\xfe",  # invalid UTF-8 in an unknown field
        msgpack.packb({"type": "ping"}) + b"\x00",  # extra data after the map
        msgpack.packb({"type": "move", "race": b"r1", "seq": 1, "move": "S-W"}),  # bytes are no string
        msgpack.packb([1, 2]),
    ],
)
def test_frames_the_one_step_reading_passes_on_get_the_lenient_answer(frame: bytes) -> None:
    assert _outcome(lambda: read_request(frame, MSGPACK)) == _outcome(
        lambda: check_request(decode(frame, MSGPACK))
    )


def test_a_json_request_in_a_binary_frame_is_refused_as_before() -> None:
    with pytest.raises(ProtocolError) as refused:
        read_request(b'{"type": "ping"}', JSON)
    assert refused.value.code == "bad_message"
