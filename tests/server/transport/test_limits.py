"""Bad input and limits: a clear error or close code, the connection kept when it can be,
the server never down."""

from __future__ import annotations

import asyncio
import json
import time

import msgpack
import pytest
from websockets.exceptions import InvalidStatus

import server.transport.endpoint
import server.transport.guard
from server.app import RaceServer
from server.transport.limits import AddressBuckets, TokenBucket, address_key
from terrace.wire.protocol import JSON, MSGPACK
from tests.poll import eventually
from tests.server.conftest import Connect, MakeServer
from tests.server.wire import Client
from tests.terrace.positions import SLOW_MOVE, slow_search_position


async def _still_serving(client: Client) -> None:
    pong = await client.request("ping")
    assert pong["type"] == "pong"


def _cannot_read(detail: str) -> str:
    return f"Cannot read that message: {detail}."


# ----- bad input: an error with the exact code, and the connection stays ------------------


@pytest.mark.parametrize(
    ("subprotocol", "frame", "code", "message"),
    [
        (MSGPACK, b"\xc1", "bad_message", _cannot_read("not valid msgpack (FormatError)")),
        (MSGPACK, msgpack.packb({"type": "ping"})[:-2], "bad_message", _cannot_read("not valid msgpack (ValueError)")),
        (MSGPACK, msgpack.packb({"type": "ping"}) + b"\x00", "bad_message", _cannot_read("not valid msgpack (ExtraData)")),
        (MSGPACK, b"\x91" * 3000 + b"\xc0", "bad_message", _cannot_read("not valid msgpack (StackError)")),
        (MSGPACK, b"\x81\xa4type\xa3\xed\xa0\x80", "bad_message", _cannot_read("not valid msgpack (UnicodeDecodeError)")),
        (MSGPACK, "text on a binary subprotocol", "bad_message", _cannot_read("this subprotocol takes msgpack in binary frames")),
        (MSGPACK, msgpack.packb([1, 2]), "bad_message", _cannot_read("a message is a map")),
        (MSGPACK, msgpack.packb({"type": "teleport"}), "unknown_type", "Unknown message type 'teleport'."),
        (MSGPACK, msgpack.packb({"name": "alice"}), "bad_message", _cannot_read("a message needs a string 'type'")),
        (MSGPACK, msgpack.packb({"type": 7}), "bad_message", _cannot_read("a message needs a string 'type'")),
        (MSGPACK, msgpack.packb({"type": "create", "variant": "terrace", "seats": 2.0}), "bad_field", "Field 'seats' must be an integer."),
        (MSGPACK, msgpack.packb({"type": "spectate", "race": b"r1"}), "bad_field", "Field 'race' must be a string."),
        (JSON, "{not json", "bad_message", _cannot_read("not valid JSON (JSONDecodeError)")),
        (JSON, b"\x81\xa4type\xa4ping", "bad_message", _cannot_read("this subprotocol takes JSON in text frames")),
        (JSON, json.dumps(["ping"]), "bad_message", _cannot_read("a message is a map")),
        (JSON, json.dumps({"type": "move", "race": "r", "seq": "1", "move": "W-3"}), "bad_field", "Field 'seq' must be an integer."),
        (JSON, json.dumps({"type": "move", "race": "r", "seq": True, "move": "W-3"}), "bad_field", "Field 'seq' must be an integer."),
        (JSON, json.dumps({"type": "create", "variant": "chess"}), "bad_field", "Field 'variant' must be one of terrace, queen-of-italy, signora, louis."),
        (JSON, json.dumps({"type": "join"}), "bad_field", "Field 'race' is required."),
    ],
    ids=[
        "msgpack-garbage",
        "msgpack-truncated",
        "msgpack-extra-data",
        "msgpack-too-deep",
        "msgpack-bad-utf8",
        "msgpack-text-frame",
        "msgpack-list",
        "unknown-type",
        "no-type",
        "int-type",
        "float-seats",
        "bytes-race",
        "json-garbage",
        "json-binary-frame",
        "json-list",
        "json-string-seq",
        "json-bool-seq",
        "json-bad-variant",
        "json-missing-field",
    ],
)  # fmt: skip
async def test_bad_input_gets_an_error_with_its_code_and_the_connection_stays(
    connect: Connect, subprotocol: str, frame: bytes | str, code: str, message: str
) -> None:
    client = await connect(subprotocol)
    await client.send_raw(frame)
    error = await client.wait("error")
    assert (error["code"], error["message"]) == (code, message)
    assert "re" not in error  # none of these frames carries an id
    await _still_serving(client)
    assert client.inbox == []


