"""Races end to end: real server, real websocket clients on both subprotocols.

Players play a simple view-only policy (tests/server/players.py) to the end of the
race; afterwards the revealed seed lets the tests recompute everything the server
sent with the engine.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import terrace
import terrace.rules.game
from server.app import RaceServer
from server.races.driver import now_ms
from terrace.rules.deal import commitment
from terrace.wire.protocol import JSON, MSGPACK, decode
from tests.poll import eventually
from tests.server.conftest import Connect
from tests.server.scripted_players import Outcome, Policy, play_out
from tests.server.wire import Client, Message
from tests.terrace.positions import SLOW_MOVE, family_game, slow_search_position

CARD = re.compile(r"[A2-9TJQK][cdhs]")
CARD_IN_TEXT = re.compile(r"\b[A2-9TJQK][cdhs]\b")


# ----- helpers ----------------------------------------------------------------------


async def open_race(
    connect: Connect,
    subprotocols: list[str],
    *,
    variant: str = "terrace",
    start: str = "manual",
    **create: Any,
) -> tuple[str, list[Client], list[Message]]:
    """Seat one welcomed player per subprotocol in a new race, start it, and return
    the race id, the clients (creator first) and each one's ``started`` message."""
    clients = [await connect(sub, name=f"Player{i + 1}") for i, sub in enumerate(subprotocols)]
    created = await clients[0].request("create", variant=variant, seats=len(clients), start=start, **create)
    assert created["type"] == "created", created
    race = created["race"]["id"]
    for c in clients[1:]:
        joined = await c.request("join", race=race)
        assert joined["type"] == "joined", joined
    if start == "manual":
        starting = await clients[0].request("start", race=race)
        assert starting["type"] == "starting", starting
    started = [await c.wait("started") for c in clients]
    return race, clients, started


def player_id(client: Client) -> str:
    return client.player["id"]  # type: ignore[attr-defined,no-any-return]


def row_of(rows: list[Message], client: Client) -> Message:
    (row,) = [r for r in rows if r["player"]["id"] == player_id(client)]
    return row


def strip_re(msg: Message) -> Message:
    return {k: v for k, v in msg.items() if k != "re"}


