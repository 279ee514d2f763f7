"""Races that never start: caps on unstarted races per player and per address, expiry,
and a lobby listing that comes in pages."""

from __future__ import annotations

from tests.poll import eventually
from tests.server.conftest import MakeServer
from tests.server.wire import Client


async def _guest(url: str, name: str) -> Client:
    client = await Client.open(url)
    assert (await client.request("hello", name=name))["type"] == "welcome"
    return client


async def test_a_player_may_have_only_so_many_unstarted_races(make_server: MakeServer) -> None:
    server = await make_server(max_open_races_per_player=3)
    alice = await _guest(server.url, "alice")
    made = [await alice.request("create", variant="terrace", join=False) for _ in range(3)]
    assert [m["type"] for m in made] == ["created"] * 3
    refused = await alice.request("create", variant="terrace", join=False)
    assert refused == {
        "type": "error",
        "re": refused["re"],
        "code": "too_many_races",
        "message": "Too many races created by you are waiting to start (at most 3); start or leave one first.",
        "by": "you",
        "limit": 3,
    }
    # a race that starts no longer counts (someone must be in it to start it)
    bob = await _guest(server.url, "bob")
    assert (await bob.request("join", race=made[0]["race"]["id"]))["type"] == "joined"
    assert (await alice.request("start", race=made[0]["race"]["id"]))["type"] == "starting"
    assert (await alice.request("create", variant="terrace", join=False))["type"] == "created"
    assert len(server.registry.drivers) == 4  # the refused one was never made
    await alice.close()
    await bob.close()


async def test_an_address_may_have_only_so_many_unstarted_races_whoever_asks(make_server: MakeServer) -> None:
    server = await make_server(max_open_races_per_player=3, max_open_races_per_address=4)
    first = await _guest(server.url, "first")
    for _ in range(3):
        assert (await first.request("create", variant="terrace", join=False))["type"] == "created"
    await first.close()
    second = await _guest(server.url, "second")  # a new name from the same address
    assert (await second.request("create", variant="terrace", join=False))["type"] == "created"
    refused = await second.request("create", variant="terrace", join=False)
    assert (refused["code"], refused["by"], refused["limit"]) == ("too_many_races", "your address", 4)
    assert refused["message"].startswith("Too many races created by your address are waiting to start")
    await second.close()


async def test_a_race_nobody_starts_in_time_is_cancelled_and_its_seat_freed(make_server: MakeServer) -> None:
    server = await make_server(open_race_timeout=0.3)
    watcher = await Client.open(server.url)
    assert (await watcher.request("subscribe", topic="lobby"))["type"] == "subscribed"
    alice = await _guest(server.url, "alice")
    race_id = (await alice.request("create", variant="terrace", seats=2))["race"]["id"]
    empty = (await alice.request("create", variant="terrace", join=False))["race"]["id"]
    for rid in (race_id, empty):
        news = await watcher.wait(
            lambda m, rid=rid: (
                m["type"] == "race" and m["race"]["id"] == rid and m["race"]["state"] == "cancelled"
            )
        )
        assert news["race"]["state"] == "cancelled"
    await eventually(lambda: not server.registry.drivers, what="both races to be gone")
    assert b"terrace_races_expired_total 2.0" in server.metrics.text()
    # alice was freed: she may sit in a new race at once
    assert (await alice.request("create", variant="terrace"))["type"] == "created"
    for c in (watcher, alice):
        await c.close()


async def test_the_race_list_comes_in_pages(make_server: MakeServer) -> None:
    server = await make_server(races_page=5, max_open_races_per_player=12)
    alice = await _guest(server.url, "alice")
    ids = [(await alice.request("create", variant="terrace", join=False))["race"]["id"] for _ in range(12)]
    first = await alice.request("races")
    assert [r["id"] for r in first["races"]] == ids[:5]
    assert (first["total"], first["next"]) == (12, 5)
    second = await alice.request("races", start=first["next"])
    assert [r["id"] for r in second["races"]] == ids[5:10] and second["next"] == 10
    last = await alice.request("races", start=10)
    assert [r["id"] for r in last["races"]] == ids[10:] and "next" not in last and last["total"] == 12
    lobby = await alice.request("subscribe", topic="lobby")  # the lobby's first answer is a page too
    assert [r["id"] for r in lobby["races"]] == ids[:5] and (lobby["total"], lobby["next"]) == (12, 5)
    await alice.close()


async def _account(url: str, name: str, source: str = "127.0.0.1") -> Client:
    client = await Client.open(url, local_addr=(source, 0))
    assert (await client.request("register", name=name))["type"] == "registered"
    return client


async def test_a_race_created_rated_seats_one_account_per_address(make_server: MakeServer) -> None:
    server = await make_server(rated_seats_per_address=1)
    alice, bob = await _account(server.url, "alice"), await _account(server.url, "bob")
    created = await alice.request("create", variant="terrace", seats=3, rated=True)
    race = created["race"]["id"]
    assert created["race"]["rated"] is True and "unrated" not in created["race"]
    refused = await bob.request("join", race=race)
    assert (refused["code"], refused["race"]) == ("same_address", race)
    assert refused["message"] == (  # it says how they could race each other
        f"Another registered player in race {race} plays from your address or client, and it was created "
        "rated, which takes one account per address and client. To race each other, create a race without "
        "'rated' (terrace play --create, or Create on the play page): it goes ahead unrated."
    )
    guest = await _guest(server.url, "carol")  # a guest never makes a race rated: welcome
    assert (await guest.request("join", race=race))["type"] == "joined"
    dave = await _account(server.url, "dave", source="127.0.0.2")  # another address: welcome
    assert (await dave.request("join", race=race))["type"] == "joined"
    for c in (alice, bob, guest, dave):
        await c.close()


