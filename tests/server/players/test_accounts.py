"""Accounts and sessions on the wire: register, hello by token, session or name, name rules,
what needs a hello, and one connection per session."""

from __future__ import annotations

import asyncio
import hashlib
import re
from pathlib import Path
from typing import Any

import pytest

from server.app import RaceServer
from tests.poll import eventually
from tests.server.conftest import Connect, MakeServer
from tests.server.wire import Client


def _strings(value: Any) -> list[str]:
    """Every string inside ``value``: dict keys and values, dataclass fields, containers."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes):
        return [value.decode("latin-1")]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list | tuple | set | frozenset):
        return [s for v in value for s in _strings(v)]
    if hasattr(value, "__dict__"):
        return _strings(vars(value))
    return []


@pytest.mark.parametrize("kind", ["human", "bot"])
async def test_register_answers_a_token_a_player_and_a_session_and_stores_only_the_token_hash(
    server: RaceServer, connect: Connect, kind: str
) -> None:
    c = await connect()
    ans = await c.request("register", name="alice", kind=kind)
    assert ans["type"] == "registered"
    token = ans["token"]
    assert isinstance(token, str) and re.fullmatch("[0-9a-f]{48}", token)  # `--token T` never reads as a flag
    player = ans["player"]
    assert set(player) == {"id", "name", "kind", "guest"}
    assert player["name"] == "alice"
    assert player["kind"] == kind
    assert player["guest"] is False
    assert isinstance(player["id"], str) and player["id"]
    assert isinstance(ans["session"], str) and ans["session"]
    assert ans["session"] != token

    account = await server.store.account_by_name("alice")
    assert account is not None
    assert account.id == player["id"]
    assert account.kind == kind
    assert account.token_hash == hashlib.sha256(token.encode()).hexdigest()
    # the raw token is nowhere in what the store keeps
    assert all(token not in s for s in _strings(vars(server.store)))
    assert token not in repr(vars(server.store))

    # registering also welcomes the connection
    again = await c.request("hello", name="bob")
    assert again["type"] == "error" and again["code"] == "already_welcomed"
    assert again["name"] == "alice"


async def test_register_kind_defaults_to_human(connect: Connect) -> None:
    c = await connect()
    ans = await c.request("register", name="carol")
    assert ans["type"] == "registered"
    assert ans["player"]["kind"] == "human"
    assert ans["player"]["guest"] is False


async def test_hello_with_the_token_on_a_new_connection_welcomes_the_same_player(connect: Connect) -> None:
    first = await connect()
    reg = await first.request("register", name="alice", kind="bot")
    await first.close()

    second = await connect()
    welcome = await second.request("hello", token=reg["token"])
    assert welcome["type"] == "welcome"
    assert welcome["player"] == {"id": reg["player"]["id"], "name": "alice", "kind": "bot", "guest": False}
    assert isinstance(welcome["session"], str) and welcome["session"]
    assert welcome["server"]["protocol"] == 1
    assert "terrace" in welcome["server"]["variants"]
    assert "race" not in welcome  # in no race: nothing to come back to


async def test_hello_with_a_wrong_token_is_bad_token(connect: Connect) -> None:
    c = await connect()
    await c.request("register", name="alice")
    other = await connect()
    ans = await other.request("hello", token="not-a-token-of-anyone")
    assert ans["type"] == "error"
    assert ans["code"] == "bad_token"
    # the connection stays usable and not welcomed
    assert (await other.request("ping"))["type"] == "pong"
    guest = await other.request("hello", name="dora")
    assert guest["type"] == "welcome"


@pytest.mark.parametrize(("first", "second"), [("alice", "alice"), ("Alice", "alice"), ("bob", "BOB")])
async def test_register_with_a_taken_name_is_name_taken_regardless_of_case(
    connect: Connect, first: str, second: str
) -> None:
    a = await connect()
    assert (await a.request("register", name=first))["type"] == "registered"
    b = await connect()
    ans = await b.request("register", name=second)
    assert ans["type"] == "error"
    assert ans["code"] == "name_taken"
    assert ans["name"] == second


async def test_guest_hello_with_a_registered_name_is_name_taken(connect: Connect) -> None:
    a = await connect()
    assert (await a.request("register", name="Alice"))["type"] == "registered"
    for name in ("Alice", "alice", "ALICE"):
        b = await connect()
        ans = await b.request("hello", name=name)
        assert ans["type"] == "error"
        assert ans["code"] == "name_taken"
        assert ans["name"] == name


async def test_a_connected_guests_name_is_taken_for_other_guests_and_for_registering(
    connect: Connect,
) -> None:
    await connect(name="Dora")
    for request, fields in (("hello", {"name": "dora"}), ("register", {"name": "DORA"})):
        other = await connect()
        ans = await other.request(request, **fields)
        assert (ans["type"], ans["code"], ans["name"]) == ("error", "name_taken", fields["name"])


async def test_a_guests_name_is_free_again_once_the_guest_has_left(
    server: RaceServer, connect: Connect
) -> None:
    dora = await connect(name="dora")
    await dora.close()
    # the server forgets the guest when its connection handler ends
    await eventually(lambda: not server.connections, what="the guest's connection to end")
    again = await connect()
    assert (await again.request("hello", name="dora"))["type"] == "welcome"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Alice", "AIice"),
        ("B0b", "bob"),
        ("mary", "rnary"),
        ("robo-ladder", "robo_ladder"),
        ("robo-ladder", "roboladder"),
        ("robo-ladder", "robo-lader"),
        ("Robo_Ladder", "ROBOLADER"),
    ],
)
@pytest.mark.parametrize("request_type", ["register", "hello"])
async def test_a_name_that_looks_like_a_taken_one_is_name_taken(
    connect: Connect, first: str, second: str, request_type: str
) -> None:
    await connect(name=first)  # a guest holds it
    registered = await (await connect()).request("register", name=first + "x")
    assert registered["type"] == "registered"
    for name in (second, second + "x"):  # like the guest's, like the account's
        ans = await (await connect()).request(request_type, name=name)
        assert (ans["type"], ans["code"], ans["name"]) == ("error", "name_taken", name)
    assert (await (await connect()).request(request_type, name="Alicia"))["type"] in ("welcome", "registered")


async def test_a_guest_gone_from_a_started_race_loses_its_name_when_the_race_ends(
    server: RaceServer, connect: Connect
) -> None:
    alice, bob = await connect(name="alice"), await connect(name="bob")
    race = (await alice.request("create", variant="terrace", seats=2))["race"]["id"]
    assert (await bob.request("join", race=race))["type"] == "joined"
    await alice.request("start", race=race)
    await bob.wait("started")
    session = bob.session  # type: ignore[attr-defined]
    await bob.close()  # bob is away: his seat (and name) wait for him through the grace period
    taken = await (await connect()).request("hello", name="bob")
    assert taken["code"] == "name_taken"
    assert (await alice.request("resign", race=race))["type"] == "resigned"
    # bob's grace runs out (0.5 s here): he finishes `disconnected`, the race ends, the name is free
    await alice.wait("finished", timeout=10)
    await eventually(lambda: not server.registry.drivers, what="the race to end")
    again = await connect()
    assert (await again.request("hello", name="bob"))["type"] == "welcome"
    assert (await (await connect()).request("hello", session=session))["code"] == "bad_session"


BAD_NAMES = [
    pytest.param("", id="empty"),
    pytest.param("a", id="too-short"),
    pytest.param("a" * 100, id="far-too-long"),
    pytest.param("a" * 25, id="too-long-25"),
    pytest.param("1alice", id="starts-with-digit"),
    pytest.param("_alice", id="starts-with-underscore"),
    pytest.param("al ice", id="space"),
    pytest.param(" alice", id="leading-space"),
    pytest.param("Zoë", id="non-ascii"),
    pytest.param("ålice", id="non-ascii-first"),
    pytest.param("bob!", id="punctuation"),
]


@pytest.mark.parametrize("request_type", ["register", "hello"])
@pytest.mark.parametrize("name", BAD_NAMES)
async def test_invalid_names_are_bad_name(connect: Connect, request_type: str, name: str) -> None:
    c = await connect()
    ans = await c.request(request_type, name=name)
    assert ans["type"] == "error"
    assert ans["code"] == "bad_name"
    # nothing was opened: the same connection may still say hello
    assert (await c.request("hello", name="okname"))["type"] == "welcome"


@pytest.mark.parametrize("request_type", ["register", "hello"])
async def test_names_of_2_and_24_valid_characters_are_accepted(connect: Connect, request_type: str) -> None:
    answer_type = "registered" if request_type == "register" else "welcome"
    for name in ("ab", "A" + "b" * 10 + "0123456789_-Z", "x9"):
        c = await connect()
        ans = await c.request(request_type, name=name)
        assert ans["type"] == answer_type, (name, ans)
        assert ans["player"]["name"] == name
    long_name = "A" + "b" * 10 + "0123456789_-Z"
    assert len(long_name) == 24


async def test_guest_hello_without_a_name_gets_a_generated_guest_name(connect: Connect) -> None:
    a = await connect()
    b = await connect()
    wa = await a.request("hello")
    wb = await b.request("hello")
    for w in (wa, wb):
        assert w["type"] == "welcome"
        assert w["player"]["name"].startswith("guest-")
        assert len(w["player"]["name"]) > len("guest-")
        assert w["player"]["guest"] is True
        assert w["player"]["kind"] == "human"
    assert wa["player"]["name"] != wb["player"]["name"]
    assert wa["player"]["id"] != wb["player"]["id"]


async def test_guest_hello_with_a_name_welcomes_a_guest(connect: Connect) -> None:
    c = await connect()
    w = await c.request("hello", name="alice")
    assert w["type"] == "welcome"
    assert w["player"]["name"] == "alice"
    assert w["player"]["kind"] == "human"
    assert w["player"]["guest"] is True
    assert set(w["player"]) == {"id", "name", "kind", "guest"}
    assert isinstance(w["session"], str) and w["session"]


async def test_hello_with_an_unknown_session_is_bad_session(connect: Connect) -> None:
    c = await connect()
    ans = await c.request("hello", session="no-such-session-token")
    assert ans["type"] == "error"
    assert ans["code"] == "bad_session"


async def test_hello_with_the_session_of_a_registered_player_resumes_the_same_player(
    connect: Connect,
) -> None:
    a = await connect()
    reg = await a.request("register", name="alice")
    await a.close()
    b = await connect()
    w = await b.request("hello", session=reg["session"])
    assert w["type"] == "welcome"
    assert w["player"] == reg["player"]
    assert w["session"] == reg["session"]


async def test_second_hello_on_the_same_connection_is_already_welcomed(connect: Connect) -> None:
    c = await connect(name="alice")
    for fields in ({"name": "bob"}, {}, {"session": c.session}):  # type: ignore[attr-defined]
        ans = await c.request("hello", **fields)
        assert ans["type"] == "error"
        assert ans["code"] == "already_welcomed"
        assert ans["name"] == "alice"
    reg = await c.request("register", name="bob")
    assert reg["type"] == "error" and reg["code"] == "already_welcomed"


@pytest.mark.parametrize(
    ("request_type", "fields"),
    [
        ("create", {"variant": "terrace"}),
        ("join", {"race": "deadbeef"}),
        ("queue", {"variant": "terrace"}),
        ("move", {"race": "deadbeef", "seq": 1, "move": "S-W"}),
        ("leave", {"race": "deadbeef"}),
        ("start", {"race": "deadbeef"}),
        ("resign", {"race": "deadbeef"}),
        ("unqueue", {}),
    ],
)
async def test_requests_needing_a_player_before_hello_are_hello_first(
    connect: Connect, request_type: str, fields: dict[str, Any]
) -> None:
    c = await connect()
    ans = await c.request(request_type, **fields)
    assert ans["code"] == "hello_first"
    assert ans["re"] == 1
    assert request_type in ans["message"]
    assert ans["type"] == "error"  # errors are {"type": "error", "code": ...} (PROTOCOL.md, Errors)


async def test_races_ping_spectate_subscribe_and_record_work_without_hello(connect: Connect) -> None:
    host = await connect(name="alice")
    race = (await host.request("create", variant="terrace"))["race"]

    c = await connect()
    races = await c.request("races")
    assert races["type"] == "races"
    assert [r["id"] for r in races["races"]] == [race["id"]]
    assert races["finished"] == []

    pong = await c.request("ping")
    assert pong["type"] == "pong"
    assert isinstance(pong["time"], int)

    watching = await c.request("spectate", race=race["id"])
    assert watching["type"] == "spectating"
    assert watching["race"]["id"] == race["id"]
    assert (await c.request("unspectate", race=race["id"]))["type"] == "unspectated"

    sub = await c.request("subscribe", topic="lobby")
    assert sub["type"] == "subscribed"
    assert (await c.request("unsubscribe", topic="lobby"))["type"] == "unsubscribed"

    record = await c.request("record", race=race["id"])
    assert record["type"] == "error"
    assert record["code"] == "not_finished"  # not hello_first: the record request ran

    # and still no player on this connection
    create = await c.request("create", variant="terrace")
    assert create["code"] == "hello_first"


async def test_a_second_connection_taking_over_a_session_closes_the_first_with_4001(
    connect: Connect,
) -> None:
    first = await connect(name="alice")
    second = await connect()
    w = await second.request("hello", session=first.session)  # type: ignore[attr-defined]
    assert w["type"] == "welcome"
    assert w["player"] == first.player  # type: ignore[attr-defined]
    assert w["session"] == first.session  # type: ignore[attr-defined]

    await asyncio.wait_for(first.closed, 5)
    assert first.ws.close_code == 4001
    # the new connection is the player now
    assert (await second.request("ping"))["type"] == "pong"
    created = await second.request("create", variant="terrace")
    assert created["type"] == "created"
    assert created["race"]["players"] == [first.player]  # type: ignore[attr-defined]


async def test_hello_with_the_token_while_connected_elsewhere_takes_over_with_4001(connect: Connect) -> None:
    first = await connect()
    reg = await first.request("register", name="alice")
    second = await connect()
    w = await second.request("hello", token=reg["token"])
    assert w["type"] == "welcome"
    assert w["player"]["id"] == reg["player"]["id"]
    await asyncio.wait_for(first.closed, 5)
    assert first.ws.close_code == 4001


async def test_an_address_may_register_only_so_many_accounts_an_hour(make_server: MakeServer) -> None:
    server = await make_server(registrations_per_hour=2)
    answers = []
    for name in ("first", "first", "second", "third"):  # the taken name costs nothing
        answers.append(await (await Client.open(server.url)).request("register", name=name))
    assert [a.get("code", a["type"]) for a in answers] == [
        "registered",
        "name_taken",
        "registered",
        "too_many_registrations",
    ]
    refused = answers[-1]
    assert 1790 <= refused["retry_after"] <= 1800  # one of the two comes back in half an hour
    assert (
        refused["message"]
        == f"Too many accounts were registered from your address; try again in {refused['retry_after']} s."
    )
    guest = await (await Client.open(server.url)).request("hello", name="third")  # guests are not limited
    assert guest["type"] == "welcome"


async def test_the_memory_store_keeps_only_the_newest_sessions_of_a_flood_of_guests(
    make_server: MakeServer,
) -> None:
    server = await make_server(memory_sessions=3)
    sessions: list[tuple[str, str]] = []
    for n in range(5):  # guests that come and go: each hello puts a session
        c = await Client.open(server.url)
        welcome = await c.request("hello", name=f"flood{n}")
        sessions.append((welcome["session"], welcome["player"]["id"]))
        await c.close()
        gone = welcome["player"]["id"]
        await eventually(lambda gone=gone: server.accounts.get(gone) is None, what="the guest forgotten")
    assert len(server.store._sessions) == 3  # type: ignore[attr-defined]
    first = await Client.open(server.url)
    assert (await first.request("hello", session=sessions[0][0]))["code"] == "bad_session"
    last = await Client.open(server.url)
    welcome = await last.request("hello", session=sessions[-1][0])  # the newest comes back as itself
    assert (welcome["type"], welcome["player"]["id"]) == ("welcome", sessions[-1][1])
    for c in (first, last):
        await c.close()


@pytest.mark.parametrize("name", ["house-greedy-1", "House_Bot", "h0use", "HOUSEKEEPER", "hou-se-x"])
@pytest.mark.parametrize("request_type", ["register", "hello"])
async def test_a_house_name_needs_the_servers_house_key(
    server: RaceServer, connect: Connect, name: str, request_type: str
) -> None:
    c = await connect()
    refused = await c.request(request_type, name=name)
    assert (refused["type"], refused["code"], refused["name"]) == ("error", "name_reserved", name)
    wrong = await c.request(request_type, name=name, house_key="not-the-key")
    assert (wrong["type"], wrong["code"]) == ("error", "bad_house_key")
    assert await server.store.account_by_name(name) is None  # nothing changed
    ok = await c.request(request_type, name=name, house_key=server.accounts.house_key)
    assert ok["type"] in ("welcome", "registered"), ok


@pytest.mark.parametrize("name", ["hous", "ahouse", "horse-1"])
async def test_names_that_only_contain_or_resemble_house_are_anyones(connect: Connect, name: str) -> None:
    assert (await (await connect()).request("register", name=name))["type"] == "registered"


@pytest.mark.parametrize(
    "name", ["guest-3fa9c1", "guest-abc123", "Guest_ABC", "GUEST", "guest-100001", "gueSt_9"]
)
async def test_an_account_may_not_take_a_name_that_reads_like_a_nameless_guests(
    server: RaceServer, connect: Connect, name: str
) -> None:
    c = await connect()
    refused = await c.request("register", name=name)
    assert (refused["type"], refused["code"], refused["name"]) == ("error", "guest_name", name)
    assert await server.store.account_by_name(name) is None  # nothing changed
    # a guest may still come back under such a name (the pages re-say hello with the name they were given)
    assert (await c.request("hello", name=name))["type"] == "welcome"


@pytest.mark.parametrize("name", ["guestbook", "guesthouse", "guests", "guest-xyz", "gu3st-abc"])
async def test_names_that_only_begin_with_guest_are_anyones(connect: Connect, name: str) -> None:
    assert (await (await connect()).request("register", name=name))["type"] == "registered"


async def test_a_nameless_guests_own_name_reads_like_a_guests(connect: Connect) -> None:
    from server import names

    welcome = await (await connect()).request("hello")
    assert welcome["player"]["name"].startswith("guest-")
    assert names.guest_like(welcome["player"]["name"])


async def test_the_server_makes_its_house_key_file_once_and_a_given_key_wins(
    make_server: MakeServer, tmp_path: Path
) -> None:
    path = tmp_path / "keys" / "house.key"
    first = await make_server(house_key_file=str(path))
    key = path.read_text().strip()
    assert first.accounts.house_key == key and len(key) >= 32
    assert path.stat().st_mode & 0o777 == 0o600  # the operator's alone
    second = await make_server(house_key_file=str(path))  # restarted (or a second node): the same key
    assert second.accounts.house_key == key
    given = await make_server(house_key_file=str(path), house_key="operator-chose-this")
    assert given.accounts.house_key == "operator-chose-this"
    c = await Client.open(given.url)
    assert (await c.request("hello", name="house-x", house_key=key))["code"] == "bad_house_key"
    assert (await c.request("hello", name="house-x", house_key="operator-chose-this"))["type"] == "welcome"
    await c.close()
