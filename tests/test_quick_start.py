"""The README's quick start, run as written: its two lines pasted together into ``bash`` in a
fresh copy of the project, then its ``terrace play`` line; a person who queues must be racing
the house bots within a minute. A README whose quick start drifts fails here.

The port moves by the environment (``TERRACE_PORT`` for the server, ``TERRACE_SERVER`` for the
client), not by editing the lines: what runs is what the README says. The install is the real
one (a new venv, ``pip install -e .``), from the package index the machine is set up with.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.poll import eventually_sync

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
WITHIN = 60.0  # seconds from the person's queue to a race against the house


def quick_start() -> tuple[list[str], str]:
    """The quick start's first code block (the lines to paste) and its ``terrace play`` line."""
    text = README.read_text()
    section = text[text.index("## Quick start") :]
    section = section[: section.index("\n## ", 4)]
    blocks = re.findall(r"(?:^    \S.*\n)+", section, re.M)
    paste = [line.strip() for line in blocks[0].splitlines()]
    play = next(b.strip() for b in blocks[1:] if "terrace play" in b)
    return paste, play


def test_the_quick_start_is_two_complete_lines_that_do_not_background_each_other() -> None:
    paste, play = quick_start()
    assert len(paste) == 2, paste
    for line in paste:  # a line ending in & runs in the background and the next one starts too soon
        assert not line.endswith(("&", "\\", "&&", "|")), line
    assert play.startswith(".venv/bin/terrace play --queue")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _project_copy(to: Path) -> None:
    """The project's files as a fresh clone has them (tracked and new, never .venv or .git)."""
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for name in files:
        source = ROOT / name
        if source.is_file() and not name.startswith(("tests/", "benchmarks/")):
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)


@pytest.fixture
def pasted(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, dict[str, str], list[str]]]:
    """The two lines pasted into bash in a fresh copy; yields bash, the copy, its environment
    and the lines it printed so far (read by a thread); bash and all it started end after."""
    clone = tmp_path / "terrace-race"
    clone.mkdir()
    _project_copy(clone)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TERRACE_", "VIRTUAL_ENV"))}
    # python3 as a newcomer's: the interpreter running these tests, not this venv's
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if Path(p) != Path(sys.executable).parent
    )
    env.update(
        TERRACE_PORT=str(port),
        TERRACE_SERVER=f"ws://127.0.0.1:{port}/ws",
        TERRACE_CONFIG_DIR=str(tmp_path / "config"),
        PIP_QUIET="1",
    )
    paste, _ = quick_start()
    bash = subprocess.Popen(
        ["bash"],
        cwd=clone,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: everything it started ends with it
    )
    assert bash.stdin is not None and bash.stdout is not None
    bash.stdin.write("\n".join(paste) + "\n")  # pasted together, as a person does
    bash.stdin.close()
    seen: list[str] = []
    out = bash.stdout
    threading.Thread(target=lambda: seen.extend(iter(out.readline, "")), daemon=True).start()
    try:
        yield bash, clone, env, seen
    finally:
        os.killpg(bash.pid, signal.SIGTERM)  # the server (its house ends with it) and bash
        try:
            bash.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(bash.pid, signal.SIGKILL)
            bash.wait()
        out.close()


def test_the_readme_quick_start_pasted_as_written_races_a_person_against_the_house(
    pasted: tuple[subprocess.Popen[str], Path, dict[str, str], list[str]],
) -> None:
    bash, clone, env, seen = pasted
    port = env["TERRACE_PORT"]

    def said(what: str) -> bool:
        assert bash.poll() is None, "".join(seen)  # bash ended: the server did not stay up
        return any(what in line for line in seen)

    eventually_sync(lambda: said(f"listening on ws://127.0.0.1:{port}/ws"), timeout=180, what="the server")
    every = "  house bots waiting: terrace, queen-of-italy, signora, louis"  # the server says so
    eventually_sync(lambda: said(every), what="the server's line on its house")
    eventually_sync(lambda: said("house: 12 bots waiting"), timeout=60, what="the house in every queue")
    _, play = quick_start()
    started = time.monotonic()
    person = subprocess.run(
        ["bash", "-c", play],
        cwd=clone,
        env={**env, "COLUMNS": "80"},
        input="quit\ny\n",  # leaves the screen once it is drawn (the race goes on)
        capture_output=True,
        text=True,
        timeout=WITHIN + 30,
    )
    took = time.monotonic() - started
    assert person.returncode == 0, person.stdout + person.stderr
    assert "Queued for terrace" in person.stdout
    assert re.search(r"house-\w+-terrace-\d bot", person.stdout), person.stdout  # racing the house
    assert "You left the screen" in person.stdout
    assert took < WITHIN, took
