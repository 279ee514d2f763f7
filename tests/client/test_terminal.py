"""The real ``terrace`` command in a pseudo terminal (pexpect), against a real server.

What a person sees and types: the board, tab completion, the server's reason
for an illegal move, resigning, the final standings; practice with undo and a
hint; the live standings of ``watch`` changing as a race goes on.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pexpect

from server.app import RaceServer
from tests.server.conftest import MakeServer
from tests.server.wire import Client

Connect = Callable[..., Awaitable[Client]]
TERRACE = str(Path(sys.executable).parent / "terrace")


def _spawn(*args: str) -> pexpect.spawn:
    env = {
        **os.environ,
        "PROMPT_TOOLKIT_NO_CPR": "1",  # pexpect does not answer cursor position requests
        "TERM": "xterm-256color",
        "COLUMNS": "120",
        "LINES": "50",
    }
    return pexpect.spawn(TERRACE, list(args), env=env, dimensions=(50, 120), encoding="utf-8", timeout=15)


async def _expect(child: pexpect.spawn, pattern: str) -> str:
    await child.expect(pattern, async_=True)
    return str(child.before) + str(child.after)


async def _exit(child: pexpect.spawn) -> int:
    await child.expect(pexpect.EOF, async_=True)
    child.close()
    return int(child.exitstatus if child.exitstatus is not None else -1)


async def _running(connect: Connect) -> tuple[str, Client, Client]:
    """A running two-player race of alice and bob, from their wire clients."""
    alice = await connect(name="alice")
    bob = await connect(name="bob")
    created = await alice.request("create", variant="terrace", seats=2, start="full")
    race = str(created["race"]["id"])
    await bob.request("join", race=race)
    await alice.wait("started")
    return race, alice, bob


async def _alice_joins_bobs_race(server: RaceServer, connect: Connect) -> tuple[str, Client, pexpect.spawn]:
    """bob's two-seat race, and alice joining it from ``terrace play`` in a pty (it starts then)."""
    bob = await connect(name="bob")
    created = await bob.request("create", variant="terrace", seats=2, start="full")
    race = str(created["race"]["id"])
    return race, bob, _spawn("play", "--server", server.url, "--race", race, "--name", "alice")


async def test_play_a_race_typing_moves_with_completion_seeing_refusals_and_resigning(
    server: RaceServer, connect: Connect
) -> None:
    race, bob, child = await _alice_joins_bobs_race(server, connect)
    await _expect(child, "Connected to ")
    started = await bob.wait("started")
    screen = await _expect(child, "move>")
    assert "choose the base" in screen.lower()
    for card in [started["view"]["piles"][p][0] for p in "1234"]:  # the four base candidates are shown
        assert card[0].replace("T", "10") in screen

    child.sendline("w3")  # the server's reason, nothing else changes
    await _expect(child, "First choose the base")
    child.send("1")
    child.send("\t")  # completes the only legal move starting with 1
    child.sendline("")
    await _expect(child, "1-F1")
    await _expect(child, "move>")

    child.sendline("resign")
    await _expect(child, "Type y to resign")  # asked first: a typo never ends a race
    child.sendline("y")
    await _expect(child, "You resigned")
    await _expect(child, "Waiting for the others")
    await bob.request("resign", race=race)
    final = await _expect(child, "bob")
    assert "alice" in final
    assert await _exit(child) == 0


async def test_practice_offline_with_undo_and_a_hint() -> None:
    child = _spawn("practice", "--variant", "terrace", "--deal", "7")
    screen = await _expect(child, "move>")
    assert "deal 7" in screen
    child.sendline("2f")
    await _expect(child, "2-F1")
    child.sendline("undo")
    await _expect(child, "Took back 2-F1")
    child.sendline("hint")
    await _expect(child, "Hint: [1-4]-F1")
    child.sendline("quit")  # asks first, as the README says: the game is not kept
    await _expect(child, "Quit practice\\? This game is not kept")
    child.sendline("n")
    await _expect(child, "Carrying on")
    child.sendline("quit")
    await _expect(child, "Quit practice\\?")
    child.sendline("y")
    assert await _exit(child) == 0