async def test_friends_on_one_network_race_each_other_unrated_told_before_it_starts(
    make_server: MakeServer,
) -> None:
    """Two accounts of one address in a created race: the join goes ahead, the race is unrated,
    and everyone in it hears so (the joined answer, the race push, the started push) before the
    first view; the finished race moves no rating and reaches no board."""
    server = await make_server(rated_seats_per_address=1)
    alice, bob = await _account(server.url, "alice"), await _account(server.url, "bob")
    created = await alice.request("create", variant="terrace", seats=2, start="full")
    race = created["race"]["id"]
    assert "unrated" not in created["race"]
    joined = await bob.request("join", race=race)
    assert (joined["type"], joined["race"]["unrated"]) == ("joined", "same_address")
    pushed = await alice.wait(
        lambda m: m.get("type") == "race" and m["race"].get("unrated") == "same_address"
    )
    assert [p["name"] for p in pushed["race"]["players"]] == ["alice", "bob"]
    for c in (alice, bob):
        started = await c.wait("started")
        assert started["unrated"] == "same_address"
    for c in (alice, bob):
        await c.request("resign", race=race)
    await alice.wait("finished")
    record = await eventually(lambda: server.archive.record(race), what="the record")
    assert record["unrated"] == "same_address"
    await eventually(lambda: not server.archive._saving, what="the boards' writes")
    board = await alice.request("leaderboard", board="rating", variant="terrace", pool="humans")
    assert board["rows"] == []  # no rating moved
    for c in (alice, bob):
        await c.close()


async def test_a_race_made_unrated_is_rated_again_when_one_of_the_two_leaves_before_the_start(
    make_server: MakeServer,
) -> None:
    server = await make_server(rated_seats_per_address=1)
    alice, bob = await _account(server.url, "alice"), await _account(server.url, "bob")
    race = (await alice.request("create", variant="terrace", seats=3))["race"]["id"]
    assert (await bob.request("join", race=race))["race"]["unrated"] == "same_address"
    assert (await bob.request("leave", race=race))["type"] == "left"
    pushed = await alice.wait(lambda m: m.get("type") == "race" and len(m["race"]["players"]) == 1)
    assert "unrated" not in pushed["race"]
    dave = await _account(server.url, "dave", source="127.0.0.2")  # another address: rated as ever
    assert "unrated" not in (await dave.request("join", race=race))["race"]
    for c in (alice, bob, dave):
        await c.close()


async def test_matchmaking_never_puts_two_accounts_of_one_address_in_a_race(make_server: MakeServer) -> None:
    server = await make_server(rated_seats_per_address=1, queue_seats=2, queue_wait=0.1)
    alice, bob = await _account(server.url, "alice"), await _account(server.url, "bob")
    for c in (alice, bob):
        assert (await c.request("queue", variant="terrace"))["type"] == "queued"
    carol = await _account(server.url, "carol", source="127.0.0.2")
    assert (await carol.request("queue", variant="terrace"))["type"] == "queued"
    started = await carol.wait("started")
    names = {p["name"] for p in started["players"]}
    assert "carol" in names and len(names & {"alice", "bob"}) == 1
    waiting = bob if "alice" in names else alice
    assert not waiting.take_all("started")
    assert server.matchmaking.queues  # the other one still waits for someone from elsewhere
    for c in (alice, bob, carol):
        await c.close()


async def test_without_the_limit_accounts_of_one_address_race_together(make_server: MakeServer) -> None:
    server = await make_server(rated_seats_per_address=0)
    alice, bob = await _account(server.url, "alice"), await _account(server.url, "bob")
    race = (await alice.request("create", variant="terrace", seats=2))["race"]["id"]
    assert (await bob.request("join", race=race))["type"] == "joined"
    for c in (alice, bob):
        await c.close()


async def test_a_race_seats_one_account_per_client_install_whatever_the_address(
    make_server: MakeServer,
) -> None:
    server = await make_server(rated_seats_per_address=1)
    alice = await Client.open(server.url, local_addr=("127.0.0.2", 0))
    assert (await alice.request("register", name="alice", client="install-0001"))["type"] == "registered"
    race = (await alice.request("create", variant="terrace", seats=3, rated=True))["race"]["id"]
    bob = await Client.open(server.url, local_addr=("127.0.0.3", 0))  # another address, the same install
    assert (await bob.request("register", name="bob", client="install-0001"))["type"] == "registered"
    assert (await bob.request("join", race=race))["code"] == "same_address"
    carol = await Client.open(server.url, local_addr=("127.0.0.4", 0))
    assert (await carol.request("register", name="carol", client="install-0002"))["type"] == "registered"
    assert (await carol.request("join", race=race))["type"] == "joined"
    for c in (alice, bob, carol):
        await c.close()
