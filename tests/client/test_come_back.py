"""Leaving the race screen and coming back, as a person would: Ctrl-C, then ``terrace play`` again.

The real ``terrace`` command in a pseudo terminal against a real server whose
grace period is long enough for a person to start the command again.
"""

from __future__ import annotations

import json
import os
from typing import Any

from client import config
from tests.client.test_terminal import _exit, _expect, _spawn
from tests.server.wire import Client


async def _race_with_bob(srv: Any) -> tuple[str, Client]:
    bob = await Client.open(srv.url)
    assert (await bob.request("hello", name="bob"))["type"] == "welcome"
    created = await bob.request("create", variant="terrace", seats=2, start="full")
    return str(created["race"]["id"]), bob


async def test_ctrl_c_then_terrace_play_again_is_back_in_the_same_race_with_the_same_board(
    make_server: Any,
) -> None:
    srv = await make_server(grace=30.0)
    race, bob = await _race_with_bob(srv)
    child = _spawn("play", "--server", srv.url, "--race", race, "--name", "alice")
    await _expect(child, "move>")
    child.sendline("2f")
    await _expect(child, "2-F1")
    await _expect(child, "move>")
    child.sendintr()
    left = " ".join((await _expect(child, "drop\\s+out\\.")).split())
    # the command as it runs: this server is not the default one, and the name comes along
    assert f"Run `terrace play --server {srv.url} --name alice` again to come back" in left
    assert await _exit(child) == 0
    stored = json.loads((config.config_dir() / config.SESSIONS).read_text())
    assert stored[srv.url]["name"] == "alice"
    assert oct(os.stat(config.config_dir() / config.SESSIONS).st_mode & 0o777) == "0o600"

    # without the name the stored session finds the race too
    again = _spawn("play", "--server", srv.url)
    back = await _expect(again, f"Back in race {race}")
    assert "alice" in back
    screen = await _expect(again, "move>")
    assert "choose the base" not in screen.lower()  # the board as left: the base is chosen
    again.sendline("S-W")  # the base is chosen: the stock turns, seq 2 on the server
    await _expect(again, "S-W")
    await _expect(again, "move>")
    again.sendline("leave")  # as the leaving message says: `leave` drops out
    await _expect(again, "Type y to leave")
    again.sendline("y")
    await _expect(again, "You left the race")
    await _expect(again, "terrace play --queue terrace")
    assert await _exit(again) == 0  # no waiting for bob: the race is over for alice
    await bob.request("resign", race=race)
    record = await bob.wait("finished")
    alice = next(r for r in record["results"] if r["player"]["name"] == "alice")
    assert alice["finish"] == "left"
    final = await bob.request("record", race=race)
    kept = next(r for r in final["race"]["results"] if r["player"]["name"] == "alice")
    assert kept["move_list"] == ["2-F1", "S-W"]  # one player, one board, before and after
    await bob.close()


async def test_a_stored_session_the_server_forgot_falls_back_to_the_name(make_server: Any) -> None:
    srv = await make_server()
    config.save_session(srv.url, "carol", "a-session-this-server-never-gave")
    lister = _spawn("play", "--server", srv.url, "--create", "terrace", "--seats", "2")
    connected = await _expect(lister, "Created race")
    assert "carol" in connected  # bad_session, then hello by the stored name
    lister.sendintr()
    assert await _exit(lister) in (0, 130)
