"""The sans-I/O client conversation: request ids, answers told from pushes, rate-limit resends."""

from __future__ import annotations

import itertools

import pytest

from terrace.errors import ProtocolError
from terrace.wire.conversation import Answer, Conversation, Push, backoff
from terrace.wire.protocol import JSON, MSGPACK, decode, encode


@pytest.mark.parametrize("subprotocol", [MSGPACK, JSON])
def test_requests_are_numbered_from_1_and_encoded_for_the_subprotocol(subprotocol: str) -> None:
    c = Conversation(subprotocol)
    first, frame = c.request("hello", name="alice")
    second, _ = c.request("ping")
    assert (first, second) == (1, 2)
    assert decode(frame, subprotocol) == {"type": "hello", "name": "alice", "id": 1}
    assert c.pending == [1, 2]


def test_an_answer_is_matched_by_re_and_is_then_no_longer_pending() -> None:
    c = Conversation()
    rid, _ = c.request("ping")
    got = c.receive(encode({"type": "pong", "re": rid, "time": 5}))
    assert got == Answer(rid, {"type": "pong", "re": rid, "time": 5})
    assert got.retry_after is None
    assert c.pending == []
    assert c.receive(encode({"type": "pong", "re": rid, "time": 6})) is None  # a late duplicate


def test_a_message_without_re_is_a_push() -> None:
    c = Conversation()
    c.request("queue", variant="terrace")
    msg = {"type": "standings", "race": "r1", "rows": []}
    assert c.receive(encode(msg)) == Push(msg)
    assert c.pending == [1]


def test_rate_limited_keeps_the_request_pending_and_resends_the_same_message() -> None:
    c = Conversation()
    rid, frame = c.request("move", race="r1", seq=3, move="S-W")
    got = c.receive(encode({"type": "error", "re": rid, "code": "rate_limited", "retry_after": 0.25}))
    assert isinstance(got, Answer) and got.retry_after == 0.25
    assert c.pending == [rid]
    assert c.resend(rid) == frame
    c.forget(rid)
    assert c.pending == []


def test_other_errors_are_answers_without_retry() -> None:
    c = Conversation()
    rid, _ = c.request("join", race="nope")
    got = c.receive(encode({"type": "error", "re": rid, "code": "no_race", "message": "…"}))
    assert isinstance(got, Answer) and got.retry_after is None and c.pending == []


def test_an_unreadable_frame_is_a_bad_message_error() -> None:
    with pytest.raises(ProtocolError) as info:
        Conversation().receive(b"\xc1")
    assert info.value.code == "bad_message"


def test_backoff_doubles_from_a_tenth_of_a_second_up_to_five() -> None:
    assert list(itertools.islice(backoff(), 8)) == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    assert list(itertools.islice(backoff(1.0, 3.0, 4.0), 3)) == [1.0, 3.0, 4.0]
