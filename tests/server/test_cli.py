"""`terrace-server`: settings from flags and TERRACE_* variables, and the real command's
start, listen line, graceful shutdown on SIGTERM/SIGINT and a clear failure on a taken port."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from server.config import Config, parse

from .wire import Client

LISTEN = re.compile(r"listening on (ws://127\.0\.0\.1:(\d+)/ws)")


def test_defaults_with_no_flags_and_no_environment() -> None:
    assert parse([], {}) == Config()
    assert Config().url == "ws://127.0.0.1:8765/ws"


def test_environment_variables_set_each_kind_of_setting() -> None:
    config = parse(
        [], {"TERRACE_PORT": "9000", "TERRACE_RATE": "12.5", "TERRACE_PUBLIC_URL": "wss://race.example/ws"}
    )
    assert (config.port, config.rate, config.public_url) == (9000, 12.5, "wss://race.example/ws")
    assert config.url == "wss://race.example/ws"


def test_flags_win_over_the_environment() -> None:
    config = parse(["--port", "9100", "--max-conns-per-address", "3"], {"TERRACE_PORT": "9000"})
    assert (config.port, config.max_conns_per_address) == (9100, 3)


def test_an_invalid_environment_value_stops_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        parse([], {"TERRACE_PORT": "eighty"})
    assert info.value.code == 2
    assert "TERRACE_PORT='eighty' is not a valid int" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--rate", "--max-frame", "--burst", "--search-workers"])
def test_limits_must_be_positive(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse([flag, "0"], {})
    assert f"{flag} must be positive" in capsys.readouterr().err


@pytest.fixture
def running() -> Iterator[tuple[subprocess.Popen[str], str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TERRACE_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", "0", "--countdown", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = LISTEN.search(line)
    assert match, line + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    yield proc, match.group(1)
    if proc.poll() is None:
        proc.kill()
    proc.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_the_command_serves_then_shuts_down_gracefully_on_a_signal(
    running: tuple[subprocess.Popen[str], str], sig: signal.Signals
) -> None:
    proc, url = running
    client = await Client.open(url)
    assert (await client.request("hello", name="alice"))["type"] == "welcome"
    proc.send_signal(sig)
    await asyncio.wait_for(client.closed, 10)
    assert client.ws.close_code == 1001
    assert await asyncio.to_thread(proc.wait, 10) == 0
    assert proc.stdout is not None and "shutting down" in proc.stdout.read()


def test_a_port_in_use_fails_with_exit_code_1_and_a_clear_message() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "server", "--port", str(port)], capture_output=True, text=True, timeout=30
        )
    assert result.returncode == 1
    assert f"terrace-server: cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_installed_console_script_documents_every_setting() -> None:
    from dataclasses import fields
    from pathlib import Path

    script = Path(sys.executable).parent / "terrace-server"
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    for f in fields(Config):
        assert f"--{f.name.replace('_', '-')}" in result.stdout
        assert f"TERRACE_{f.name.upper()}" in result.stdout
