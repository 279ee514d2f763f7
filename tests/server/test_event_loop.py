"""The ``event_loop`` setting: the real command serves a race on uvloop as on asyncio's own loop, a
name that is neither is a usage error, and uvloop missing is a clear one-line failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.__main__ import loop_factory
from server.config import parse

from .command import clean_env, serving
from .wire import Client

COMMAND = str(Path(sys.executable).parent / "terrace-server")


@pytest.mark.parametrize("loop", ["asyncio", "uvloop", "auto"])
async def test_the_server_plays_a_move_on_either_event_loop(loop: str) -> None:
    async with serving("--countdown", "0", "--event-loop", loop) as (url, _):
        client = await Client.open(url)
        assert (await client.request("hello", name="looper"))["type"] == "welcome"
        race = (await client.request("create", variant="terrace", seats=1))["race"]["id"]
        await client.request("start", race=race)
        await client.wait("started")
        moved = await client.request("move", race=race, seq=1, move="1-F1")
        assert moved["type"] == "moved" and moved["view"]["moves"] == 1
        await client.close()


def test_the_event_loop_setting_names_auto_asyncio_or_uvloop() -> None:
    assert parse([], {}).event_loop == "auto"
    assert parse(["--event-loop", "asyncio"], {}).event_loop == "asyncio"
    assert parse(["--event-loop", "uvloop"], {}).event_loop == "uvloop"
    assert parse([], {"TERRACE_EVENT_LOOP": "uvloop"}).event_loop == "uvloop"
    with pytest.raises(SystemExit):
        parse(["--event-loop", "trio"], {})
    assert loop_factory("asyncio") is None
    factory = loop_factory("uvloop")
    assert factory is not None
    assert loop_factory("auto") is factory  # uvloop is installed here, as by default
    loop = factory()
    try:
        assert type(loop).__module__.startswith("uvloop")
    finally:
        loop.close()


def test_uvloop_missing_is_a_one_line_failure(tmp_path: Path) -> None:
    # a uvloop that cannot be imported, ahead of the real one on the path
    (tmp_path / "uvloop").mkdir()
    (tmp_path / "uvloop" / "__init__.py").write_text("raise ImportError('no uvloop here')\n")
    env = clean_env(PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run(
        [sys.executable, "-m", "server", "--port", "0", "--event-loop", "uvloop"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        "--event-loop uvloop needs uvloop: pip install uvloop (not on Windows)"
    )
    assert "Traceback" not in result.stderr


def test_auto_runs_on_asyncio_where_uvloop_cannot_be_imported(tmp_path: Path) -> None:
    (tmp_path / "uvloop").mkdir()
    (tmp_path / "uvloop" / "__init__.py").write_text("raise ImportError('no uvloop here')\n")
    env = clean_env(PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = "from server.__main__ import loop_factory; print(loop_factory('auto'))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=env,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert (result.returncode, result.stdout.strip()) == (0, "None"), result.stderr