async def test_watch_shows_a_races_standings_changing_in_place(server: RaceServer, connect: Connect) -> None:
    race, alice, bob = await _running(connect)
    child = _spawn("watch", race, "--server", server.url)
    await _expect(child, "alice")
    for seq, move in enumerate(["1f", "S-W"], 1):
        assert (await alice.request("move", race=race, seq=seq, move=move))["type"] == "moved"
    await _expect(child, "alice[^\\n]*2")  # alice's row now counts 2 moves
    await alice.request("resign", race=race)
    await bob.request("resign", race=race)
    assert await _exit(child) == 0


async def test_replay_steps_through_a_finished_race_one_player_at_a_time(
    server: RaceServer, connect: Connect
) -> None:
    race, alice, bob = await _running(connect)
    for seq, move in enumerate(["1f", "d"], 1):
        assert (await alice.request("move", race=race, seq=seq, move=move))["type"] == "moved"
    await alice.request("resign", race=race)
    await bob.request("resign", race=race)
    await alice.wait("finished")

    child = _spawn(
        "replay", race, "--server", server.url, "--no-hindsight"
    )  # hindsight: test_replay_hindsight
    await _expect(child, "alice")
    await _expect(child, "the deal \\(2 moves to come\\)")
    await _expect(child, "uit >")
    child.send("\r")  # Enter: the next move
    await _expect(child, "move 1 of 2: 1-F1")
    await _expect(child, "uit >")
    child.send("b")  # back to the deal, at once: no Enter
    await _expect(child, "the deal \\(2 moves to come\\)")
    await _expect(child, "uit >")
    child.send("p")  # the next player
    await _expect(child, "bob")
    await _expect(child, "the deal \\(0 moves to come\\)")
    await _expect(child, "uit >")
    child.send("q")
    assert await _exit(child) == 0


async def _resign(child: pexpect.spawn) -> str:
    """Resign at the move prompt; what is printed from the confirmation to the command's end."""
    child.sendline("resign")
    await _expect(child, "Type y to resign")
    child.sendline("y")
    await child.expect(pexpect.EOF, async_=True)
    return str(child.before)


def race_id(end: str) -> str:
    found = re.search(r"terrace replay (\w+)", end)
    assert found, end
    return found.group(1)


async def test_a_race_of_one_says_one_player_and_resigning_it_is_no_win(server: RaceServer) -> None:
    child = _spawn(
        "play", "--server", server.url, "--create", "terrace", "--seats", "1", "--name", "newcomer"
    )
    await _expect(child, r"it starts when 1 player has joined\.")
    await _expect(child, "move>")
    child.sendline("1f")
    await _expect(child, "1-F1")
    await _expect(child, "move>")
    end = " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", await _resign(child)).split())
    assert "You resigned · 1st of 1 · at " in end and "You won" not in end, end
    assert " · 1 card home" in end  # the base card
    # the same kind of race again: created, one seat
    url = server.url
    assert (
        f"race again: terrace play --create terrace --seats 1 --server {url} --name newcomer step through"
        in end
    ), end
    assert (
        f"step through it: terrace replay {race_id(end)} --server {url} check it" in end
    )  # they run as printed
    assert f"check it: terrace verify {race_id(end)} --server {url}" in end
    child.close()
    assert child.exitstatus == 0


async def test_the_countdown_never_says_starting_in_0(
    make_server: Callable[..., Awaitable[RaceServer]],
) -> None:
    srv = await make_server(countdown=1.5)
    child = _spawn("play", "--server", srv.url, "--create", "terrace", "--seats", "1", "--name", "counted")
    await _expect(child, "Waiting for the race to start")
    counted = await _expect(child, "move>")
    assert "Starting in 1…" in counted, counted  # the last second reads 1
    assert "Starting in 0" not in counted, counted
    await _resign(child)
    child.close()
    assert child.exitstatus == 0