@pytest.mark.parametrize(
    ("frame", "answer"),
    [
        # the id is readable: every refusal names it
        (
            json.dumps({"type": "move", "id": 41, "race": 5, "seq": 1, "move": "W-3"}),
            {"code": "bad_field", "re": 41, "field": "race", "message": "Field 'race' must be a string."},
        ),
        (
            json.dumps({"type": "teleport", "id": 42}),
            {"code": "unknown_type", "re": 42, "request": "teleport", "message": "Unknown message type 'teleport'."},
        ),
        (
            json.dumps({"type": "join", "id": 43, "race": "nowhere"}),
            {"code": "hello_first", "re": 43, "request": "join", "message": "Say hello (or register) before 'join'."},
        ),
        (
            json.dumps({"type": "spectate", "id": 44, "race": "nowhere"}),
            {"code": "no_race", "re": 44, "race": "nowhere", "message": "There is no race 'nowhere'."},
        ),
        # the id itself is refused: no re
        (
            json.dumps({"type": "ping", "id": "seven"}),
            {"code": "bad_field", "field": "id", "message": "Field 'id' must be an integer."},
        ),
        (
            json.dumps({"type": "ping", "id": 1.5}),
            {"code": "bad_field", "field": "id", "message": "Field 'id' must be an integer."},
        ),
    ],
    ids=["bad-field", "unknown-type", "handler-refusal", "no-race", "string-id", "float-id"],
)  # fmt: skip
async def test_an_error_echoes_the_request_id_as_re_when_it_is_readable(
    connect: Connect, frame: str, answer: dict[str, object]
) -> None:
    client = await connect(JSON)
    await client.send_raw(frame)
    assert await client.wait("error") == {"type": "error", **answer}
    await _still_serving(client)


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "\\ud800", "id": 1}',  # refused while reading: unknown_type echoes the type
        '{"type": "spectate", "id": 1, "race": "\\ud800"}',  # refused by a handler: no_race echoes the race
    ],
    ids=["in-type", "in-race"],
)
async def test_json_with_a_lone_surrogate_gets_a_bad_message_and_the_connection_stays(
    connect: Connect, frame: str
) -> None:
    # "\ud800" is valid JSON syntax but no Unicode text (the equivalent of invalid UTF-8
    # in msgpack, a bad_message above); an error echoing it cannot be encoded as UTF-8.
    client = await connect(JSON)
    await client.send_raw(frame)
    try:
        error = await client.wait(lambda m: m.get("re") == 1, timeout=2)
    except (TimeoutError, ConnectionError):
        pytest.fail(f"no answer to the request (close code {client.ws.close_code})")
    assert (error["type"], error["code"]) == ("error", "bad_message")
    assert (await asyncio.wait_for(client.request("ping"), 2))["type"] == "pong"


async def test_a_connection_whose_answer_failed_to_send_is_forgotten_when_it_closes(
    make_server: MakeServer,
) -> None:
    # The no_race error echoing "\ud800" fails to encode inside the request worker; whatever
    # a request does, closing its connection must release the connection's slot.
    server = await make_server(max_conns_per_address=1)
    client = await Client.open(server.url, JSON)
    await client.send_raw('{"type": "spectate", "id": 1, "race": "\\ud800"}')
    await client.wait("error")
    await client.close()
    await _open_count(server, 0)
    again = await Client.open(server.url, JSON)  # the address's only slot is free again
    await _still_serving(again)
    await again.close()


# ----- too many bad messages ---------------------------------------------------------------


async def test_more_bad_messages_in_a_row_than_allowed_close_the_connection_with_1008(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_bad_messages=3)
    client = await Client.open(server.url)
    for _ in range(3):
        await client.send_raw(b"\xc1")
    assert [(await client.wait("error"))["code"] for _ in range(3)] == ["bad_message"] * 3
    await _still_serving(client)  # three in a row are allowed, and a good message resets the count
    for _ in range(4):
        await client.send_raw(b"\xc1")
    await asyncio.wait_for(client.closed, 5)
    assert (client.ws.close_code, client.ws.close_reason) == (1008, "too many bad or rate-limited messages")
    assert [m["code"] for m in client.take_all("error")] == ["bad_message"] * 4  # each was answered
    assert client.inbox == []


