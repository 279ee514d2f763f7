"""The ``views: "changes"`` option of hello: ``moved`` answers carry what the move changed in the
view (``changes``) instead of the whole ``view``, and a client applying them has exactly the view
a full-view player of the same deal is sent. Real server, real websocket clients."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from terrace.wire.protocol import JSON, MSGPACK
from terrace.wire.views import apply_changes
from tests.server.conftest import Connect
from tests.server.races.test_races import strip_re
from tests.server.scripted_players import Policy
from tests.server.wire import Client, Message


async def mirrored_race(connect: Connect, variant: str) -> tuple[str, Client, Client, Message, Message]:
    """A two-seat race: ``full`` says hello as ever, ``delta`` asks for the view's changes."""
    full = await connect(MSGPACK, name="Full")
    delta = await connect(JSON)
    welcome = await delta.request("hello", name="Delta", views="changes")
    assert welcome["type"] == "welcome", welcome
    delta.session = welcome["session"]  # type: ignore[attr-defined]
    created = await full.request("create", variant=variant, seats=2, start="full")
    race = created["race"]["id"]
    assert (await delta.request("join", race=race))["type"] == "joined"
    return race, full, delta, await full.wait("started"), await delta.wait("started")


def _documented_apply_changes() -> str:
    """PROTOCOL.md's example: the function and the line that uses it."""
    doc = (Path(__file__).parents[3] / "PROTOCOL.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    return next(b for b in blocks if "def apply_changes" in b)


@pytest.mark.parametrize("apply", ["ours", "documented"])
@pytest.mark.parametrize("variant", ["terrace", "signora", "louis"])
async def test_a_client_applying_changes_has_the_full_view_after_every_move(
    connect: Connect, variant: str, apply: str
) -> None:
    """With ``terrace.wire.views.apply_changes``, and with PROTOCOL.md's example run as written."""
    example = _documented_apply_changes()

    race, full, delta, started_full, started_delta = await mirrored_race(connect, variant)
    assert started_delta["view"] == started_full["view"]  # `started` carries the whole view for both
    view = started_delta["view"]
    policy = Policy(max_moves=120)
    legal = started_full["legal"]
    for seq in range(1, 121):
        move = policy.choose(view, legal)
        if move is None:
            break
        policy.played.append(move)
        a = await full.request("move", race=race, seq=seq, move=move)
        b = await delta.request("move", race=race, seq=seq, move=move)
        assert a["type"] == b["type"] == "moved", (a, b)
        assert "changes" not in a and "view" not in b  # each gets only what it asked for
        assert len(b["changes"]) < len(a["view"])  # a move never changes every field
        if apply == "ours":
            view = apply_changes(view, b["changes"])
        else:
            scope: dict[str, Any] = {"view": view, "answer": b}
            exec(example, scope)
            view = scope["view"]
        assert view == a["view"]
        assert {k: v for k, v in strip_re(b).items() if k != "changes"} == {
            k: v for k, v in strip_re(a).items() if k != "view"
        }
        legal = a["legal"]
        if a.get("finish"):
            break
    assert view["moves"] >= 5  # the race went on long enough to mean something


async def test_a_resent_seq_gets_the_same_changes_and_applying_them_twice_changes_nothing(
    connect: Connect,
) -> None:
    race, full, delta, _, started = await mirrored_race(connect, "terrace")
    first = await delta.request("move", race=race, seq=1, move="1-F1")
    again = await delta.request("move", race=race, seq=1, move="1-F1")
    assert strip_re(again) == strip_re(first)
    once = apply_changes(started["view"], first["changes"])
    assert apply_changes(once, again["changes"]) == once
    mirror = await full.request("move", race=race, seq=1, move="1-F1")
    assert once == mirror["view"]


async def test_changes_after_a_reconnect_apply_to_the_resumed_view(connect: Connect) -> None:
    race, full, delta, _, _ = await mirrored_race(connect, "terrace")
    for seq, move in enumerate(["1-F1", "S-W"], start=1):
        assert (await full.request("move", race=race, seq=seq, move=move))["type"] == "moved"
        assert (await delta.request("move", race=race, seq=seq, move=move))["type"] == "moved"
    await delta.close()
    back = await connect(MSGPACK)
    welcome = await back.request("hello", session=delta.session, views="changes")  # type: ignore[attr-defined]
    assert welcome["type"] == "welcome"
    resumed = await back.wait("started")
    b = await back.request("move", race=race, seq=3, move="S-W")
    a = await full.request("move", race=race, seq=3, move="S-W")
    assert apply_changes(resumed["view"], b["changes"]) == a["view"]


async def test_a_client_that_asks_for_nothing_gets_the_whole_view(connect: Connect) -> None:
    race, full, _, _, _ = await mirrored_race(connect, "terrace")
    moved = await full.request("move", race=race, seq=1, move="1-F1")
    assert "view" in moved and "changes" not in moved
    plain = await connect(JSON)
    welcome = await plain.request("hello", name="Plain", views="full")
    assert welcome["type"] == "welcome"


async def test_a_registered_player_may_ask_for_changes_when_registering(connect: Connect) -> None:
    c = await connect(MSGPACK)
    registered = await c.request("register", name="Changes", views="changes")
    assert registered["type"] == "registered", registered
    other = await connect(MSGPACK, name="Other")
    created = await c.request("create", variant="terrace", seats=2, start="full")
    race = created["race"]["id"]
    await other.request("join", race=race)
    started = await c.wait("started")
    moved = await c.request("move", race=race, seq=1, move="1-F1")
    assert "view" not in moved
    assert apply_changes(started["view"], moved["changes"])["moves"] == 1


@pytest.mark.parametrize("views", ["delta", "", 1, True])
async def test_hello_with_an_unknown_views_mode_is_a_bad_field(connect: Connect, views: object) -> None:
    c = await connect(JSON)
    refused = await c.request("hello", name="Odd", views=views)
    assert refused["type"] == "error" and refused["code"] == "bad_field" and refused["field"] == "views"
    welcome = await c.request("hello", name="Odd")  # nothing changed: a plain hello still works
    assert welcome["type"] == "welcome"
