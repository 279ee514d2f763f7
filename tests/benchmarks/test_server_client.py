"""The server benchmark's clients: the players' policy and the echo's frames of a given size."""

from __future__ import annotations

import random

import pytest

from benchmarks import server_client as client
from terrace.wire.protocol import JSON, MSGPACK, encode


def test_the_policy_prefers_foundations_then_the_stock_and_avoids_undoing() -> None:
    rng = random.Random(1)
    assert client.choose(["2-8", "5-F1", "S-W"], None, rng) == "5-F1"
    assert client.choose(["2-8", "S-W"], None, rng) == "S-W"
    assert all(client.choose(["3-7", "7-3"], "3-7", rng) == "3-7" for _ in range(20))
    assert client.choose(["7-3"], "3-7", rng) == "7-3"  # an undo beats no move at all


@pytest.mark.parametrize("subprotocol", [MSGPACK, JSON])
@pytest.mark.parametrize("size", [45, 300, 556, 4000])
def test_padded_frames_have_the_size_asked_for(subprotocol: str, size: int) -> None:
    frame = encode(client.padded({"type": "echo", "id": 1000}, size, subprotocol), subprotocol)
    assert size - 2 <= client.frame_size(frame) <= size
