"""Challenges over the protocol: a creator races a secret winnable deal, others race it later
against the creator's ghost, the creator rematches against everyone's, and the deal stays secret
until the creator reveals it."""

from __future__ import annotations

from typing import Any

from server.app import RaceServer
from terrace.race.audit import audit
from terrace.rules.deal import commitment
from terrace.wire.protocol import MSGPACK
from tests.poll import eventually
from tests.server.conftest import FAST, Connect, servers
from tests.server.features.test_daily import registered
from tests.server.wire import Client

Message = dict[str, Any]


async def attempt(c: Client, answer: Message, moves: int) -> Message:
    """Play ``moves`` first-legal moves of a challenge attempt, then resign; its ``started``."""
    assert answer["type"] == "challenge_playing", answer
    race = answer["race"]
    started = await c.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    legal = started["legal"]
    for seq in range(1, moves + 1):
        moved = await c.request("move", race=race, seq=seq, move=legal[0])
        legal = moved["legal"]
    assert (await c.request("resign", race=race))["type"] == "resigned"
    finished = await c.wait(lambda m: m.get("type") == "finished" and m["race"] == race)
    assert "seed" not in finished  # the deal stays secret
    return started


async def test_a_challenge_is_raced_later_against_ghosts_and_stays_secret_until_revealed(
    server: RaceServer, connect: Connect
) -> None:
    maker = await registered(server.url, "Maker")
    created = await maker.request("challenge_create", variant="terrace")
    cid = created["challenge"]
    first = await attempt(maker, created, moves=2)

    passer = await connect(MSGPACK, name="Passer")  # a guest may look, not race it while it is secret
    assert (await passer.request("challenge_play", challenge=cid))["code"] == "challenge_account_needed"
    taker = await registered(server.url, "Taker")  # any account with the id
    info = await taker.request("challenge", challenge=cid)
    assert info["commitment"] == first["commitment"] and "seed" not in info and info["revealed"] is False
    joined = await taker.request("challenge_play", challenge=cid)
    assert joined["ghosts"] == 1 and joined["commitment"] == first["commitment"]
    race = joined["race"]
    standings = await taker.wait(lambda m: m.get("type") == "standings" and m["race"] == race)
    assert [r["player"]["name"] for r in standings["rows"] if r["player"].get("ghost")] == ["Maker"]
    second = await attempt(taker, joined, moves=0)
    assert second["view"] == first["view"]
    assert [m for m in taker.inbox if "move_list" in m or m.get("type") == "moved"] == []

    async def both_on_the_board() -> bool:
        rows = (await taker.request("challenge", challenge=cid))["board"]
        return sorted(r["player"]["name"] for r in rows) == ["Maker", "Taker"]

    await eventually(both_on_the_board, what="both first attempts on the challenge's board")
    rematch = await maker.request("challenge_play", challenge=cid)  # the creator's rematch
    assert rematch["ghosts"] == 2
    again = await attempt(maker, rematch, moves=0)
    assert again["view"] == first["view"]
    # a wrongly kept rematch would be written by the attempts' background saves: wait them out
    await eventually(lambda: not server.attempts._tasks, what="the attempts kept in the store")
    assert await both_on_the_board()  # first attempts only

    assert (await taker.request("record", race=first["race"]))["code"] == "no_race"
    refused = await taker.request("challenge_reveal", challenge=cid)
    assert refused["code"] == "not_challenge_creator", refused
    revealed = await maker.request("challenge_reveal", challenge=cid)
    assert commitment(bytes.fromhex(revealed["seed"])) == first["commitment"]
    record = (await taker.request("record", race=first["race"]))["race"]
    assert record["seed"] == revealed["seed"] and audit(record).ok


async def test_an_unknown_challenge_is_refused(server: RaceServer, connect: Connect) -> None:
    c = await connect(MSGPACK, name="Lost")
    for kind in ("challenge", "challenge_play", "challenge_reveal"):
        answer = await c.request(kind, challenge="c0000000000")
        assert answer["type"] == "error" and answer["code"] == "no_challenge", answer


async def test_bots_race_a_challenge_on_a_board_of_their_own(server: RaceServer) -> None:
    maker = await registered(server.url, "Setter")
    created = await maker.request("challenge_create", variant="terrace")
    cid = created["challenge"]
    await attempt(maker, created, moves=1)
    bot = await registered(server.url, "Linebot", kind="bot")
    joined = await bot.request("challenge_play", challenge=cid)
    assert joined["ghosts"] == 0  # a bot races bots' ghosts, and no bot raced it yet
    await attempt(bot, joined, moves=3)

    async def boards() -> tuple[list[str], list[str]] | None:
        people = await maker.request("challenge", challenge=cid)  # the asker's pool: humans
        bots = await maker.request("challenge", challenge=cid, pool="bots")
        assert (people["pool"], bots["pool"]) == ("humans", "bots")
        names = [r["player"]["name"] for r in people["board"]], [r["player"]["name"] for r in bots["board"]]
        return names if all(names) else None

    assert await eventually(boards, what="both first attempts kept") == (["Setter"], ["Linebot"])
    mine = await bot.request("challenge", challenge=cid)  # a bot's own pool by default
    assert mine["pool"] == "bots" and mine["attempt"]["state"] == "finished"
    taker = await registered(server.url, "Person")
    assert (await taker.request("challenge_play", challenge=cid))["ghosts"] == 1  # Setter's only


async def test_a_guest_cannot_make_a_challenge(server: RaceServer, connect: Connect) -> None:
    guest = await connect(MSGPACK, name="Drifter")
    refused = await guest.request("challenge_create", variant="terrace")
    assert refused["type"] == "error" and refused["code"] == "challenge_create_account_needed", refused
    assert "Only an account can make a challenge" in refused["message"]
    assert guest.take_all("started") == []


async def test_no_second_attempt_starts_on_another_node_while_the_first_runs_and_the_first_counts(
    redis_url: str,
) -> None:
    async with servers(FAST) as make:
        a, b = [await make(redis_url=redis_url) for _ in range(2)]  # one store: the claim is one
        maker = await registered(a.url, "Poser")
        created = await maker.request("challenge_create", variant="terrace")
        cid = created["challenge"]
        await attempt(maker, created, moves=1)
        reader = await registered(a.url, "Reader")
        first = await reader.request("challenge_play", challenge=cid)  # under way here...
        again = await Client.open(b.url, MSGPACK)  # ...the same account, on the other node
        assert (await again.request("hello", token=reader.token))["type"] == "welcome"  # type: ignore[attr-defined]
        refused = await again.request("challenge_play", challenge=cid)  # would read the deal for it
        assert (refused["type"], refused["code"], refused["race"]) == (
            "error",
            "already_in_race",
            first["race"],
        )
        await attempt(reader, first, moves=2)
        rematch = await again.request("challenge_play", challenge=cid)  # once it is over: a rematch
        assert rematch["type"] == "challenge_playing"
        await attempt(again, rematch, moves=1)

        async def readers_row() -> dict[str, Any] | None:
            answer = await maker.request("challenge", challenge=cid)
            rows = [r for r in answer["board"] if r["player"]["name"] == "Reader"]
            return rows[0] if rows else None

        row = await eventually(readers_row, what="Reader's first attempt on the board")
        mine = (await reader.request("challenge", challenge=cid))["attempt"]
        assert mine["race"] == first["race"], mine  # the first, not the rematch
        assert row["score"] == mine["score"]