async def test_a_client_cut_for_bad_messages_hears_the_close_at_once_with_more_frames_unread(
    make_server: MakeServer,
) -> None:
    """The server reads on (and drops) what comes after the cut, so the client's close frame
    gets through: had it stopped reading, the close would wait out websockets' 10 s timeout."""
    server = await make_server(max_bad_messages=3)
    client = await Client.open(server.url)
    sent = time.monotonic()
    for _ in range(300):
        await client.send_raw(b"\xc1")
    await asyncio.wait_for(client.closed, 30)
    assert client.ws.close_code == 1008
    assert time.monotonic() - sent < 5, "the close waited for a timeout"
    assert [m["code"] for m in client.take_all("error")] == ["bad_message"] * 4


# ----- rate limit --------------------------------------------------------------------------


async def test_the_rate_limit_drops_messages_past_the_burst_with_retry_after(make_server: MakeServer) -> None:
    # Real clock: the bucket refills 1 token per 200 ms, so 20 pings sent at once get
    # the 5 of the burst (one more if the sending took 200 ms) and rate_limited for the rest.
    server = await make_server(rate=5, burst=5, max_bad_messages=100)
    client = await Client.open(server.url)
    for i in range(1, 21):
        await client.send({"type": "ping", "id": i})
    answers = [await client.wait(lambda m, i=i: m.get("re") == i) for i in range(1, 21)]
    kinds = [a.get("code", a["type"]) for a in answers]
    assert kinds[:5] == ["pong"] * 5
    assert kinds.count("pong") in (5, 6) and kinds.count("rate_limited") == 20 - kinds.count("pong")
    limited = [a for a in answers if a.get("code") == "rate_limited"]
    assert all(0 < a["retry_after"] <= 0.2 for a in limited)
    # the behaviour tested: a client that waits the retry_after it was told is served again
    await asyncio.sleep(max(a["retry_after"] for a in limited) + 0.02)
    await _still_serving(client)


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    """Every token bucket (each connection's, each address's) reads this clock instead of time.monotonic."""
    fake = _Clock()
    monkeypatch.setattr(
        server.transport.endpoint, "TokenBucket", lambda rate, burst: TokenBucket(rate, burst, fake)
    )
    monkeypatch.setattr(
        server.transport.guard, "AddressBuckets", lambda rate, burst: AddressBuckets(rate, burst, fake)
    )
    return fake


async def _pings(client: Client, ids: range) -> list[dict[str, object]]:
    for i in ids:
        await client.send({"type": "ping", "id": i})
    return [await client.wait(lambda m, i=i: m.get("re") == i) for i in ids]


async def test_the_rate_limit_with_a_stopped_clock_allows_exactly_the_burst(
    make_server: MakeServer, clock: _Clock
) -> None:
    server = await make_server(rate=5, burst=5, max_bad_messages=100)
    client = await Client.open(server.url)
    answers = await _pings(client, range(1, 21))
    assert [a["type"] for a in answers[:5]] == ["pong"] * 5
    assert answers[5:] == [
        {
            "type": "error",
            "code": "rate_limited",
            "message": "Too many messages; wait 0.2 s.",
            "re": i,
            "retry_after": 0.2,
        }
        for i in range(6, 21)
    ]
    clock.now += 0.2  # one token back
    assert [a.get("code", a["type"]) for a in await _pings(client, range(21, 23))] == ["pong", "rate_limited"]
    clock.now += 10  # the bucket refills up to the burst, no further
    answers = await _pings(client, range(23, 29))
    assert [a.get("code", a["type"]) for a in answers] == ["pong"] * 5 + ["rate_limited"]


async def test_retry_after_is_never_rounded_down_to_zero(make_server: MakeServer, clock: _Clock) -> None:
    # With 0.9999 of a token left the wait is 0.5 us: "wait 0.0 s" would send the
    # client straight back into the limit (PROTOCOL.md: resend after retry_after).
    server = await make_server(rate=200, burst=1, max_bad_messages=100)
    client = await Client.open(server.url)
    assert [a["type"] for a in await _pings(client, range(1, 2))] == ["pong"]
    clock.now += 0.9999 / 200
    (limited,) = await _pings(client, range(2, 3))
    assert limited["code"] == "rate_limited"
    assert limited["retry_after"] > 0


async def test_rate_limited_messages_count_towards_the_close(make_server: MakeServer, clock: _Clock) -> None:
    server = await make_server(rate=1, burst=2, max_bad_messages=3)
    client = await Client.open(server.url)
    for i in range(1, 8):
        await client.send({"type": "ping", "id": i})
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1008
    # pings 1 and 2 were admitted (their pongs may be cut by the close); 3-6 refused; 7 never read
    assert [(m["code"], m["re"]) for m in client.take_all("error")] == [
        ("rate_limited", i) for i in range(3, 7)
    ]
    assert all(m["type"] == "pong" and m["re"] in (1, 2) for m in client.inbox), client.inbox


