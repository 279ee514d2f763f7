"""Boards a scout cannot top: one account reads a deal's stock, a second races the solved line;
neither reaches a board, the second is flagged for the operator, who can void and restore it.
A new account counts on no board until it is established."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.app import RaceServer
from terrace.solve import WON, solve
from terrace.solve.imagine import imagine
from terrace.wire.protocol import MSGPACK
from tests.poll import eventually
from tests.server.command import COMMAND, clean_env
from tests.server.conftest import FAST, servers
from tests.server.features.test_daily import SECRET, registered
from tests.server.wire import Client

Message = dict[str, Any]

# the server's own rules, but an account is established by one rated race and no age (a test
# cannot wait a day): the scout has none, its accomplice and the honest player one each
GUARDED = dataclasses.replace(
    FAST, established_races=1, established_hours=0.0, pace_check=True, daily_secret=SECRET
)


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    async with servers(GUARDED) as make:
        yield await make()


async def _established(url: str, name: str, partner: str) -> Client:
    """An account with one finished rated race (against ``partner``, who resigns at once)."""
    c, other = await registered(url, name), await registered(url, partner)
    created = await c.request("create", variant="terrace", seats=2, start="full")
    race = created["race"]["id"]
    assert (await other.request("join", race=race))["type"] == "joined"
    await c.wait("started")
    await other.wait("started")
    for player in (other, c):
        resigned = await player.request("resign", race=race)
        assert resigned["type"] == "resigned", resigned
    await c.wait("finished")
    await other.close()
    return c


async def _read_the_stock(scout: Client, race: str, started: Message) -> list[str]:
    """Play the base choice and turn the whole stock, noting every card as it comes into view;
    then give up. The cards in deal order, after the first view's."""
    first = started["view"]
    moved = await scout.request("move", race=race, seq=1, move="2-F1")
    view = moved["view"]
    order = [view["piles"]["2"][-1], *(view["piles"][str(p)][-1] for p in range(5, 10))]
    seq = 1
    while view["stock"]:
        seq += 1
        moved = await scout.request("move", race=race, seq=seq, move="S-W")
        view = moved["view"]
        order.append(view["waste"][-1])
    assert len(order) == first["stock"]
    if "finish" not in moved:  # (with the stock turned through, the game may be stuck already)
        assert (await scout.request("resign", race=race))["type"] == "resigned"
    return order


def _line(first_view: Message, order: list[str]) -> list[str]:
    """The solver's winning line on the deal the scout read, up to the race's goal (the terrace
    cleared)."""
    game = imagine(first_view, order)
    answer = solve(game.copy(), nodes=2_000_000)
    assert answer.verdict == WON
    line: list[str] = []
    for move in answer.moves:
        line.append(game.play(move))
        if game.terrace_left == 0:
            return line
    return line


async def _pipeline(c: Client, race: str, moves: list[str]) -> Message:
    """Send the moves as fast as the server takes them (16 waiting at a time, within its limit),
    as a program told the deal would; the last answer."""
    answers: list[Message] = []
    for first in range(0, len(moves), 16):
        window = list(enumerate(moves[first : first + 16], first + 1))
        for seq, move in window:
            await c.send({"type": "move", "id": 1000 + seq, "race": race, "seq": seq, "move": move})
        for seq, _ in window:
            answers.append(await c.wait(lambda m, s=seq: m.get("re") == 1000 + s, timeout=30))
    assert all(a["type"] == "moved" for a in answers), [a for a in answers if a["type"] != "moved"][:1]
    return answers[-1]