async def test_ctrl_c_after_the_race_screen_stops_waiting_for_the_others_and_says_where_the_result_is(
    server: RaceServer, connect: Connect
) -> None:
    """The race screen's prompt must leave Ctrl-C working once it is gone."""
    race, bob, child = await _alice_joins_bobs_race(server, connect)
    await _expect(child, "move>")
    child.sendline("resign")
    await _expect(child, "Type y to resign")
    child.sendline("y")
    await _expect(child, "Waiting for the others")
    child.sendintr()
    await _expect(child, f"Stopped waiting; the race goes on. Its results once over: terrace replay {race}")
    assert await _exit(child) == 0
    assert (await bob.request("resign", race=race))["type"] == "resigned"  # the race went on without her


async def test_ctrl_c_in_a_queue_chosen_at_the_prompt_leaves_the_queue(
    server: RaceServer, connect: Connect
) -> None:
    child = _spawn("play", "--server", server.url, "--name", "alice")
    await _expect(child, "Join or queue")
    child.sendline("signora")
    await _expect(child, "Queued for signora")
    await _expect(child, "Nobody else is waiting for signora now")
    await _expect(child, "Ctrl-C to leave")
    child.sendintr()
    await _expect(child, "You left the queue.")
    assert await _exit(child) == 0  # leaving is what Ctrl-C is for here
    bob = await connect(name="bob")
    assert (await bob.request("queue", variant="signora"))["position"] == 1  # alice is gone from it


async def test_ctrl_c_in_the_countdown_leaves_the_race_before_it_starts(make_server: MakeServer) -> None:
    srv = await make_server(countdown=60.0)
    bob = await Client.open(srv.url)
    assert (await bob.request("hello", name="bob"))["type"] == "welcome"
    race = (await bob.request("create", variant="terrace", seats=2, start="full"))["race"]["id"]
    child = _spawn("play", "--server", srv.url, "--race", race, "--name", "alice")
    await _expect(child, "Starting in")
    child.sendintr()
    await _expect(child, f"You left race {race} before it started.")
    assert await _exit(child) == 0
    summary = srv.registry.drivers[race].race.summary()
    assert [p["name"] for p in summary["players"]] == ["bob"]


async def test_friends_on_one_network_race_unrated_and_the_terminal_says_so_before_the_start(
    make_server: MakeServer,
) -> None:
    """bob (an account) creates a race; alice, an account of the same address, joins it from
    ``terrace play``: the join goes ahead, and she reads that it is unrated before it starts
    and in the race screen's title."""
    srv = await make_server(rated_seats_per_address=1)
    reg = _spawn("register", "alice", "--server", srv.url)
    assert await _exit(reg) == 0
    bob = await Client.open(srv.url)
    assert (await bob.request("register", name="bob"))["type"] == "registered"
    created = await bob.request("create", variant="terrace", seats=2, start="manual")
    race = str(created["race"]["id"])
    child = _spawn("play", "--server", srv.url, "--race", race)
    said = " ".join((await _expect(child, "moves no\\s+rating")).split())
    assert "This race goes ahead unrated: two of its players' accounts play from one address" in said
    assert "move>" not in said  # before the race starts
    pushed = await bob.wait(lambda m: m.get("type") == "race" and len(m["race"]["players"]) == 2)
    assert pushed["race"]["unrated"] == "same_address"
    assert (await bob.request("start", race=race))["type"] == "starting"
    screen = await _expect(child, "move>")
    assert f"race {race} · terrace · goal terrace · unrated" in screen
    await bob.request("resign", race=race)
    child.sendline("resign")
    await _expect(child, "Type y to resign")
    child.sendline("y")
    end = " ".join((await _expect(child, "counts on no\\s+board\\.")).split())
    assert "Not rated: two of its accounts play from one address" in end
    await _exit(child)
    await bob.close()