# ----- frame size --------------------------------------------------------------------------


async def test_a_frame_over_the_size_limit_closes_with_1009(make_server: MakeServer) -> None:
    server = await make_server(max_frame=1024)
    client = await Client.open(server.url)
    await client.send({"type": "ping", "id": 1, "pad": "x" * 900})  # under the limit: fine
    assert (await client.wait("pong"))["re"] == 1
    await client.send({"type": "ping", "id": 2, "pad": "x" * 2000})
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1009
    assert client.inbox == []  # no answer to the oversized frame
    other = await Client.open(server.url)  # the server itself is fine
    await _still_serving(other)
    await other.close()


# ----- connections per address -------------------------------------------------------------


async def _open_count(server: RaceServer, n: int) -> None:
    # the server counts a close when the connection's handler ends
    await eventually(lambda: len(server.connections) == n, what=f"{n} open connections")


async def test_connections_past_the_per_address_limit_are_refused_with_429(make_server: MakeServer) -> None:
    server = await make_server(max_conns_per_address=2)
    first, second = await Client.open(server.url), await Client.open(server.url)
    with pytest.raises(InvalidStatus) as info:
        await Client.open(server.url)
    assert info.value.response.status_code == 429
    assert info.value.response.body == b"too many connections from your address\n"
    await first.close()
    await _open_count(server, 1)
    third = await Client.open(server.url)
    await _still_serving(third)
    await _still_serving(second)
    with pytest.raises(InvalidStatus) as info:
        await Client.open(server.url)
    assert info.value.response.status_code == 429
    await second.close()
    await third.close()


async def test_connections_past_the_servers_limit_are_refused_with_503_whatever_their_address(
    make_server: MakeServer,
) -> None:
    """Many addresses, each under its own limit, must not take the server past its open files:
    past max_connections a handshake is answered 503 (and the server says why), not accepted."""
    server = await make_server(max_connections=3, max_conns_per_address=100)
    clients = [await Client.open(server.url) for _ in range(3)]
    with pytest.raises(InvalidStatus) as info:
        await Client.open(server.url)
    assert info.value.response.status_code == 503
    assert info.value.response.body == b"the server is full; try again later\n"
    for c in clients:
        await _still_serving(c)  # those in are served as ever
    await clients[0].close()
    await _open_count(server, 2)
    clients[0] = await Client.open(server.url)  # room again
    await _still_serving(clients[0])
    for c in clients:
        await c.close()


