"""`terrace-server`: settings from flags and TERRACE_* variables, and the real command's
start, listen line, graceful shutdown on SIGTERM/SIGINT and a clear failure on a taken port."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import socket
import subprocess
from collections.abc import Iterator

import pytest

from server.config import Config, env_name, house_variants, parse
from terrace import VARIANTS

from .command import COMMAND, LISTEN, clean_env
from .wire import Client

# ----- config.parse ------------------------------------------------------------------------


def test_defaults_with_no_flags_and_no_environment() -> None:
    config = parse([], {})
    assert config == Config()
    assert (config.host, config.port, config.public_url) == ("127.0.0.1", 8765, "")
    assert (config.max_frame, config.rate, config.burst) == (65_536, 200.0, 1_000)
    assert (config.max_conns_per_address, config.max_pending, config.max_bad_messages) == (128, 32, 20)


def test_every_setting_has_its_environment_variable() -> None:
    assert [env_name(f.name) for f in dataclasses.fields(Config)][:4] == [
        "TERRACE_HOST",
        "TERRACE_PORT",
        "TERRACE_PUBLIC_URL",
        "TERRACE_REDIS_URL",
    ]
    changed = {
        "host": "0.0.0.0",
        "port": 9000,
        "public_url": "wss://race.example/ws",
        "redis_url": "redis://127.0.0.1:1/0",
        "max_frame": 1024,
        "rate": 12.5,
        "burst": 7,
        "max_conns_per_address": 3,
        "max_connections": 4000,
        "max_pending": 4,
        "max_bad_messages": 5,
        "max_seats": 6,
        "max_time_limit": 600,
        "default_time_limit": 300,
        "countdown": 0.5,
        "grace": 2.5,
        "queue_seats": 3,
        "queue_wait": 1.5,
        "standings_interval": 0.25,
        "keep_finished": 10,
        "search_workers": 1,
        # holding under attack
        "max_write_buffer": 65_536,
        "send_buffer": 8_192,
        "slow_reader_deadline": 2.5,
        "bytes_per_token": 512,
        "address_rate": 50.0,
        "address_burst": 100,
        "control_frames": 2.0,
        "handshake_timeout": 1.5,
        "max_open_races_per_player": 2,
        "max_open_races_per_address": 9,
        "open_race_timeout": 60.0,
        "races_page": 50,
        "registrations_per_hour": 5,
        "house_key": "the-operators-house-key",
        "house_key_file": "/srv/terrace/house.key",
        "origins": "https://race.example",
        "trusted_proxies": "10.0.0.2,10.1.0.0/16",
        "rated_seats_per_address": 2,
        "established_races": 5,
        "established_hours": 2.5,
        "pace_check": False,
        "winnable_seconds": 3.5,
        "restore_budget": 0.5,
        "memory_sessions": 50,
        "analysis_nodes": 9_000,
        "analysis_probes": 6,
        "session_ttl": 600.0,
        "redis_mode": "cluster",
        "redis_replica_acks": 1,
        "event_loop": "uvloop",
        "gc_thresholds": "1000,5,50",
        "gc_young_every": 0.2,
        "daily_secret": "ab" * 16,
        "daily_prepare": 600.0,
        "arena_schedule": "terrace bots 30m every 60m",
        "house": "terrace,louis",
    }
    assert set(changed) == {f.name for f in dataclasses.fields(Config)}
    assert parse([], {"TERRACE_PACE_CHECK": "no"}).pace_check is False  # a yes/no setting reads words too
    assert parse(["--pace-check", "on"], {"TERRACE_PACE_CHECK": "0"}).pace_check is True
    config = parse([], {env_name(k): str(v) for k, v in changed.items()})
    assert dataclasses.asdict(config) == changed
    assert config.public_url == "wss://race.example/ws"


def test_the_environment_is_read_from_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERRACE_PORT", "9001")
    monkeypatch.setenv("TERRACE_HOST", "::1")
    config = parse([])
    assert (config.host, config.port) == ("::1", 9001)


def test_flags_win_over_the_environment() -> None:
    config = parse(
        ["--port", "9100", "--max-conns-per-address", "3", "--rate", "50"],
        {"TERRACE_PORT": "9000", "TERRACE_RATE": "10", "TERRACE_BURST": "20"},
    )
    assert (config.port, config.max_conns_per_address, config.rate, config.burst) == (9100, 3, 50.0, 20)


@pytest.mark.parametrize(
    ("variable", "value", "kind"),
    [
        ("TERRACE_PORT", "eighty", "int"),
        ("TERRACE_MAX_FRAME", "1.5", "int"),
        ("TERRACE_RATE", "fast", "float"),
    ],
)
def test_an_invalid_environment_value_stops_with_a_message(
    variable: str, value: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        parse([], {variable: value})
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"terrace-server: error: {variable}={value!r} is not a valid {kind}" in err


def test_an_invalid_environment_value_is_refused_even_when_a_flag_sets_the_setting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        parse(["--port", "9000"], {"TERRACE_PORT": "eighty"})
    assert "TERRACE_PORT='eighty' is not a valid int" in capsys.readouterr().err


def test_an_invalid_flag_value_stops_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        parse(["--port", "eighty"], {})
    assert info.value.code == 2
    assert "argument --port: invalid int value: 'eighty'" in capsys.readouterr().err


LIMITS = [
    "--max-frame",
    "--rate",
    "--burst",
    "--search-workers",
    "--max-conns-per-address",
    "--max-pending",
    "--max-seats",
    "--max-time-limit",
    "--analysis-nodes",
    "--analysis-probes",
]


@pytest.mark.parametrize("value", ["0", "-1"])
@pytest.mark.parametrize("flag", LIMITS)
def test_limits_must_be_positive(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        parse([f"{flag}={value}"], {})
    assert info.value.code == 2
    assert f"terrace-server: error: {flag} must be positive" in capsys.readouterr().err


def test_a_non_positive_limit_from_the_environment_is_refused_too(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse([], {"TERRACE_MAX_PENDING": "0", "TERRACE_BURST": "-5"})
    assert "--burst must be positive; --max-pending must be positive" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["--rate", "nan"],
        ["--queue-seats", "0"],
        ["--default-time-limit", "0"],
        ["--trusted-proxies", "proxy"],
    ],
    ids=["rate-nan", "queue-seats-0", "default-time-limit-0", "trusted-proxies-not-an-address"],
)
def test_settings_that_cannot_work_are_refused(argv: list[str]) -> None:
    # rate=nan: the token bucket's min(burst, nan) keeps it full, silently no rate limit;
    # queue_seats=0: matchmaking makes empty races until RecursionError;
    # default_time_limit=0: races without a time_limit would end as they start;
    # a trusted proxy that is not an address: every X-Forwarded-For would be ignored, silently.
    with pytest.raises(SystemExit):
        parse(argv, {})


def test_a_redis_mode_other_than_single_or_cluster_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse(["--redis-mode", "cluster"], {}).redis_mode == "cluster"
    with pytest.raises(SystemExit):
        parse(["--redis-mode", "sentinel"], {})
    assert "--redis-mode must be one of single, cluster" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("secret", "complaint"),
    [
        ("not-hex", "--daily-secret must be hexadecimal digits, two for each byte (an even count)"),
        ("abc", "--daily-secret must be hexadecimal digits, two for each byte (an even count)"),  # hex, odd
        ("abcd", "--daily-secret must be at least 16 bytes"),
    ],
)
def test_a_daily_secret_must_be_long_hex(
    secret: str, complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert parse(["--daily-secret", "0f" * 16], {}).daily_secret == "0f" * 16
    with pytest.raises(SystemExit):
        parse(["--daily-secret", secret], {})
    assert complaint in capsys.readouterr().err


# ----- the real command --------------------------------------------------------------------


@pytest.fixture
def running() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The installed `terrace-server --port 0`, its listen line read: (process, websocket URL)."""
    proc = subprocess.Popen(
        [COMMAND, "--port", "0", "--countdown", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().rstrip("\n")
    match = LISTEN.match(line)
    assert match, line + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    port = int(match.group(2))
    assert port != 0  # the real port, not the 0 asked for
    page = proc.stdout.readline().rstrip("\n")
    assert page == f"  live page http://127.0.0.1:{port}/"  # the page the README promises
    health = proc.stdout.readline().rstrip("\n")
    assert health == f"  health http://127.0.0.1:{port}/healthz  metrics http://127.0.0.1:{port}/metrics"
    assert proc.stdout.readline() == "  event loop uvloop\n"  # --event-loop auto, uvloop installed
    yield proc, match.group(1)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_the_command_serves_then_shuts_down_gracefully_on_a_signal(
    running: tuple[subprocess.Popen[str], str], sig: signal.Signals
) -> None:
    proc, url = running
    client = await Client.open(url)
    welcome = await client.request("hello", name="alice")
    assert (welcome["type"], welcome["player"]["name"]) == ("welcome", "alice")
    race = (await client.request("create", variant="terrace", seats=1))["race"]["id"]
    await client.request("start", race=race)
    await client.wait("started")  # a running race, with its clock, is no reason to hang
    proc.send_signal(sig)
    await asyncio.wait_for(client.closed, 5)
    assert client.ws.close_code == 1001
    assert await asyncio.to_thread(proc.wait, 5) == 0
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read() == "terrace-server shutting down: closing connections (1001)\n"
    assert "Traceback" not in proc.stderr.read()


async def test_the_port_is_free_again_after_shutdown(running: tuple[subprocess.Popen[str], str]) -> None:
    proc, url = running
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(proc.wait, 5) == 0
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))  # no OSError: nothing listens there any more


