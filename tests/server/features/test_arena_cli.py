"""``terrace-server arena``: the operator makes arenas in the servers' Redis, and a running server
on that Redis serves them; bad input is refused with a sentence and exit code 2."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from server.__main__ import main
from server.config import parse
from server.features.arena_cli import parse_start
from tests.server.conftest import MakeServer
from tests.server.wire import Client

NOW = 1_700_000_000_000


def test_start_times_are_now_relative_or_iso() -> None:
    assert parse_start("now", NOW) == NOW
    assert parse_start("+90s", NOW) == NOW + 90_000
    assert parse_start("+10m", NOW) == NOW + 600_000
    assert parse_start("+2h", NOW) == NOW + 7_200_000
    assert parse_start("2027-01-15T08:00Z", NOW) == 1_800_000_000_000
    assert parse_start("2027-01-15T08:00", NOW) == 1_800_000_000_000  # UTC unless it says otherwise
    assert parse_start("2027-01-15T09:00+01:00", NOW) == 1_800_000_000_000
    with pytest.raises(ValueError, match="use now"):
        parse_start("tomorrow", NOW)


def test_create_needs_the_shared_store(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TERRACE_REDIS_URL", raising=False)
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "create", "cup"])
    assert exit_.value.code == 2
    assert "--redis-url" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["create", "Bad Id"], "arena id"),
        (["create", "cup", "--variant", "chess"], "unknown variant"),
        (["create", "cup", "--minutes", "0"], "at most"),
        (["create", "cup", "--start", "soon"], "use now"),
        (["create", "cup", "--pool", "robots"], "invalid choice"),
    ],
)
def test_bad_arenas_are_refused_with_a_sentence(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "--redis-url", "redis://127.0.0.1:1/0", *argv])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err


def test_a_bad_schedule_setting_stops_the_server_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--arena-schedule", "terrace bots 90m every 60m"], {})
    assert "--arena-schedule" in capsys.readouterr().err
    assert (
        parse(["--arena-schedule", "terrace bots 30m every 60m"], {}).arena_schedule
        == "terrace bots 30m every 60m"
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "arena", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_an_arena_made_by_the_operator_is_served_by_a_server_on_that_redis(
    make_server: MakeServer, redis_url: str
) -> None:
    made = _cli(
        "--redis-url",
        redis_url,
        "create",
        "friday-cup",
        "--pool",
        "bots",
        "--start",
        "+2h",
        "--minutes",
        "45",
        "--name",
        "Friday cup",
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("arena friday-cup: terrace (goal terrace), pool bots, ")
    again = _cli("--redis-url", redis_url, "create", "friday-cup")
    assert again.returncode == 1 and "exists already" in again.stderr
    listed = _cli("list", "--redis-url", redis_url)  # the store's options before or after the command
    assert listed.returncode == 0 and listed.stdout.split()[:3] == ["friday-cup", "upcoming", "terrace"]
    server = await make_server(redis_url=redis_url)
    client = await Client.open(server.url)
    answer = await client.request("arenas")
    (arena,) = answer["upcoming"]
    assert (arena["id"], arena["name"], arena["pool"]) == ("friday-cup", "Friday cup", "bots")
    assert arena["ends_ms"] - arena["starts_ms"] == 45 * 60_000
    assert abs(arena["starts_ms"] - (time.time() * 1000 + 7_200_000)) < 60_000
    await client.close()


def test_an_unreachable_store_exits_1_with_a_message() -> None:
    done = _cli("--redis-url", "redis://127.0.0.1:1/0", "list")
    assert done.returncode == 1 and "cannot reach the store" in done.stderr