def test_the_server_lowers_its_connection_limit_to_fit_the_open_files_limit_and_says_so() -> None:
    import resource
    import subprocess

    from server.transport.guard import FD_SPARE, REFUSALS
    from tests.server.command import COMMAND, LISTEN, clean_env

    def low_limit() -> None:  # in the child: 400 open files at most
        resource.setrlimit(resource.RLIMIT_NOFILE, (400, 400))

    proc = subprocess.Popen(
        [COMMAND, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=clean_env(), preexec_fn=low_limit,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and LISTEN.match(proc.stdout.readline().strip())
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    room = 400 - FD_SPARE - REFUSALS
    assert f"max_connections lowered from 12000 to {room} to fit the open-files limit (ulimit -n)" in err


async def test_simultaneous_connections_past_the_per_address_limit_are_refused(
    make_server: MakeServer,
) -> None:
    # Handshakes racing each other are refused with 429 or, if they slip past the
    # handshake check together, closed with 1008 at once: never more than the limit stay.
    server = await make_server(max_conns_per_address=2)
    results = await asyncio.gather(*(Client.open(server.url) for _ in range(6)), return_exceptions=True)
    clients = [r for r in results if isinstance(r, Client)]
    refused = [r for r in results if isinstance(r, InvalidStatus)]
    assert len(clients) + len(refused) == 6
    assert all(r.response.status_code == 429 for r in refused)
    await eventually(lambda: sum(not c.closed.done() for c in clients) == 2, what="all but two to be closed")
    open_ = [c for c in clients if not c.closed.done()]
    assert len(open_) == 2
    assert all(c.ws.close_code == 1008 for c in clients if c.closed.done())
    for c in open_:
        await _still_serving(c)
    assert len(server.connections) == 2
    for c in open_:
        await c.close()


# ----- pending queue -----------------------------------------------------------------------


async def test_requests_past_the_pending_queue_are_refused_busy_and_busy_never_closes(
    make_server: MakeServer,
) -> None:
    # A move whose lost search runs to SEARCH_LIMIT in a worker process (~0.3 s) keeps
    # this connection's request worker waiting; the reader keeps reading meanwhile.
    # Three busy in a row against a limit of one bad message: busy is flow control, not a strike.
    server = await make_server(max_pending=2, max_bad_messages=1)
    player = await Client.open(server.url)
    await player.request("hello", name="slowpoke")
    race_id = (await player.request("create", variant="signora", seats=1))["race"]["id"]
    await player.request("start", race=race_id)
    await player.wait("started")
    race = server.registry.drivers[race_id].race
    next(iter(race.seats.values())).game = slow_search_position()
    await player.send({"type": "move", "id": 100, "race": race_id, "seq": 1, "move": SLOW_MOVE})
    searches = server.registry.searches
    # wait until the worker is inside the search, not for a guessed time
    await eventually(lambda: searches._running, what="the lost search to start")
    watcher = await Client.open(server.url)  # another connection is served during the search
    await _still_serving(watcher)
    assert searches._running, "the search ended too soon for this test"
    for i in range(201, 206):
        await player.send({"type": "ping", "id": i})
    answers = [await player.wait(lambda m, i=i: m.get("re") == i) for i in range(201, 206)]
    assert [a.get("code", a["type"]) for a in answers] == ["pong", "pong", "busy", "busy", "busy"]
    assert answers[2] == {
        "type": "error",
        "code": "busy",
        "message": "Too many requests are waiting on this connection; wait for their answers.",
        "re": 203,
    }
    order = [msgpack.unpackb(f).get("re") for f in player.frames]
    assert order.index(100) < order.index(201)  # answered in order: the move before the queued pings
    assert (await player.wait(lambda m: m.get("re") == 100))["type"] == "moved"
    await _still_serving(player)
    await watcher.close()


# ----- cost: bytes count, and an address's bucket outlives its connections ---------------


async def test_a_large_message_costs_its_size_in_tokens(make_server: MakeServer, clock: _Clock) -> None:
    # 100 tokens; a 60 KiB ping costs 1 + 60 = 61, so the second one is refused while
    # small pings (1 token each) still go through with what is left.
    server = await make_server(rate=100, burst=100, bytes_per_token=1024, max_bad_messages=100)
    client = await Client.open(server.url)
    pad = "x" * 60 * 1024
    await client.send({"type": "ping", "id": 1, "pad": pad})
    await client.send({"type": "ping", "id": 2, "pad": pad})
    first, second = [await client.wait(lambda m, i=i: m.get("re") == i) for i in (1, 2)]
    assert first["type"] == "pong"
    assert second["code"] == "rate_limited" and second["retry_after"] == 0.22  # 22 tokens short at 100/s
    assert [a["type"] for a in await _pings(client, range(3, 42))] == ["pong"] * 39
    assert (await _pings(client, range(42, 43)))[0]["code"] == "rate_limited"


async def test_reconnecting_from_one_address_gets_no_fresh_tokens(
    make_server: MakeServer, clock: _Clock
) -> None:
    # The address's bucket (20 tokens, refilled at 10 a second) is shared by its
    # connections and outlives them; each connection's own bucket is much larger. A
    # handshake costs 10, and refused frames cost too: the 11th ping leaves it owing one.
    server = await make_server(address_rate=10, address_burst=20, max_bad_messages=100)
    first = await Client.open(server.url)
    answers = await _pings(first, range(1, 12))
    assert [a.get("code", a["type"]) for a in answers] == ["pong"] * 10 + ["rate_limited"]
    await first.close()
    clock.now += 1.1  # back to 10: enough for a handshake, and no more
    again = await Client.open(server.url)
    (refused,) = await _pings(again, range(1, 2))
    assert refused == {**refused, "code": "rate_limited", "retry_after": 0.1}
    clock.now += 0.25  # that refusal cost one more
    assert (await _pings(again, range(2, 3)))[0]["type"] == "pong"
    await again.close()


@pytest.mark.parametrize(
    ("ip", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),  # the same /64: one address for the limits
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),  # the next /64: another
        ("::ffff:203.0.113.7", "203.0.113.7"),  # IPv4 mapped into IPv6 counts as the IPv4 address
        ("?", "?"),
    ],
)
def test_per_address_limits_count_an_ipv6_host_by_its_64(ip: str, key: str) -> None:
    assert address_key(ip) == key
