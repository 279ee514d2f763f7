"""The client's session policy (terrace/wire/session.py) with a fake clock: hello, drops, redirects, resends."""

from __future__ import annotations

import pytest

from terrace.wire.session import GiveUp, HelloRefused, News, Retry, SessionPolicy, close_reason

HOME = "ws://home/ws"
WELCOME = {"type": "welcome", "session": "s1", "player": {"id": "p1", "name": "ann", "kind": "human"}}


def test_hello_says_the_session_first_then_the_token_then_the_name() -> None:
    assert SessionPolicy(HOME).hello() == {}
    assert SessionPolicy(HOME, name="ann").hello() == {"name": "ann"}
    assert SessionPolicy(HOME, token="t", name="ann").hello() == {"token": "t"}
    p = SessionPolicy(HOME, token="t", name="ann")
    assert p.welcomed(WELCOME) == "ok"
    assert p.hello() == {"session": "s1"} and p.player["name"] == "ann"


def test_a_guest_program_says_its_kind_and_an_account_does_not() -> None:
    assert SessionPolicy(HOME, name="bot1", kind="bot").hello() == {"kind": "bot", "name": "bot1"}
    assert SessionPolicy(HOME, kind="bot").hello() == {"kind": "bot"}
    assert SessionPolicy(HOME, token="t", kind="bot").hello() == {"token": "t"}


def test_every_hello_carries_the_install_id_when_there_is_one() -> None:
    assert SessionPolicy(HOME, client="install-1").hello() == {"client": "install-1"}
    assert SessionPolicy(HOME, name="ann", client="install-1").hello() == {
        "name": "ann",
        "client": "install-1",
    }
    p = SessionPolicy(HOME, token="t", client="install-1")
    assert p.hello() == {"token": "t", "client": "install-1"}
    p.welcomed(WELCOME)
    assert p.hello() == {"session": "s1", "client": "install-1"}  # a session hello keeps it too


def test_a_bad_session_is_dropped_and_hello_said_afresh() -> None:
    p = SessionPolicy(HOME, name="ann")
    p.welcomed(WELCOME)
    assert p.welcomed({"type": "error", "code": "bad_session", "message": "?"}) == "again"
    assert p.session is None and p.hello() == {"name": "ann"}


def test_a_refused_hello_raises_with_the_servers_code() -> None:
    p = SessionPolicy(HOME, name="ann")
    with pytest.raises(HelloRefused, match="taken") as info:
        p.welcomed({"type": "error", "code": "name_taken", "message": "The name 'ann' is taken."})
    assert info.value.code == "name_taken"
    # without a session to drop, bad_session is a refusal too, not a loop
    with pytest.raises(HelloRefused):
        p.welcomed({"type": "error", "code": "bad_session", "message": "?"})


def test_a_drop_retries_with_growing_waits_until_the_grace_is_spent() -> None:
    p = SessionPolicy(HOME, name="ann", reconnect_for=30.0)
    p.welcomed(WELCOME)
    now = 100.0
    first = p.dropped(now, 1006)
    assert first == Retry(0.1)
    waits = [first.delay]
    while isinstance(decision := p.connect_failed(now + sum(waits)), Retry):
        waits.append(decision.delay)
    assert waits[:4] == [0.1, 0.2, 0.4, 0.8] and max(waits) == 5.0
    assert sum(waits) <= 30.0
    assert isinstance(decision, GiveUp) and "for 30 s" in decision.reason


def test_a_reconnect_counts_and_the_next_drop_gets_a_fresh_grace() -> None:
    p = SessionPolicy(HOME, name="ann", reconnect_for=1.0)
    p.welcomed(WELCOME)
    p.dropped(0.0, None)
    assert p.welcomed(WELCOME) == "ok" and p.reconnects == 1
    assert p.dropped(500.0, None) == Retry(0.1)  # the deadline runs from this drop, not the first


@pytest.mark.parametrize(
    ("code", "by_us", "reason"),
    [(4001, False, "this player connected from somewhere else"), (1000, True, "closed")],
)
def test_no_reconnect_when_replaced_or_closed_on_purpose(code: int, by_us: bool, reason: str) -> None:
    p = SessionPolicy(HOME, name="ann")
    p.welcomed(WELCOME)
    assert p.dropped(0.0, code, by_us=by_us) == GiveUp(reason)


def test_a_server_shutting_down_is_reconnected_to() -> None:
    p = SessionPolicy(HOME, name="ann")
    p.welcomed(WELCOME)
    assert isinstance(p.dropped(0.0, 1001), Retry)
    assert close_reason(1001) == "the server is shutting down"


def test_the_first_connection_failing_is_no_reconnect() -> None:
    decision = SessionPolicy(HOME).connect_failed(0.0, "refused")
    assert decision == GiveUp("refused")


def test_a_redirect_moves_to_the_owner_and_an_unreachable_owner_sends_us_home() -> None:
    p = SessionPolicy(HOME, name="ann")
    assert p.redirected({"type": "redirect", "race": "r1", "url": "ws://b/ws"}) == "ws://b/ws"
    assert p.url == "ws://b/ws"
    assert p.owner_unreachable() == Retry(0.5) and p.url == HOME
    p.redirected({"type": "redirect", "race": "r1", "url": "ws://b/ws"})
    p.welcomed(WELCOME)
    p.dropped(0.0, None)
    p.connect_failed(0.1)
    assert p.url == HOME  # a node we were sent to may be gone: its races move on elsewhere


@pytest.mark.parametrize("type_", ["move", "resign", "join", "queue", "record", "races"])
def test_requests_that_are_safe_twice_are_resent(type_: str) -> None:
    assert SessionPolicy.resendable(type_)


@pytest.mark.parametrize("type_", ["create", "register"])
def test_requests_that_would_act_twice_are_not_resent(type_: str) -> None:
    assert not SessionPolicy.resendable(type_)


def test_news_is_plain_data() -> None:
    assert News("lost", "connection lost", 2) == News("lost", "connection lost", 2)
