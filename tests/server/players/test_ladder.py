"""The bot ladder's data over both stores: races played on the rating boards, once per race;
each rated race in the players' history with the rating after it; a player's page."""

from __future__ import annotations

import pytest

from server.app import RaceServer
from server.players.leaderboards import Leaderboards
from server.store import Store
from terrace.errors import ProtocolError
from terrace.wire.messages import LeaderboardQuery
from tests.server.players.test_leaderboards import _record, boards, clock, store
from tests.server.wire import Client

__all__ = ["boards", "clock", "store"]  # fixtures


def _bots_race(winner: str, loser: str) -> dict[str, object]:
    record = _record((winner, 1, "goal", 5000), (loser, 2, "stuck", None), kind="bot")
    record["ended_at"] = 1_795_400_000_000
    return record


async def test_rating_rows_count_each_rated_race_once(boards: Leaderboards) -> None:
    first = _bots_race("robo", "tin")
    await boards.race_finished(first)
    await boards.race_finished(_bots_race("tin", "robo"))
    assert await boards.race_finished(first) == []  # a retry changes nothing
    await boards.race_finished(_bots_race("robo", "tin"))
    answer = await boards.answer(LeaderboardQuery(board="rating", variant="terrace", pool="bots"))
    assert {r["player"]["name"]: r["races"] for r in answer["rows"]} == {"robo": 3, "tin": 3}


async def test_a_players_page_has_ratings_with_races_and_the_rating_after_each_race(
    boards: Leaderboards, store: Store
) -> None:
    races = [_bots_race("robo", "tin"), _bots_race("robo", "tin"), _bots_race("tin", "robo")]
    for record in races:
        await boards.race_finished(record)
    await boards.race_finished(races[0])  # applied once: its history entry too
    page = await boards.player("robo")
    assert page["type"] == "player" and page["player"] == {"id": "a-robo", "name": "robo", "kind": "bot"}
    (rating,) = page["ratings"]
    assert (rating["pool"], rating["variant"], rating["races"], rating["rank"]) == (
        "bots",
        "terrace",
        3,
        rating["rank"],
    )
    assert rating["rank"] in (1, 2)
    history = page["history"]
    assert [h["race"] for h in history] == [r["id"] for r in reversed(races)]  # newest first
    assert [h["place"] for h in history] == [2, 1, 1]
    assert history[0]["rating"] == rating["value"]
    assert history[1]["rating"] > history[2]["rating"]  # a second win raises it
    assert history[0]["rating"] < history[1]["rating"]  # a loss lowers it
    assert all(h["players"] == 2 and h["pool"] == "bots" and h["at"] == 1_795_400_000_000 for h in history)


async def test_unrated_races_leave_no_history_and_an_unknown_name_is_no_player(boards: Leaderboards) -> None:
    await boards.race_finished(_record(("alice", 1, "goal", 5000), ("guest1", 2, "stuck", None)))
    page = await boards.player("alice")
    assert page["ratings"] == [] and page["history"] == []  # a race with a guest is not rated
    with pytest.raises(ProtocolError) as missing:
        await boards.player("nobody")
    assert (missing.value.code, missing.value.fields["name"]) == ("no_player", "nobody")


async def test_the_player_request_needs_no_hello_and_names_an_unknown_player(server: RaceServer) -> None:
    client = await Client.open(server.url)
    registered = await Client.open(server.url)
    assert (await registered.request("register", name="Botty", kind="bot"))["type"] == "registered"
    answer = await client.request("player", name="Botty")
    assert answer["type"] == "player" and answer["player"]["name"] == "Botty"
    assert (answer["ratings"], answer["history"]) == ([], [])
    missing = await client.request("player", name="Nobody")
    assert (missing["code"], missing["name"]) == ("no_player", "Nobody")
    bad = await client.request("player")
    assert (bad["code"], bad["field"]) == ("bad_field", "name")
    await client.close()
    await registered.close()
