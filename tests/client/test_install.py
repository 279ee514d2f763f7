"""One rated seat per client install, over the real link stack: the ``terrace`` command and
link sessions send this install's id, so two accounts of one install are refused a second
seat in a race that may be rated even from two addresses."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from client import config
from link import Session
from server.app import RaceServer

from .test_commands import _run

MakeServer = Callable[..., Awaitable[RaceServer]]


async def test_two_accounts_of_one_install_get_one_seat_in_a_rated_race_from_two_addresses(
    make_server: MakeServer, unused_tcp_port: int
) -> None:
    # every interface, so one account comes over IPv4 and the other over IPv6: two addresses
    srv = await make_server(host="", port=unused_tcp_port, rated_seats_per_address=1)
    v4, v6 = f"ws://127.0.0.1:{unused_tcp_port}/ws", f"ws://[::1]:{unused_tcp_port}/ws"
    code, out, err = await _run("register", "alice", "--server", v4, "--json")
    assert code == 0, err
    alice_id = json.loads(out)["player"]["id"]
    install = config.client_id()  # the one the command drew and kept
    assert install is not None
    assert srv.accounts.get(alice_id).client == install  # type: ignore[union-attr]
    for name in ("bob", "carol"):
        code, _, err = await _run("register", name, "--server", v6)
        assert code == 0, err

    sessions = []
    for url, name, client in ((v4, "alice", install), (v6, "bob", install), (v6, "carol", "another-install")):
        session = Session(url, token=config.load_token(url, name)["token"], client=client)  # type: ignore[index]
        await session.connect()
        sessions.append(session)
    alice, bob, carol = sessions
    race = (await alice.ask("create", variant="terrace", seats=3, rated=True))["race"]["id"]
    refused = await bob.request("join", race=race)  # another address, the same install
    assert (refused["type"], refused.get("code"), refused.get("race")) == ("error", "same_address", race)
    joined = await carol.request("join", race=race)  # another install (bob's address: not alice's)
    assert joined["type"] == "joined", joined
    for s in sessions:
        await s.close()