def cards_in(value: Any) -> set[str]:
    """Every card name anywhere in a decoded message: strings that are a card name,
    and card names inside sentences (error texts)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            found |= cards_in(k) | cards_in(v)
    elif isinstance(value, list):
        for v in value:
            found |= cards_in(v)
    elif isinstance(value, str):
        if CARD.fullmatch(value):
            found.add(value)
        elif " " in value:
            found |= set(CARD_IN_TEXT.findall(value))
    return found


def visible_cards(view: Any) -> list[str]:
    """The card names a view shows, with repeats (two packs): every value that is a
    card name. The stock is a count, so it adds none."""
    if isinstance(view, dict):
        return [c for v in view.values() for c in visible_cards(v)]
    if isinstance(view, list):
        return [c for v in view for c in visible_cards(v)]
    return [view] if isinstance(view, str) and CARD.fullmatch(view) else []


def check_results_agree(results: list[Message], clients: list[Client], outcomes: list[Outcome]) -> None:
    """Each player's result row says what that player's own last view said."""
    for client, outcome in zip(clients, outcomes, strict=True):
        row = row_of(results, client)
        assert row["finished"] is True
        assert row["finish"] == outcome.finish
        assert row["score"] == outcome.view["score"]
        assert row["terrace_left"] == outcome.view["terrace_left"]
        assert row["moves"] == outcome.view["moves"] == len(outcome.answers)
        assert row["status"] == outcome.view["status"]


def frames_before_finished(client: Client) -> list[tuple[bytes | str, Message]]:
    """Every frame the client received before its ``finished`` message, raw and decoded."""
    out: list[tuple[bytes | str, Message]] = []
    for frame in client.frames:
        msg = decode(frame, client.subprotocol)
        if msg.get("type") == "finished":
            return out
        out.append((frame, msg))
    raise AssertionError("no finished message received")


# ----- whole races ------------------------------------------------------------------


async def test_two_player_race_over_msgpack_and_json_finishes_with_places_one_and_two(
    connect: Connect,
) -> None:
    race, (a, b), (sa, sb) = await open_race(connect, [MSGPACK, JSON])
    assert a.subprotocol == MSGPACK and b.subprotocol == JSON
    # A plays its whole game first, then B plays the same policy on the same deal:
    # the same game, reached later, so A is ahead on every tie-break.
    out_a = await play_out(a, race, sa, Policy())
    out_b = await play_out(b, race, sb, Policy())
    fa, fb = await a.wait("finished"), await b.wait("finished")
    assert fa == fb
    assert fa["race"] == race and fa["commitment"] == sa["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", fa["seed"])
    results = fa["results"]
    assert [r["player"]["id"] for r in results] == [player_id(a), player_id(b)]
    assert [r["place"] for r in results] == [1, 2]
    check_results_agree(results, [a, b], [out_a, out_b])
    assert [m["move"] for m in out_a.answers] == [m["move"] for m in out_b.answers]
    assert results[0]["score"] == results[1]["score"]


async def test_eight_player_race_starts_when_full_and_finishes_for_everyone(connect: Connect) -> None:
    subs = [MSGPACK, JSON] * 4
    race, clients, started = await open_race(connect, subs, variant="queen-of-italy", start="full")
    outcomes = await asyncio.gather(
        *(play_out(c, race, s, Policy(pick=i)) for i, (c, s) in enumerate(zip(clients, started, strict=True)))
    )
    finished = [await c.wait("finished") for c in clients]
    assert all(f == finished[0] for f in finished)
    results = finished[0]["results"]
    assert sorted(r["player"]["id"] for r in results) == sorted(player_id(c) for c in clients)
    check_results_agree(results, clients, list(outcomes))
    places = [r["place"] for r in results]
    assert places[0] == 1
    # competition ranking in results order: a place repeats (tie) or is the row number
    for n, place in enumerate(places[1:], 2):
        assert place in (places[n - 2], n)


async def test_every_player_gets_the_same_first_view_and_legal_moves(connect: Connect) -> None:
    race, clients, started = await open_race(connect, [MSGPACK, JSON, MSGPACK])
    first = started[0]
    for s in started:
        assert s["race"] == race
        assert s["commitment"] == first["commitment"]
        assert s["view"] == first["view"]
        assert s["legal"] == first["legal"] == ["1-F1", "2-F1", "3-F1", "4-F1"]
        assert s["seq"] == 0 and s["resumed"] is False
        assert s["clock"]["started_at"] == first["clock"]["started_at"]
        assert [p["id"] for p in s["players"]] == [player_id(c) for c in clients]
    view = first["view"]
    assert view["phase"] == "choose-base" and view["stock"] == 89 and view["moves"] == 0
    assert len(view["terrace"]) == 11
    assert [len(p) for p in view["piles"].values()] == [1, 1, 1, 1, 0, 0, 0, 0, 0]


async def test_revealed_seed_matches_the_commitment_and_replays_every_players_game(
    connect: Connect,
) -> None:
    race, clients, started = await open_race(connect, [JSON, MSGPACK])
    outcomes = await asyncio.gather(
        *(play_out(c, race, s, Policy(pick=i)) for i, (c, s) in enumerate(zip(clients, started, strict=True)))
    )
    finished = await clients[0].wait("finished")
    seed = bytes.fromhex(finished["seed"])
    assert len(seed) == 32
    assert commitment(seed) == started[0]["commitment"] == finished["commitment"]
    assert terrace.new_game("terrace", seed).view() == started[0]["view"]

    record = await clients[1].request("record", race=race)
    assert record["type"] == "record"
    rec = record["race"]
    assert rec["seed"] == finished["seed"] and rec["commitment"] == finished["commitment"]
    assert rec["variant"] == "terrace" and rec["state"] == "finished"
    for client, outcome in zip(clients, outcomes, strict=True):
        row = row_of(rec["results"], client)
        assert row["move_list"] == [m["move"] for m in outcome.answers]
        game = terrace.replay("terrace", seed, row["move_list"])
        assert game.score == row["score"] == row_of(finished["results"], client)["score"]
        assert game.terrace_left == row["terrace_left"]
        assert game.view() == outcome.view


# ----- moves and seq ----------------------------------------------------------------


async def test_resent_seq_gets_the_first_answer_and_is_applied_once(connect: Connect) -> None:
    race, (a, _), _ = await open_race(connect, [MSGPACK, JSON])
    first = await a.request("move", race=race, seq=1, move="1-F1")
    again = await a.request("move", race=race, seq=1, move="1-F1")
    assert first["type"] == "moved" and first["seq"] == 1 and first["move"] == "1-F1"
    assert again["re"] == first["re"] + 1
    assert strip_re(again) == strip_re(first)
    assert first["view"]["moves"] == 1

    watcher = await connect(JSON)
    spectating = await watcher.request("spectate", race=race)
    assert row_of(spectating["standings"]["rows"], a)["moves"] == 1

    nxt = await a.request("move", race=race, seq=2, move="S-W")
    assert nxt["type"] == "moved" and nxt["seq"] == 2
    assert nxt["view"]["moves"] == 2 and nxt["view"]["stock"] == first["view"]["stock"] - 1


async def test_an_older_seq_within_the_kept_answers_gets_its_own_first_answer(connect: Connect) -> None:
    from terrace.race import KEEP_ANSWERS

    race, (a, _), _ = await open_race(connect, [MSGPACK, JSON])
    answers = [await a.request("move", race=race, seq=1, move="1-F1")]
    for seq in range(2, KEEP_ANSWERS + 2):
        answers.append(await a.request("move", race=race, seq=seq, move="S-W"))
        assert answers[-1]["type"] == "moved", answers[-1]
    again = await a.request("move", race=race, seq=3, move="S-W")
    assert strip_re(again) == strip_re(answers[2])
    assert again["view"]["moves"] == 3  # the view as it was then, nothing applied now
    gone = await a.request("move", race=race, seq=1, move="1-F1")  # older than the kept answers
    assert gone["code"] == "bad_seq" and gone["expected"] == KEEP_ANSWERS + 2


async def test_resend_in_canonical_form_of_lenient_text_gets_the_first_answer(connect: Connect) -> None:
    race, (a, _), _ = await open_race(connect, [JSON, MSGPACK])
    first = await a.request("move", race=race, seq=1, move="2f")
    assert first["type"] == "moved" and first["move"] == "2-F1"
    for text in ("2f", "2-F1"):
        again = await a.request("move", race=race, seq=1, move=text)
        assert strip_re(again) == strip_re(first)
    nxt = await a.request("move", race=race, seq=2, move="S-W")
    assert nxt["view"]["moves"] == 2


async def test_same_seq_with_a_different_move_is_a_seq_conflict(connect: Connect) -> None:
    race, (a, _), _ = await open_race(connect, [JSON, MSGPACK])
    first = await a.request("move", race=race, seq=1, move="1-F1")
    assert first["type"] == "moved"
    conflict = await a.request("move", race=race, seq=1, move="2-F1")
    assert conflict == {
        "type": "error",
        "re": conflict["re"],
        "code": "seq_conflict",
        "message": "seq 1 was already used for the move '1-F1'.",
        "seq": 1,
        "move": "1-F1",
    }
    again = await a.request("move", race=race, seq=1, move="1-F1")
    assert strip_re(again) == strip_re(first)


async def test_skipped_seq_is_bad_seq_naming_the_expected_one(connect: Connect) -> None:
    race, (a, _), _ = await open_race(connect, [MSGPACK, MSGPACK])
    skipped = await a.request("move", race=race, seq=2, move="1-F1")
    assert skipped["type"] == "error" and skipped["code"] == "bad_seq"
    assert skipped["expected"] == 1 and skipped["seq"] == 2
    assert skipped["message"] == "Expected seq 1, got 2."
    ok = await a.request("move", race=race, seq=1, move="1-F1")
    assert ok["type"] == "moved" and ok["seq"] == 1
    gap = await a.request("move", race=race, seq=5, move="S-W")
    assert (gap["code"], gap["expected"], gap["seq"]) == ("bad_seq", 2, 5)


async def test_a_game_at_the_move_ceiling_refuses_more_moves_and_may_still_resign(
    connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(terrace.rules.game, "MAX_MOVES", 2)  # the real one is 5,000: far too many for a test
    race, (a, _), _ = await open_race(connect, [JSON, MSGPACK])
    assert (await a.request("move", race=race, seq=1, move="3-F1"))["type"] == "moved"
    assert (await a.request("move", race=race, seq=2, move="S-W"))["type"] == "moved"
    full = await a.request("move", race=race, seq=3, move="S-W")
    assert (full["code"], full["reason"], full["move"]) == ("illegal_move", "move_limit", "S-W")
    assert (await a.request("resign", race=race))["type"] == "resigned"


async def test_illegal_move_is_refused_with_the_engine_reason_and_changes_nothing(connect: Connect) -> None:
    race, (a, _), _ = await open_race(connect, [JSON, MSGPACK])
    before = await a.request("move", race=race, seq=1, move="S-W")  # still choosing the base
    assert before["type"] == "error" and before["code"] == "illegal_move"
    assert before["reason"] == "choose_base_first" and before["move"] == "S-W"
    assert before["message"] == terrace.REASONS["choose_base_first"]
    unread = await a.request("move", race=race, seq=1, move="zz")
    assert (unread["code"], unread["reason"], unread["move"]) == ("illegal_move", "bad_notation", "zz")

    based = await a.request("move", race=race, seq=1, move="3-F1")
    assert based["type"] == "moved" and based["view"]["moves"] == 1
    empty = await a.request("move", race=race, seq=2, move="W-1")
    assert (empty["code"], empty["reason"]) == ("illegal_move", "empty_source")
    terrace_card = await a.request("move", race=race, seq=2, move="T-1")
    assert (terrace_card["code"], terrace_card["reason"]) == ("illegal_move", "terrace_to_foundation_only")

    watcher = await connect(MSGPACK)
    spectating = await watcher.request("spectate", race=race)
    assert row_of(spectating["standings"]["rows"], a)["moves"] == 1
    turned = await a.request("move", race=race, seq=2, move="S-W")
    assert turned["type"] == "moved" and turned["seq"] == 2
    assert turned["view"]["moves"] == 2 and turned["view"]["stock"] == based["view"]["stock"] - 1
    assert turned["events"] == [{"type": "turned"}]


# ----- reconnecting and disconnecting -----------------------------------------------


async def test_reconnect_with_the_session_resumes_the_race_with_the_current_view(connect: Connect) -> None:
    race, (a, _), (sa, _) = await open_race(connect, [MSGPACK, JSON])
    m1 = await a.request("move", race=race, seq=1, move="1-F1")
    m2 = await a.request("move", race=race, seq=2, move="S-W")
    assert m2["type"] == "moved"
    await a.close()

    again = await connect(JSON)
    welcome = await again.request("hello", session=a.session)  # type: ignore[attr-defined]
    assert welcome["type"] == "welcome" and welcome["player"]["id"] == player_id(a)
    assert welcome["race"] == race  # the welcome names the race whose `started` follows
    resumed = await again.wait("started")
    assert resumed["race"] == race and resumed["resumed"] is True
    assert resumed["commitment"] == sa["commitment"]
    assert resumed["view"] == m2["view"] and resumed["view"]["moves"] == 2
    assert resumed["legal"] == m2["legal"] and resumed["seq"] == 2
    assert m1["view"] != m2["view"]
    standings = await again.wait(lambda m: m.get("type") == "standings")
    assert row_of(standings["rows"], a)["moves"] == 2
    # an answer lost with the old connection: resend the same seq, get it again
    resent = await again.request("move", race=race, seq=2, move="S-W")
    assert strip_re(resent) == strip_re(m2)

    move = Policy().choose(resumed["view"], resumed["legal"])
    assert move is not None
    m3 = await again.request("move", race=race, seq=3, move=move)
    assert m3["type"] == "moved" and m3["seq"] == 3 and m3["view"]["moves"] == 3


async def test_registered_player_reconnecting_with_the_token_resumes_the_race(connect: Connect) -> None:
    a = await connect(MSGPACK)
    registered = await a.request("register", name="Regina", kind="human")
    assert registered["type"] == "registered"
    token, me = registered["token"], registered["player"]
    b = await connect(JSON, name="Bruno")
    created = await a.request("create", variant="terrace", seats=2)
    race = created["race"]["id"]
    assert (await b.request("join", race=race))["type"] == "joined"
    assert (await a.request("start", race=race))["type"] == "starting"
    await a.wait("started")
    m1 = await a.request("move", race=race, seq=1, move="2-F1")
    assert m1["type"] == "moved"
    await a.close()

    again = await connect(JSON)
    welcome = await again.request("hello", token=token)
    assert welcome["type"] == "welcome" and welcome["player"] == me
    resumed = await again.wait("started")
    assert resumed["resumed"] is True and resumed["race"] == race
    assert (resumed["view"], resumed["legal"], resumed["seq"]) == (m1["view"], m1["legal"], 1)
    m2 = await again.request("move", race=race, seq=2, move="S-W")
    assert m2["type"] == "moved" and m2["view"]["moves"] == 2


async def test_player_away_past_the_grace_period_finishes_disconnected(
    connect: Connect, server: RaceServer
) -> None:
    assert server.config.grace == 0.5
    race, (a, b), _ = await open_race(connect, [JSON, MSGPACK])
    loop = asyncio.get_running_loop()
    await b.close()
    gone = loop.time()
    away = await a.wait(lambda m: m.get("type") == "standings" and row_of(m["rows"], b)["connected"] is False)
    assert row_of(away["rows"], b)["finish"] is None
    out = await a.wait(
        lambda m: m.get("type") == "standings" and row_of(m["rows"], b)["finish"] == "disconnected",
        timeout=3,
    )
    assert loop.time() - gone >= 0.45
    row = row_of(out["rows"], b)
    assert row["finished"] is True and row["connected"] is False
    assert row_of(out["rows"], a)["finished"] is False

    assert (await a.request("resign", race=race))["type"] == "resigned"
    finished = await a.wait("finished")
    assert row_of(finished["results"], b)["finish"] == "disconnected"
    assert row_of(finished["results"], a)["finish"] == "resigned"


# ----- the clock and resigning ------------------------------------------------------


async def test_time_limit_ends_the_race_and_unfinished_players_finish_on_time(connect: Connect) -> None:
    race, (a, b, c), (sa, _, _) = await open_race(connect, [MSGPACK, JSON, MSGPACK], time_limit=1)
    assert sa["clock"]["time_limit"] == 1
    assert sa["clock"]["ends_at"] == sa["clock"]["started_at"] + 1000
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    assert (await a.request("resign", race=race))["type"] == "resigned"
    assert (await b.request("move", race=race, seq=1, move="1-F1"))["type"] == "moved"
    finished = await c.wait("finished", timeout=3)
    assert 0.8 <= loop.time() - t0 <= 2.0
    results = finished["results"]
    assert row_of(results, a)["finish"] == "resigned"
    for client, moves in ((b, 1), (c, 0)):
        row = row_of(results, client)
        assert (row["finish"], row["time"], row["moves"]) == ("time", 1000, moves)
    # B chose a base (score 1); A and C have nothing home and tie for second
    assert results[0]["player"]["id"] == player_id(b)
    assert [r["place"] for r in results] == [1, 2, 2]


async def test_the_base_card_counts_as_a_foundation_move_for_the_last_card_home_tie_break(
    connect: Connect, server: RaceServer
) -> None:
    # The placing rule (terrace.race.places): the rest are placed by score, then terrace cards left, then the
    # time of their last foundation move. Choosing the base puts a card on F1.
    race, (a, b), _ = await open_race(connect, [MSGPACK, JSON])
    first = await a.request("move", race=race, seq=1, move="1-F1")
    core = server.registry.drivers[race].race
    at = core.seats[player_id(a)].last_home_ms
    await eventually(lambda: core.race_time(now_ms()) > at, what="the race clock past a's move")
    second = await b.request("move", race=race, seq=1, move="1-F1")
    assert first["view"] == second["view"] and first["view"]["score"] == 1
    assert (await a.request("resign", race=race))["type"] == "resigned"
    assert (await b.request("resign", race=race))["type"] == "resigned"
    results = (await a.wait("finished"))["results"]
    assert [r["player"]["id"] for r in results] == [player_id(a), player_id(b)]
    assert [r["place"] for r in results] == [1, 2]


async def test_resign_finishes_the_player_and_later_moves_are_refused(connect: Connect) -> None:
    race, (a, b), _ = await open_race(connect, [JSON, MSGPACK])
    resigned = await a.request("resign", race=race)
    assert resigned == {"type": "resigned", "race": race, "re": resigned["re"]}
    standings = await b.wait(lambda m: m.get("type") == "standings" and row_of(m["rows"], a)["finished"])
    assert row_of(standings["rows"], a)["finish"] == "resigned"

    late = await a.request("move", race=race, seq=1, move="1-F1")
    assert (late["type"], late["code"]) == ("error", "player_finished")
    assert late["message"] == f"You have finished race {race}; no more moves."
    twice = await a.request("resign", race=race)
    assert twice["code"] == "player_finished"

    assert (await b.request("move", race=race, seq=1, move="1-F1"))["type"] == "moved"
    assert (await b.request("resign", race=race))["type"] == "resigned"
    finished = await b.wait("finished")
    assert [r["finish"] for r in finished["results"]] == ["resigned", "resigned"]
    after = await b.request("move", race=race, seq=2, move="S-W")
    assert (after["code"], after["message"]) == ("race_not_running", f"Race {race} is not running.")
    assert (await a.request("move", race=race, seq=1, move="1-F1"))["code"] == "race_not_running"


# ----- secrecy ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora", "louis"])
async def test_nothing_before_finished_leaks_the_seed_or_a_stock_card(connect: Connect, variant: str) -> None:
    subscriber = await connect(MSGPACK)
    assert (await subscriber.request("subscribe", topic="lobby"))["type"] == "subscribed"
    race, clients, started = await open_race(connect, [MSGPACK, JSON], variant=variant)
    watcher = await connect(JSON)
    assert (await watcher.request("spectate", race=race))["type"] == "spectating"
    outcomes = await asyncio.gather(
        *(play_out(c, race, s, Policy(pick=i)) for i, (c, s) in enumerate(zip(clients, started, strict=True)))
    )
    finished = await clients[0].wait("finished")
    await watcher.wait("finished")
    await subscriber.wait("finished")
    seed = bytes.fromhex(finished["seed"])

    for client in [*clients, watcher, subscriber]:
        for frame, _ in frames_before_finished(client):
            raw = frame.encode() if isinstance(frame, str) else frame
            assert seed not in raw
            assert seed.hex().encode() not in raw.lower()

    for client, outcome in zip(clients, outcomes, strict=True):
        game = terrace.new_game(variant, seed)
        kinds: list[str] = []
        moved = 0
        for _, msg in frames_before_finished(client):
            kind = msg["type"]
            kinds.append(kind)
            if kind not in ("started", "moved"):
                assert cards_in(msg) == set(), msg
                continue
            if kind == "moved":
                played = game.play(msg["move"])
                assert played == msg["move"] == outcome.answers[moved]["move"]
                assert msg["events"] == game.last_events
                moved += 1
            view = msg["view"]
            assert isinstance(view["stock"], int)
            assert view == game.view()
            assert msg["legal"] == sorted(game.legal_moves())
            shown = visible_cards(view)
            assert len(shown) + view["stock"] == 104
            assert cards_in(msg) <= set(shown), msg
        assert moved == len(outcome.answers) and kinds.count("started") == 1
        assert "standings" in kinds and "race" in kinds

    # spectators and lobby subscribers never see a card, only standings and summaries
    for client, expected in ((watcher, {"spectating", "standings"}), (subscriber, {"race", "standings"})):
        seen = {msg["type"] for _, msg in frames_before_finished(client)}
        assert expected <= seen and not seen & {"started", "moved"}
        for _, msg in frames_before_finished(client):
            assert cards_in(msg) == set(), msg


# ----- the lost search stays off the event loop -------------------------------------


def test_the_slow_position_needs_a_search_up_to_the_limit() -> None:
    g = slow_search_position()
    assert g.is_legal(SLOW_MOVE)
    g.play(SLOW_MOVE)
    assert g.quick_status() is None
    assert g.status == "playing" and g.searched == terrace.rules.game.SEARCH_LIMIT


async def test_a_long_lost_search_does_not_hold_up_other_players(
    connect: Connect, server: RaceServer
) -> None:
    race, (a, b), _ = await open_race(connect, [MSGPACK, JSON], goal="clear")
    server.registry.drivers[race].race.seats[player_id(a)].game = slow_search_position()
    loop = asyncio.get_running_loop()
    times: dict[str, float] = {}

    async def timed(name: str, answer: Awaitable[Message]) -> Message:
        msg = await answer
        times[name] = loop.time()
        return msg

    slow = asyncio.create_task(timed("slow", a.request("move", race=race, seq=1, move=SLOW_MOVE)))
    await eventually(lambda: server.registry.searches._running, what="the slow move's search")
    pong = await timed("ping", b.request("ping"))
    moved = await timed("move", b.request("move", race=race, seq=1, move="1-F1"))
    slow_answer = await slow
    assert pong["type"] == "pong" and moved["type"] == "moved"
    assert slow_answer["type"] == "moved" and slow_answer["status"] == "playing"
    assert slow_answer["view"]["piles"]["9"] == ["6h"]
    assert times["ping"] < times["slow"] and times["move"] < times["slow"]


async def test_seats_reaching_the_same_position_share_one_lost_search(
    connect: Connect, server: RaceServer
) -> None:
    race_id, (a, b), _ = await open_race(connect, [MSGPACK, JSON], goal="clear")
    race = server.registry.drivers[race_id].race
    dealt = [seat.game for seat in race.seats.values()]
    assert dealt[0]._memo is dealt[1]._memo  # the race deals its seats one search memory
    first, second = slow_search_position(), slow_search_position()
    second.share_searches(first)
    race.seats[player_id(a)].game, race.seats[player_id(b)].game = first, second
    moves = [asyncio.create_task(c.request("move", race=race_id, seq=1, move=SLOW_MOVE)) for c in (a, b)]
    searches = server.registry.searches
    await eventually(lambda: searches._running, what="the lost search to start")
    seats = race.seats.values()
    await eventually(
        lambda: {s.state for s in seats} == {"searching"}, what="both moves waiting on the search"
    )
    assert list(searches._running) == [first.position_key()]  # one search under way, not two
    answers = await asyncio.gather(*moves)
    assert [m["status"] for m in answers] == ["playing", "playing"]
    assert searches._running == {}
    again = slow_search_position()
    again.share_searches(first)
    again.play(SLOW_MOVE)
    assert again.quick_status() == "playing"  # remembered for every seat of the race


async def test_a_move_that_loses_the_game_finishes_its_player_and_its_answer_comes_first(
    connect: Connect, server: RaceServer
) -> None:
    race_id, (a,), _ = await open_race(connect, [MSGPACK], goal="clear")  # its terrace is empty
    # a 2c turned from the stock will fit nowhere: the game is lost by that move
    lost_next = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s"]}, stock=["2c"])
    server.registry.drivers[race_id].race.seats[player_id(a)].game = lost_next
    await a.send({"type": "move", "id": 5, "race": race_id, "seq": 1, "move": "S-W"})
    moved = await a.wait(lambda m: m.get("type") in ("moved", "finished"))
    assert moved["type"] == "moved" and moved["re"] == 5  # the answer before the end it causes
    assert moved["status"] == "lost" and moved["finish"] == "stuck"
    assert moved["events"][-1] == {"type": "game_over", "status": "lost"}
    finished = await a.wait("finished")
    (row,) = finished["results"]
    assert (row["finish"], row["place"], row["status"]) == ("stuck", 1, "lost")
    again = await a.request("move", race=race_id, seq=2, move="W-1")
    assert again["code"] == "race_not_running"


async def test_emptying_the_terrace_reaches_the_goal_with_a_final_place_while_others_play_on(
    connect: Connect, server: RaceServer
) -> None:
    race_id, (a, b), _ = await open_race(connect, [MSGPACK, JSON])  # goal: terrace
    one_left = family_game(
        "terrace", terrace_cards=["Ah"], foundations={1: ["Kc"]}, piles={1: ["9s"]}, stock=["2c"]
    )
    server.registry.drivers[race_id].race.seats[player_id(a)].game = one_left
    moved = await a.request("move", race=race_id, seq=1, move="tf")
    assert (moved["move"], moved["finish"], moved["status"]) == ("T-F1", "goal", "playing")
    assert moved["events"] == [{"type": "home", "card": "Ah", "to": "F1"}, {"type": "terrace_cleared"}]
    standings = await b.wait(lambda m: m.get("type") == "standings" and row_of(m["rows"], a)["finished"])
    first, second = standings["rows"]
    assert first["player"]["id"] == player_id(a)
    assert (first["finish"], first["place"], first["terrace_left"]) == ("goal", 1, 0)
    assert (second["finished"], second["place"]) == (False, None)  # still racing: no place yet
    assert (await a.request("move", race=race_id, seq=2, move="S-W"))["code"] == "player_finished"
    assert (await b.request("move", race=race_id, seq=1, move="1-F1"))["type"] == "moved"
    await b.request("resign", race=race_id)
    finished = await b.wait("finished")
    assert [(r["player"]["id"], r["place"], r["finish"]) for r in finished["results"]] == [
        (player_id(a), 1, "goal"),
        (player_id(b), 2, "resigned"),
    ]


async def test_goal_finishers_are_placed_by_time_ahead_of_everyone_else(
    connect: Connect, server: RaceServer
) -> None:
    race_id, (a, b, c), _ = await open_race(connect, [MSGPACK, JSON, MSGPACK])
    seats = server.registry.drivers[race_id].race.seats
    for client in (a, b):
        seats[player_id(client)].game = family_game(
            "terrace", terrace_cards=["Ah"], foundations={1: ["Kc"]}, piles={1: ["9s"]}, stock=["2c"]
        )
    assert (await c.request("move", race=race_id, seq=1, move="1-F1"))["type"] == "moved"  # c scores first
    assert (await b.request("move", race=race_id, seq=1, move="T-F1"))["finish"] == "goal"
    core = server.registry.drivers[race_id].race
    at = core.seats[player_id(b)].finish_ms
    await eventually(lambda: core.race_time(now_ms()) > at, what="the race clock past b's goal")
    assert (await a.request("move", race=race_id, seq=1, move="T-F1"))["finish"] == "goal"
    await c.request("resign", race=race_id)
    results = (await c.wait("finished"))["results"]
    assert [(r["player"]["id"], r["place"], r["finish"]) for r in results] == [
        (player_id(b), 1, "goal"),
        (player_id(a), 2, "goal"),
        (player_id(c), 3, "resigned"),
    ]
    assert results[0]["time"] < results[1]["time"]


async def test_leaving_a_running_race_finishes_left_frees_the_player_and_the_record_verifies(
    connect: Connect,
) -> None:
    from terrace.race.audit import audit

    race, (a, b), _ = await open_race(connect, [MSGPACK, JSON])
    assert (await a.request("leave", race=race))["type"] == "left"
    queued = await a.request("queue", variant="terrace")  # free at once: no grace period to wait out
    assert queued["type"] == "queued"
    standings = await b.wait(lambda m: m["type"] == "standings" and row_of(m["rows"], a)["finished"])
    assert row_of(standings["rows"], a)["finish"] == "left"
    assert (await b.request("move", race=race, seq=1, move="1-F1"))["type"] == "moved"  # the race goes on
    await b.request("resign", race=race)
    finished = await b.wait("finished")
    assert {r["finish"] for r in finished["results"]} == {"left", "resigned"}
    record = await b.request("record", race=race)
    assert audit(record).ok, audit(record).failed


async def test_a_race_timer_that_fires_early_is_set_again_and_the_race_still_starts(
    make_server: Callable[..., Awaitable[RaceServer]], connect: Connect
) -> None:
    """uvloop fires a timer up to a millisecond early (its clock is read once a loop turn): the
    race's countdown is not over yet, nothing happens, and the wake must be set again."""
    srv = await make_server(countdown=0.5)
    a = await connect(MSGPACK, name="early", srv=srv)
    race = (await a.request("create", variant="terrace", seats=1))["race"]["id"]
    await a.request("start", race=race)
    driver = srv.registry.drivers[race]
    assert driver.race.state == "countdown" and driver._timer is not None
    driver._timer.cancel()
    driver._tick()  # as an early timer would: nothing is due yet
    assert driver.race.state == "countdown"
    assert driver._timer is not None  # woken again when it is due
    assert (await a.wait("started", timeout=30))["race"] == race