async def test_a_scout_and_its_accomplice_reach_no_daily_board_and_the_accomplice_is_flagged(
    server: RaceServer,
) -> None:
    # the day's deal is three days ahead: accounts made now were made before its commitment was out
    ahead = time.time() + 3 * 86_400
    server.daily.clock = lambda: ahead
    honest = await _established(server.url, "Honest", "Sparring1")
    accomplice = await _established(server.url, "Accomplice", "Sparring2")
    scout = await registered(server.url, "Scout")  # made for the job: no race behind it
    answer = await scout.request("daily_play", variant="terrace")
    started = await scout.wait("started")
    line = _line(started["view"], await _read_the_stock(scout, answer["race"], started))

    answer = await accomplice.request("daily_play", variant="terrace")
    await accomplice.wait("started")
    last = await _pipeline(accomplice, answer["race"], line)
    assert last.get("finish") == "goal"  # the solved line, raced in a blink
    answer = await honest.request("daily_play", variant="terrace")
    started = await honest.wait("started")
    assert (await honest.request("move", race=answer["race"], seq=1, move=started["legal"][0]))[
        "type"
    ] == "moved"
    assert (await honest.request("resign", race=answer["race"]))["type"] == "resigned"

    async def board() -> list[str] | None:
        day = await honest.request("daily", variant="terrace")
        names = [r["player"]["name"] for r in day["board"]]
        return names if names else None

    assert await eventually(board, what="the honest attempt on the board") == ["Honest"]
    mine = await accomplice.request("daily", variant="terrace")
    assert mine["attempt"]["held"] == "inhuman_pace" and mine["attempt"]["goal"] is True
    theirs = await scout.request("daily", variant="terrace")
    assert theirs["attempt"]["held"] == "inhuman_pace"  # a program turned its stock through
    flags = await eventually(lambda: server.fairplay.flags(), what="the accomplice flagged")
    assert {(f["player"]["name"], f["reason"]) for f in flags} == {
        ("Accomplice", "inhuman_pace"),
        ("Scout", "inhuman_pace"),
    }
    held = next(f["held"] for f in flags if f["player"]["name"] == "Accomplice")
    assert held[0]["board"].startswith("daily:terrace:")


async def test_a_challenges_scout_its_accomplice_and_an_account_made_after_it_reach_no_board_of_it() -> None:
    # established: one rated race, and older than a third of a second at its attempt's end (and,
    # for a challenge, made before it)
    async with servers(dataclasses.replace(GUARDED, established_hours=0.0001)) as make:
        server = await make()
        accomplice = await _established(server.url, "Sly", "Sparring5")
        honest = await _established(server.url, "Fair", "Sparring6")
        scout = await registered(server.url, "Snoop")  # the creator reads its own deal
        created = await scout.request("challenge_create", variant="terrace")
        cid = created["challenge"]
        started = await scout.wait("started")
        line = _line(started["view"], await _read_the_stock(scout, created["race"], started))
        late = await _established(server.url, "Latecomer", "Sparring7")  # made after the challenge
        made = (await server.store.account_by_name("Latecomer")).created_at  # type: ignore[union-attr]
        # old enough by age (a third of a second here): only its making after the challenge holds it
        await eventually(lambda: time.time() * 1000 - made > 400, what="Latecomer old enough")

        joined = await accomplice.request("challenge_play", challenge=cid)
        await accomplice.wait(lambda m: m.get("type") == "started" and m["race"] == joined["race"])
        assert (await _pipeline(accomplice, joined["race"], line)).get("finish") == "goal"
        joined = await honest.request("challenge_play", challenge=cid)
        began = await honest.wait(lambda m: m.get("type") == "started" and m["race"] == joined["race"])
        moved = await honest.request("move", race=joined["race"], seq=1, move=began["legal"][0])
        assert moved["type"] == "moved"
        assert (await honest.request("resign", race=joined["race"]))["type"] == "resigned"

        async def board() -> list[str] | None:
            rows = (await honest.request("challenge", challenge=cid))["board"]
            return [r["player"]["name"] for r in rows] or None

        assert await eventually(board, what="the honest attempt on the board") == ["Fair"]
        joined = await late.request("challenge_play", challenge=cid)
        assert joined["ghosts"] == 1  # Fair's: a held attempt is nobody's ghost
        began = await late.wait(lambda m: m.get("type") == "started" and m["race"] == joined["race"])
        moved = await late.request("move", race=joined["race"], seq=1, move=began["legal"][0])
        assert moved["type"] == "moved"
        assert (await late.request("resign", race=joined["race"]))["type"] == "resigned"

        async def held(c: Client) -> Message | None:
            mine = (await c.request("challenge", challenge=cid))["attempt"]
            return mine if "held" in mine else None

        assert (await eventually(lambda: held(late), what="the late attempt kept"))["held"] == "new_account"
        sly = await eventually(lambda: held(accomplice), what="the accomplice's attempt kept")
        assert sly["held"] == "inhuman_pace" and sly["goal"] is True
        assert (await eventually(lambda: held(scout), what="the scout's attempt kept"))[
            "held"
        ] == "inhuman_pace"
        mine = (await honest.request("challenge", challenge=cid))["attempt"]
        assert mine["state"] == "finished" and "held" not in mine
        assert await board() == ["Fair"]
        flags = await server.fairplay.flags()
        assert {(f["player"]["name"], f["reason"]) for f in flags} == {
            ("Sly", "inhuman_pace"),
            ("Snoop", "inhuman_pace"),
        }
        assert (
            next(f for f in flags if f["player"]["name"] == "Sly")["held"][0]["board"] == f"challenge:{cid}"
        )


