"""``terrace register``, ``verify`` and ``replay`` against a real server, called in-process.

A whole race is played to its end by two wire clients (the server tests' view-only
policy); its record then verifies, a tampered copy saved to a file does not and
names the failed check, and replay prints every player's moves and final score.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import re
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from client import config, records
from server.app import RaceServer
from tests.server.scripted_players import Policy, play_out
from tests.server.wire import Client, Message

Connect = Callable[..., Awaitable[Client]]


def console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=200, color_system=None, force_terminal=False, highlight=False), buf


def ns(server: RaceServer, **fields: Any) -> argparse.Namespace:
    base: dict[str, Any] = {
        "server": server.url,
        "json": False,
        "no_hindsight": True,
    }  # see test_replay_hindsight
    return argparse.Namespace(**{**base, **fields})


async def run(command: Any, args: argparse.Namespace) -> tuple[int, str]:
    out, buf = console()
    code = await command(args, out)
    return code, buf.getvalue()


async def finished_race(connect: Connect) -> tuple[str, Message]:
    """Two guests race on terrace to the end; the race id and the ``finished`` push."""
    a, b = await connect(name="Ann"), await connect(name="Ben")
    created = await a.request("create", variant="terrace", seats=2, start="full")
    assert created["type"] == "created", created
    race = created["race"]["id"]
    assert (await b.request("join", race=race))["type"] == "joined"
    sa, sb = await a.wait("started"), await b.wait("started")
    await asyncio.gather(play_out(a, race, sa, Policy(pick=0)), play_out(b, race, sb, Policy(pick=1)))
    finished = await a.wait("finished")
    return race, finished


@pytest.fixture
async def race(connect: Connect) -> tuple[str, Message]:
    return await finished_race(connect)


async def fetch_record(connect: Connect, race: str) -> Message:
    c = await connect()
    answer = await c.request("record", race=race)
    assert answer["type"] == "record", answer
    return answer["race"]  # type: ignore[no-any-return]


# ----- verify -------------------------------------------------------------------------


async def test_a_finished_race_verifies(server: RaceServer, race: tuple[str, Message]) -> None:
    race_id, _ = race
    code, text = await run(records.verify, ns(server, race=race_id, file=None))
    assert code == 0, text
    labels = (
        "seed",
        "commitment",
        "deal",
        "first_view",
        "replay (Ann)",
        "result (Ben)",
        "finish (Ann)",
        "places",
    )
    for label in labels:
        assert f"✓ {label}" in text
    assert "✗" not in text
    assert f"Race {race_id} verifies: all 12 checks pass." in text


async def test_verify_json_is_the_audit_as_data(
    server: RaceServer, race: tuple[str, Message], capsys: pytest.CaptureFixture[str]
) -> None:
    race_id, _ = race
    code, _ = await run(records.verify, ns(server, race=race_id, file=None, json=True))
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] is True and data["race"] == race_id
    assert {c["name"] for c in data["checks"]} == {
        "record", "seed", "commitment", "deal", "first_view", "replay", "result", "finish", "places",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("tamper", "failed"),
    [
        (lambda r: r["results"][1]["move_list"].__setitem__(0, "9-F1"), "replay (Ben)"),
        (lambda r: r.__setitem__("seed", "ab" * 32), "commitment"),
        (lambda r: r["results"][0].__setitem__("score", r["results"][0]["score"] + 1), "result (Ann)"),
        (lambda r: r["results"][0].__setitem__("place", 3), "places"),
    ],
    ids=["move", "seed", "score", "place"],
)
async def test_a_tampered_record_file_fails_naming_the_check(
    server: RaceServer,
    connect: Connect,
    race: tuple[str, Message],
    tmp_path: Path,
    tamper: Callable[[Message], None],
    failed: str,
) -> None:
    race_id, _ = race
    record = await fetch_record(connect, race_id)
    record["results"].sort(key=lambda r: r["player"]["name"])  # Ann first, whatever the places
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    code, text = await run(records.verify, ns(server, race=race_id, file=str(good)))
    assert code == 0, text
    tamper(record)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    code, text = await run(records.verify, ns(server, race=race_id, file=str(bad)))
    assert code == 1
    assert f"✗ {failed}" in text
    assert "does NOT verify" in text and failed in text.splitlines()[-1]


async def test_verify_a_file_of_another_race_fails(
    server: RaceServer, connect: Connect, tmp_path: Path
) -> None:
    race_id, _ = await finished_race(connect)
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"type": "record", "race": await fetch_record(connect, race_id)}))
    code, text = await run(records.verify, ns(server, race="someother", file=str(path)))
    assert code == 1 and "✗ record" in text and "not 'someother'" in text
    code, text = await run(records.verify, ns(server, race=None, file=str(path)))
    assert code == 0, text


async def test_verify_save_keeps_the_record_and_file_checks_it_again_with_no_server(
    server: RaceServer, connect: Connect, tmp_path: Path
) -> None:
    race_id, _ = await finished_race(connect)
    path = tmp_path / "kept.json"
    code, text = await run(records.verify, ns(server, race=race_id, file=None, save=str(path)))
    assert code == 0, text
    assert f"Saved the record to {path}: `terrace verify --file {path}` checks it again offline." in " ".join(
        text.split()
    )
    assert json.loads(path.read_text())["id"] == race_id
    offline = argparse.Namespace(server="ws://127.0.0.1:9/ws", race=None, file=str(path), json=False)
    code, text = await run(records.verify, offline)  # nothing listens there: the file is enough
    assert code == 0, text
    kept = json.loads(path.read_text())
    kept["results"][0]["score"] += 1  # a record changed after it was saved no longer verifies
    path.write_text(json.dumps(kept))
    code, text = await run(records.verify, offline)
    assert code == 1 and "does NOT verify" in text


async def test_verify_an_unknown_race_prints_the_servers_message(server: RaceServer) -> None:
    code, text = await run(records.verify, ns(server, race="nope", file=None))
    assert code == 1
    assert "There is no race 'nope'." in text


async def test_verify_a_running_race_prints_not_finished(server: RaceServer, connect: Connect) -> None:
    a = await connect(name="Cy")
    created = await a.request("create", variant="terrace", seats=1, start="full")
    race_id = created["race"]["id"]
    await a.wait("started")
    code, text = await run(records.verify, ns(server, race=race_id, file=None))
    assert code == 1
    assert f"Race {race_id} has not finished" in text


async def one_move_then_resign(connect: Connect, name: str) -> str:
    """A race of one seat: ``name`` picks the base and resigns. Its id."""
    a = await connect(name=name)
    created = await a.request("create", variant="terrace", seats=1, start="full")
    race_id = str(created["race"]["id"])
    await a.wait("started")
    assert (await a.request("move", race=race_id, seq=1, move="1f"))["type"] == "moved"
    assert (await a.request("resign", race=race_id))["type"] == "resigned"
    await a.wait("finished")
    return race_id


async def test_verify_says_a_resigned_game_was_resigned(server: RaceServer, connect: Connect) -> None:
    race_id = await one_move_then_resign(connect, "newcomer")
    code, text = await run(records.verify, ns(server, race=race_id, file=None))
    assert code == 0, text
    [result] = [line for line in text.splitlines() if line.startswith("✓ result (newcomer)")]
    assert result.rstrip().endswith("score 1, terrace left 11, 1 move, resigned (game status playing)"), (
        result
    )
    assert re.search(r"✓ replay \(newcomer\) +1 move, every one legal", text), text


async def test_verify_usage_errors_exit_2(server: RaceServer, tmp_path: Path) -> None:
    assert (await run(records.verify, ns(server, race=None, file=None)))[0] == 2
    code, text = await run(records.verify, ns(server, race="x", file=str(tmp_path / "missing.json")))
    assert code == 2 and "cannot read" in text
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    code, text = await run(records.verify, ns(server, race="x", file=str(junk)))
    assert code == 1 and "not JSON" in text


# ----- register -----------------------------------------------------------------------


async def test_register_stores_the_token_readable_only_by_its_owner(
    server: RaceServer, config_dir: Path
) -> None:
    code, text = await run(records.register, ns(server, name="Dora", bot=False))
    assert code == 0, text
    path = config_dir / "credentials.json"
    assert str(path) in text.replace("\n", "") and "only this once" in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(config_dir).st_mode) == 0o700
    stored = config.load_token(server.url)
    assert stored is not None and stored["name"] == "Dora" and stored["kind"] == "human"
    assert stored["token"] not in text  # the token stays in the file
    # the stored token is the account's: hello with it
    conn = await Client.open(server.url)
    try:
        welcome = await conn.request("hello", token=stored["token"])
        assert welcome["type"] == "welcome" and welcome["player"]["name"] == "Dora"
    finally:
        await conn.close()


async def test_register_the_same_name_again_is_refused_with_the_servers_message(server: RaceServer) -> None:
    assert (await run(records.register, ns(server, name="Eli", bot=True)))[0] == 0
    first = config.load_token(server.url)
    code, text = await run(records.register, ns(server, name="eli", bot=False))
    assert code == 1
    assert "The name 'eli' is taken, or looks too like one that is" in " ".join(text.split())
    assert config.load_token(server.url) == first  # the stored token is untouched


async def test_register_a_second_name_keeps_the_first_accounts_token_and_says_how_to_use_both(
    server: RaceServer,
) -> None:
    assert (await run(records.register, ns(server, name="Gil", bot=False)))[0] == 0
    first = config.load_token(server.url, "Gil")
    code, text = await run(records.register, ns(server, name="Hal", bot=True))
    assert code == 0
    assert config.load_token(server.url, "Gil") == first  # not overwritten: that account is not lost
    assert "Also stored for this server: Gil" in text and "terrace play --name Gil" in text
    assert first is not None
    conn = await Client.open(server.url)
    try:
        assert (await conn.request("hello", token=first["token"]))["player"]["name"] == "Gil"
    finally:
        await conn.close()


async def test_register_a_bad_name_exits_1(server: RaceServer) -> None:
    code, text = await run(records.register, ns(server, name="9lives", bot=False))
    assert code == 1 and "A name is 2 to 24 characters" in text
    assert config.load_token(server.url) is None


async def test_register_json_names_the_player_and_the_file(
    server: RaceServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = await run(records.register, ns(server, name="Finn", bot=True, json=True))
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["player"]["name"] == "Finn" and data["player"]["kind"] == "bot"
    assert data["stored"] == str(config_dir / "credentials.json")
    assert "token" not in data


# ----- replay -------------------------------------------------------------------------


async def test_replay_prints_each_players_moves_and_final_score(
    server: RaceServer, connect: Connect, race: tuple[str, Message]
) -> None:
    race_id, _ = race
    record = await fetch_record(connect, race_id)
    code, text = await run(records.replay, ns(server, race=race_id, player=None, all=True))
    assert code == 0, text
    assert f"Race {race_id}: terrace" in text
    for row in record["results"]:
        name = row["player"]["name"]
        assert f"{name}: place {row['place']}, {row['finish']}" in text
        section = text.split(f"{name}: place")[1]
        moves = row["move_list"]
        assert f"     1  {moves[0]}" in section
        assert f"  {len(moves):4d}  {moves[-1]}" in section
        assert f"final: score {row['score']}, terrace left {row['terrace_left']}, {row['status']}" in section
        assert f"final board after {len(moves)} moves" in section


async def test_replay_one_player_and_an_unknown_one(
    server: RaceServer, connect: Connect, race: tuple[str, Message]
) -> None:
    race_id, _ = race
    code, text = await run(records.replay, ns(server, race=race_id, player="ben", all=False))
    assert code == 0
    assert "Ben: place" in text and "Ann: place" not in text
    code, text = await run(records.replay, ns(server, race=race_id, player="Zed", all=False))
    assert code == 1 and "no player Zed" in text and "Ann" in text and "Ben" in text


async def test_replay_json(
    server: RaceServer, connect: Connect, race: tuple[str, Message], capsys: pytest.CaptureFixture[str]
) -> None:
    race_id, _ = race
    record = await fetch_record(connect, race_id)
    code, _ = await run(records.replay, ns(server, race=race_id, player=None, all=False, json=True))
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["race"] == race_id
    for got, row in zip(data["players"], record["results"], strict=True):
        assert [s["move"] for s in got["steps"]] == row["move_list"]
        assert got["final"]["score"] == row["score"] and got["error"] is None


async def test_replay_of_a_race_of_one_counts_in_the_singular(server: RaceServer, connect: Connect) -> None:
    race_id = await one_move_then_resign(connect, "Solo")
    code, text = await run(records.replay, ns(server, race=race_id, player=None, all=True))
    assert code == 0, text
    assert f"Race {race_id}: terrace, goal terrace, 1 player, seed " in text
    assert "Solo: place 1, resigned" in text and "terrace left 11, 1 move\n" in text
    assert "final board after 1 move:" in text and "players" not in text and " 1 moves" not in text


async def test_replay_of_an_unknown_race_exits_1(server: RaceServer) -> None:
    code, text = await run(records.replay, ns(server, race="nope", player=None, all=True))
    assert code == 1 and "There is no race 'nope'." in text


async def test_replay_steps_with_keys_on_a_terminal(
    server: RaceServer, connect: Connect, race: tuple[str, Message], monkeypatch: pytest.MonkeyPatch
) -> None:
    race_id, _ = race
    record = await fetch_record(connect, race_id)
    first, second = record["results"]
    keys = iter(["", "n", "b", "p", "n", "q"])  # next, next, back, next player, next, quit
    prompts: list[str] = []

    async def key(prompt: str) -> str:
        prompts.append(prompt)
        return next(keys)

    monkeypatch.setattr(records, "_key", key)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    code, text = await run(records.replay, ns(server, race=race_id, player=None, all=False))
    assert code == 0, text
    assert len(prompts) == 6 and "[b]ack" in prompts[0]
    n1, n2 = len(first["move_list"]), len(second["move_list"])
    shown = [line for line in text.splitlines() if line.startswith(("move ", "the deal"))]
    assert [line.partition("  ·")[0] for line in shown] == [
        f"the deal ({n1} moves to come)",
        f"move 1 of {n1}: {first['move_list'][0]}",
        f"move 2 of {n1}: {first['move_list'][1]}",
        f"move 1 of {n1}: {first['move_list'][0]}",
        f"the deal ({n2} moves to come)",
        f"move 1 of {n2}: {second['move_list'][0]}",
    ]
