"""``terrace play --create V --seats N`` prints how to invite others: the join command (which
runs as printed and seats the friend) and the race's page on the same server."""

from __future__ import annotations

import argparse
import asyncio
import re
import shlex
import urllib.request

import pexpect
import pytest

from client.suggest import invitation, page_url
from server.app import RaceServer

from .test_terminal import _expect, _resign, _spawn


def test_the_page_of_a_race_comes_from_the_websocket_url() -> None:
    assert page_url("ws://127.0.0.1:8765/ws", "/play/ab12") == "http://127.0.0.1:8765/play/ab12"
    assert page_url("wss://race.example/ws", "/play/ab12") == "https://race.example/play/ab12"
    assert page_url("wss://race.example/terrace/ws", "/play/x") == "https://race.example/terrace/play/x"


def test_the_invitation_names_the_server_even_when_ours_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERRACE_SERVER", "ws://10.0.0.5:9000/ws")  # ours; not the friend's
    args = argparse.Namespace(server="ws://10.0.0.5:9000/ws", name=None)
    assert invitation(args, "ab12")[1] == "  terrace play --race ab12 --server ws://10.0.0.5:9000/ws"
    args = argparse.Namespace(server="ws://127.0.0.1:8765/ws", name=None)  # the built-in default
    assert invitation(args, "ab12")[1] == "  terrace play --race ab12"


def test_the_invitation_never_carries_the_creators_name() -> None:
    args = argparse.Namespace(server="ws://10.0.0.5:9000/ws", name="alice")
    lines = invitation(args, "ab12")
    assert lines[1] == "  terrace play --race ab12 --server ws://10.0.0.5:9000/ws"  # alice's name: no
    assert lines[2] == "  http://10.0.0.5:9000/play/ab12"


async def test_a_private_race_prints_its_invitation_and_the_friend_joins_with_it(server: RaceServer) -> None:
    alice = _spawn("play", "--server", server.url, "--create", "terrace", "--seats", "2", "--name", "alice")
    said = await _expect(alice, r"Created race ([0-9a-f]+)")
    race = str(alice.match.group(1))
    said = await _expect(alice, r"(http://\S+)\r?\n")
    page = str(alice.match.group(1))
    assert "Invite others" in said
    join = re.search(r"^ +(terrace play --race \S+ --server \S+)\r?$", said, re.M)
    assert join, said
    assert join.group(1) == f"terrace play --race {race} --server {server.url}"
    assert page == f"http://127.0.0.1:{server.port}/play/{race}"

    def status() -> int:  # in a thread: the server runs on this test's event loop
        with urllib.request.urlopen(page, timeout=10) as answer:
            return int(answer.status)

    assert await asyncio.to_thread(status) == 200  # the page is there
    # the friend runs the printed command as it is (with a name of their own): the race starts
    bob = _spawn(*shlex.split(join.group(1))[1:], "--name", "bob")
    await _expect(bob, "move>")
    await _expect(alice, "move>")
    bob.sendline("resign")
    bob.sendline("y")
    await _expect(bob, "Waiting for the others")
    await _resign(alice)  # (to the end of the command)
    await bob.expect(pexpect.EOF, async_=True)
    assert _status(bob) == 0 and _status(alice) == 0


async def test_a_race_of_one_seat_has_nobody_to_invite(server: RaceServer) -> None:
    alone = _spawn("play", "--server", server.url, "--create", "terrace", "--seats", "1", "--name", "solo")
    said = await _expect(alone, "move>")
    assert "Invite others" not in said
    await _resign(alone)
    assert _status(alone) == 0


def _status(child: pexpect.spawn) -> int:
    child.close()
    return int(child.exitstatus if child.exitstatus is not None else -1)