def test_a_port_in_use_fails_with_exit_code_1_and_a_clear_message() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [COMMAND, "--port", str(port)], capture_output=True, text=True, timeout=30, env=clean_env()
        )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"terrace-server: cannot listen on 127.0.0.1:{port}: [Errno 98] ")
    assert "address already in use" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_fails_with_a_clear_message(port: str) -> None:
    result = subprocess.run(
        [COMMAND, "--port", port], capture_output=True, text=True, timeout=30, env=clean_env()
    )
    assert result.returncode in (1, 2)  # a usage error (2) or cannot listen (1): either, told clearly
    assert result.stderr.startswith(("terrace-server: ", "usage: terrace-server"))
    assert "port" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_installed_console_script_documents_every_setting() -> None:
    result = subprocess.run([COMMAND, "--help"], capture_output=True, text=True, timeout=30, env=clean_env())
    assert result.returncode == 0
    for f in dataclasses.fields(Config):
        assert f"--{f.name.replace('_', '-')}" in result.stdout
        assert f"TERRACE_{f.name.upper()}" in result.stdout


@pytest.mark.parametrize("url", ["127.0.0.1:19090", "http://127.0.0.1:6379/0", "localhost"])
def test_a_redis_url_without_a_redis_scheme_is_a_usage_error_in_one_line(url: str) -> None:
    result = subprocess.run(
        [COMMAND, "--redis", url], capture_output=True, text=True, timeout=30, env=clean_env()
    )
    assert result.returncode == 2
    assert "needs a scheme: redis://HOST:PORT/DB" in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("terrace-server: error: --redis-url")


