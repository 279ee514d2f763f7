"""The frame check every test runs under (tests/frames.py) sees what servers send, and refuses
what the schema does not describe."""

from __future__ import annotations

import json

import msgpack

from terrace.wire.protocol import JSON, MSGPACK
from tests.frames import FrameCheck, problems

from .conftest import Connect


async def test_every_frame_a_test_server_sends_is_checked(
    connect: Connect, frames_match_the_schema: FrameCheck
) -> None:
    before = frames_match_the_schema.frames
    for subprotocol in (MSGPACK, JSON):
        client = await connect(subprotocol, name=f"checked{len(subprotocol)}")
        assert (await client.request("ping"))["type"] == "pong"
        assert (await client.request("move", race="nope", seq=1, move="S-W"))["code"] == "no_race"
    assert frames_match_the_schema.frames - before >= 6  # two welcomes, pongs, errors
    assert frames_match_the_schema.failures == []


def test_a_frame_the_schema_does_not_describe_is_named_with_what_is_wrong() -> None:
    good = {"type": "pong", "re": 1, "time": 5}
    assert problems(msgpack.packb(good)) == [] and problems(json.dumps(good)) == []
    assert problems(msgpack.packb({**good, "time": "soon"})) == ["time: 'soon' is not of type 'integer'"]
    assert problems(json.dumps({"type": "pong"})) == ["(top): 'time' is a required property"]
    assert problems(json.dumps({"type": "teleported"})) == [
        "type 'teleported' is no answer or push of the schema"
    ]
    assert problems(b"\xc1") != []
    moved = {
        "type": "moved",
        "race": "r",
        "seq": 1,
        "move": "S-W",
        "events": [],
        "legal": [],
        "status": "won?",
    }
    assert problems(json.dumps(moved))[0].startswith("status: 'won?' is not one of")