async def test_beating_an_account_that_does_not_count_moves_no_board_and_no_rating(
    server: RaceServer,
) -> None:
    elder = await _established(server.url, "Elder", "Sparring8")

    async def rating_of(name: str) -> dict[str, Any] | None:
        page = await elder.request("player", name=name)
        return next((r for r in page.get("ratings", []) if r["variant"] == "terrace"), None)

    before = await eventually(lambda: rating_of("Elder"), what="Elder's first race rated")
    for i in range(3):  # a throwaway account that loses on purpose, race after race
        puppet = await registered(server.url, f"Puppet{i}")
        race = (await elder.request("create", variant="terrace", seats=2, start="full", rated=True))["race"][
            "id"
        ]
        assert (await puppet.request("join", race=race))["type"] == "joined"
        started = await elder.wait(lambda m, r=race: m.get("type") == "started" and m["race"] == r)
        assert (await puppet.request("resign", race=race))["type"] == "resigned"
        assert (await elder.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
        assert (await elder.request("resign", race=race))["type"] == "resigned"
        finished = await elder.wait(lambda m, r=race: m.get("type") == "finished" and m["race"] == r)
        assert finished["results"][0]["player"]["name"] == "Elder"  # it won each one

    async def puppets_rated() -> bool:  # (the puppets' own ratings and race counts move)
        return all([await rating_of(f"Puppet{i}") for i in range(3)])

    await eventually(puppets_rated, what="the puppets' races counted for them")
    assert await rating_of("Elder") == before  # not one of the three wins moved it
    wins = await elder.request("leaderboard", board="wins", variant="terrace")
    assert "Elder" not in [r["player"]["name"] for r in wins["rows"]]


async def _from(url: str, address: str, name: str) -> Client:
    """A new account registered from ``address`` (the test's server trusts the local proxy's word)."""
    c = await Client.open(url, MSGPACK, additional_headers={"X-Forwarded-For": address})
    answer = await c.request("register", name=name)
    assert answer["type"] == "registered", answer
    return c


async def _established_at(url: str, address: str, name: str) -> Client:
    """An account from ``address`` with one finished rated race, against a partner elsewhere."""
    c, other = await _from(url, address, name), await _from(url, "10.9.9.9", f"{name}Foil")
    race = (await c.request("create", variant="terrace", seats=2, start="full"))["race"]["id"]
    assert (await other.request("join", race=race))["type"] == "joined"
    for player in (other, c):
        await player.wait("started")
        assert (await player.request("resign", race=race))["type"] == "resigned"
    await c.wait("finished")
    await other.close()
    return c


async def _one_move_and_resign(c: Client, answer: Message) -> None:
    race = answer["race"]
    started = await c.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    assert (await c.request("move", race=race, seq=1, move=started["legal"][0]))["type"] == "moved"
    assert (await c.request("resign", race=race))["type"] == "resigned"


async def test_an_account_beside_a_scout_at_one_address_counts_on_no_daily_or_challenge_board() -> None:
    # the server's default of one account an address, the proxy trusted to say the address
    guarded = dataclasses.replace(GUARDED, rated_seats_per_address=1, trusted_proxies="127.0.0.1")
    async with servers(guarded) as make:
        server = await make()
        server.daily.clock = lambda: time.time() + 3 * 86_400  # accounts made before the day's commitment
        honest = await _established_at(server.url, "10.1.0.1", "Upright")
        patient = await _established_at(server.url, "10.2.0.1", "Patient")
        scout = await _from(server.url, "10.2.0.1", "Peeker")  # new, beside Patient: reads the deal
        await _one_move_and_resign(scout, await scout.request("daily_play", variant="terrace"))
        await _one_move_and_resign(patient, await patient.request("daily_play", variant="terrace"))
        await _one_move_and_resign(honest, await honest.request("daily_play", variant="terrace"))

        async def held(c: Client) -> Message | None:
            attempt = (await c.request("daily", variant="terrace"))["attempt"]
            return attempt if attempt.get("state") == "finished" else None

        assert (await eventually(lambda: held(patient), what="Patient's attempt kept"))[
            "held"
        ] == "same_address"
        assert "held" not in await eventually(lambda: held(honest), what="Upright's attempt kept")
        board = (await honest.request("daily", variant="terrace"))["board"]
        assert [r["player"]["name"] for r in board] == ["Upright"]

        # a challenge: its creator reads its deal, an account beside it races it
        created = await scout.request("challenge_create", variant="terrace")
        await _one_move_and_resign(scout, created)
        for c in (patient, honest):
            await _one_move_and_resign(c, await c.request("challenge_play", challenge=created["challenge"]))

        async def challenge_attempt(c: Client) -> Message | None:
            attempt = (await c.request("challenge", challenge=created["challenge"]))["attempt"]
            return attempt if attempt.get("state") == "finished" else None

        mine = await eventually(lambda: challenge_attempt(patient), what="Patient's challenge attempt")
        assert mine["held"] == "same_address"
        assert "held" not in await eventually(
            lambda: challenge_attempt(honest), what="Upright's challenge attempt"
        )
        assert await server.fairplay.flags() == []  # quietly: a household is no cheat


async def test_a_solved_line_raced_beside_its_scout_reaches_no_fastest_board(server: RaceServer) -> None:
    accomplice = await _established(server.url, "Quick", "Sparring3")
    scout = await registered(server.url, "Reader")
    # a deal the server proved winnable, so the scout's solver finds the line in its budget
    created = await scout.request("create", variant="terrace", seats=2, start="full", deals="winnable")
    race = created["race"]["id"]
    assert (await accomplice.request("join", race=race))["type"] == "joined"
    started = await scout.wait("started")
    await accomplice.wait("started")
    line = _line(started["view"], await _read_the_stock(scout, race, started))
    assert (await _pipeline(accomplice, race, line)).get("finish") == "goal"
    finished = await accomplice.wait("finished")
    assert finished["results"][0]["player"]["name"] == "Quick"

    async def flagged() -> list[Message]:
        return await server.fairplay.flags()

    flags = await eventually(flagged, what="the fast result flagged")
    # both are programs: the scout turned the stock through as fast as the line was raced
    assert {(f["player"]["name"], f["reason"]) for f in flags} == {
        ("Quick", "inhuman_pace"),
        ("Reader", "inhuman_pace"),
    }
    held = {p["board"] for f in flags if f["player"]["name"] == "Quick" for p in f["held"]}
    assert "fastest:terrace:terrace" in held and "wins:terrace" in held and "rating:humans:terrace" in held
    fastest = await scout.request("leaderboard", board="fastest", variant="terrace")
    assert fastest["rows"] == []
    rating = await scout.request("leaderboard", board="rating", variant="terrace", pool="humans")
    assert "Quick" not in [r["player"]["name"] for r in rating["rows"]]


async def test_a_new_account_counts_on_no_board_until_it_is_established() -> None:
    async with servers(dataclasses.replace(GUARDED, established_races=3, established_hours=24.0)) as make:
        server = await make()
        new = await registered(server.url, "Newcomer")
        answer = await new.request("daily_play", variant="terrace")
        started = await new.wait("started")
        assert (await new.request("move", race=answer["race"], seq=1, move=started["legal"][0]))[
            "type"
        ] == "moved"
        assert (await new.request("resign", race=answer["race"]))["type"] == "resigned"

        async def told() -> Message | None:
            day = await new.request("daily", variant="terrace")
            return day if day["attempt"].get("state") == "finished" and "held" in day["attempt"] else None

        day = await eventually(told, what="the attempt kept, held back")
        assert day["attempt"]["held"] == "new_account" and day["board"] == []
        assert await server.fairplay.flags() == []  # a new account is held back quietly, not flagged


async def test_the_operator_lists_flags_voids_and_restores_an_account(redis_url: str) -> None:
    # every account counts at once here (no races or age needed): only the pace holds a result back
    async with servers(dataclasses.replace(GUARDED, redis_url=redis_url, established_races=0)) as make:
        server = await make()
        accomplice = await _established(server.url, "Bolt", "Sparring4")
        scout = await registered(server.url, "Peek")

        async def rated() -> list[str]:
            board = await scout.request("leaderboard", board="rating", variant="terrace", pool="humans")
            return [r["player"]["name"] for r in board["rows"]]

        assert "Bolt" in await eventually(rated, what="Bolt's first race rated")
        # a deal the server proved winnable, so the scout's solver finds the line in its budget
        created = await scout.request("create", variant="terrace", seats=2, start="full", deals="winnable")
        race = created["race"]["id"]
        assert (await accomplice.request("join", race=race))["type"] == "joined"
        started = await scout.wait("started")
        await accomplice.wait("started")
        line = _line(started["view"], await _read_the_stock(scout, race, started))
        await _pipeline(accomplice, race, line)
        await accomplice.wait("finished")
        await eventually(lambda: server.fairplay.flags(), what="the flag")

        def admin(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [COMMAND, "admin", *args, "--redis-url", redis_url],
                capture_output=True,
                text=True,
                env=clean_env(),
                timeout=60,
            )

        listed = await asyncio.to_thread(admin, "flags")
        assert listed.returncode == 0 and "Bolt  inhuman_pace  terrace race" in listed.stdout, listed
        assert "fastest:terrace:terrace=" in listed.stdout
        assert (await scout.request("leaderboard", board="fastest", variant="terrace"))["rows"] == []
        voided = await asyncio.to_thread(admin, "void", "Bolt")
        assert voided.returncode == 0 and "Bolt: void;" in voided.stdout, voided
        assert "Bolt" not in await rated()  # taken off the board it was on
        restored = await asyncio.to_thread(admin, "restore", "Bolt")
        assert restored.returncode == 0 and "Bolt: restored;" in restored.stdout, restored
        assert "Bolt" in await rated()
        fastest = await scout.request("leaderboard", board="fastest", variant="terrace")
        assert [r["player"]["name"] for r in fastest["rows"]] == ["Bolt"]  # what the flag held back, back
        assert "Bolt" not in (await asyncio.to_thread(admin, "flags")).stdout  # its flags cleared
        missing = await asyncio.to_thread(admin, "void", "Nobody")
        assert missing.returncode == 1 and "no account 'Nobody'" in missing.stderr


def test_a_flag_says_what_it_held_back_in_words() -> None:
    from server.players.admin_cli import _line
    from terrace.race.daily import board_value

    flag = {
        "at": 0,
        "player": {"name": "Peek"},
        "reason": "inhuman_pace",
        "what": "terrace daily 2026-11-28",
        "race": "d1",
        "held": [
            {"board": "daily:terrace:2026-11-28:humans", "score": board_value(None, 1, None)},
            {"board": "daily:terrace:2026-11-29:humans", "score": board_value(132, 0, None)},
            {"board": "fastest:terrace:terrace", "score": 132.0},
        ],
    }
    line = _line(flag)
    assert "daily:terrace:2026-11-28:humans=1 cards home" in line, line
    assert "daily:terrace:2026-11-29:humans=goal in 0.132 s" in line
    assert "fastest:terrace:terrace=132" in line and "e+" not in line
