"""Behind a proxy: per-address limits count the client the proxy forwards, never the proxy.

Every connection through a proxy comes from the proxy's address, so without this every player
of a deployment shared one address's limits: one registered account per race (no rated race
between two people could be made), 20 registrations an hour, one token bucket. A server told
its proxies (``--trusted-proxies``) reads their ``X-Forwarded-For``; anyone else's is ignored,
and the part of the header a client wrote itself never counts.
"""

from __future__ import annotations

import pytest

from server.config import proxy_networks
from server.transport.limits import client_address
from tests.server.conftest import MakeServer
from tests.server.wire import Client


async def _account(url: str, name: str, forwarded: str | None) -> Client:
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else None
    client = await Client.open(url, additional_headers=headers)
    assert (await client.request("register", name=name))["type"] == "registered"
    return client


async def _join(
    make_server: MakeServer, proxies: str, first: str | None, second: str | None
) -> dict[str, object]:
    """Alice (forwarded as ``first``) creates a rated race; Bob's (``second``) answer to joining it."""
    server = await make_server(rated_seats_per_address=1, trusted_proxies=proxies)
    alice = await _account(server.url, "alice", first)
    bob = await _account(server.url, "bob", second)
    race = (await alice.request("create", variant="terrace", seats=2, rated=True))["race"]["id"]
    answer = await bob.request("join", race=race)
    for c in (alice, bob):
        await c.close()
    return answer


async def test_two_players_behind_a_trusted_proxy_race_a_rated_race_together(make_server: MakeServer) -> None:
    answer = await _join(make_server, "127.0.0.1", "203.0.113.7", "198.51.100.20")
    assert answer["type"] == "joined", answer


async def test_a_forwarded_address_from_a_peer_that_is_no_trusted_proxy_is_ignored(
    make_server: MakeServer,
) -> None:
    answer = await _join(make_server, "", "203.0.113.7", "198.51.100.20")
    assert answer.get("code") == "same_address", answer
    answer = await _join(make_server, "10.0.0.0/8", "203.0.113.7", "198.51.100.20")  # 127.0.0.1 is not one
    assert answer.get("code") == "same_address", answer


async def test_what_a_client_wrote_into_the_header_itself_never_counts(make_server: MakeServer) -> None:
    # Bob sends "X-Forwarded-For: 192.0.2.99"; the proxy appends the address it saw, Alice's too
    answer = await _join(make_server, "127.0.0.1", "203.0.113.7", "192.0.2.99, 203.0.113.7")
    assert answer.get("code") == "same_address", answer


@pytest.mark.parametrize(
    ("peer", "forwarded", "counted"),
    [
        ("10.0.0.5", "203.0.113.7", "203.0.113.7"),
        ("10.0.0.5", "192.0.2.1, 203.0.113.7", "203.0.113.7"),  # the client's own part is skipped
        ("10.0.0.5", "203.0.113.7, 10.0.0.9", "203.0.113.7"),  # through two trusted proxies
        ("10.0.0.5", "2001:db8:1:2::7", "2001:db8:1:2::/64"),  # IPv6 counts by its /64, as ever
        ("10.0.0.5", "[2001:db8:1:2::7]", "2001:db8:1:2::/64"),
        ("10.0.0.5", "unknown", "10.0.0.5"),  # a hop that is no address: the proxy counts
        ("10.0.0.5", "", "10.0.0.5"),
        ("10.0.0.5", None, "10.0.0.5"),
        ("10.0.0.5", "10.0.0.7", "10.0.0.7"),  # only proxies in the chain: the first of them
        ("192.0.2.50", "203.0.113.7", "192.0.2.50"),  # not a trusted proxy: its header is ignored
        ("::ffff:10.0.0.5", "203.0.113.7", "203.0.113.7"),  # a proxy's IPv4 mapped into IPv6
    ],
)
def test_the_client_is_the_last_forwarded_address_that_is_no_trusted_proxy(
    peer: str, forwarded: str | None, counted: str
) -> None:
    assert client_address(peer, forwarded, proxy_networks("10.0.0.0/24")) == counted


def test_without_trusted_proxies_the_peer_counts() -> None:
    assert client_address("10.0.0.5", "203.0.113.7", proxy_networks("")) == "10.0.0.5"


def test_a_bad_trusted_proxy_is_refused() -> None:
    with pytest.raises(ValueError, match="'nope' is not an address or a network"):
        proxy_networks("10.0.0.5, nope")