def test_an_unreachable_redis_stops_the_server_with_exit_1_and_one_line() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result = subprocess.run(
        [COMMAND, "--port", "0", "--redis", f"redis://127.0.0.1:{port}/0"],
        capture_output=True,
        text=True,
        timeout=30,
        env=clean_env(),
    )
    assert result.returncode == 1
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith(f"terrace-server: cannot reach the store at redis://127.0.0.1:{port}/0")


async def test_a_second_server_on_a_taken_port_restores_nothing_before_it_stops(redis_url: str) -> None:
    """The second server shares the first one's Redis: had it rebuilt the first one's running race
    before failing to bind, both would be running it."""
    first = subprocess.Popen(
        [COMMAND, "--port", "0", "--redis", redis_url, "--countdown", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        assert first.stdout is not None
        match = LISTEN.match(first.stdout.readline().strip())
        assert match, "the first server did not start"
        url, port = match.group(1), match.group(2)
        alice = await Client.open(url)
        await alice.request("hello", name="alice")
        race = (await alice.request("create", variant="terrace", seats=1))["race"]["id"]
        await alice.request("start", race=race)
        await alice.wait("started")
        second = await asyncio.to_thread(
            subprocess.run,
            [COMMAND, "--port", port, "--redis", redis_url],
            capture_output=True,
            text=True,
            timeout=30,
            env=clean_env(),
        )
        assert second.returncode == 1 and "cannot listen on" in second.stderr
        assert "restored" not in second.stderr and "Traceback" not in second.stderr
        assert (await alice.request("move", race=race, seq=1, move="1f"))["type"] == "moved"
        await alice.close()
    finally:
        first.terminate()
        first.wait(10)


async def test_the_log_says_nothing_of_each_connection_opened_and_closed() -> None:
    """websockets' own lines (connection open, closed, HTTP answers) carry no path or peer: a
    health check every second made a third of a node's log of them."""
    import urllib.request

    from .wire import Client

    proc = subprocess.Popen(
        [COMMAND, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env()
    )
    try:
        assert proc.stdout is not None
        match = LISTEN.match(proc.stdout.readline().strip())
        assert match, "the server did not start"
        for _ in range(3):
            c = await Client.open(match.group(1))
            await c.close()
        url = f"http://127.0.0.1:{match.group(2)}/healthz"
        await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
    finally:
        proc.terminate()
        _, log = proc.communicate(timeout=30)
    assert "connection open" not in log and "connection closed" not in log and "HTTP response" not in log, log


def test_the_help_names_the_arena_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--help"], {})
    assert "terrace-server arena create|list" in " ".join(capsys.readouterr().out.split())


def test_house_alone_means_every_variant_and_a_list_names_some() -> None:
    assert parse([], {}).house == ""
    assert house_variants(parse(["--house"], {}).house) == list(VARIANTS)
    assert house_variants(parse(["--house", "louis, terrace"], {}).house) == ["louis", "terrace"]


def test_a_house_variant_that_does_not_exist_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--house", "terrace,spider"], {})
    assert "--house: 'spider' is not a variant" in capsys.readouterr().err
