"""A server's child processes die with it, however it dies: the real ``terrace-server`` with its
search workers (started by a winnable deal's draw), the daily deal's worker, the forkserver, the
resource tracker and its ``--house`` bots is killed with SIGKILL, and none of them stays."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.poll import eventually

from .command import COMMAND, LISTEN, clean_env
from .wire import Client

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


def _stat(pid: int) -> tuple[int, str, str] | None:
    """(parent, state, start time) of a live process, None once it is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (name) "
    if fields[0] in ("Z", "X"):
        return None  # dead, only waiting to be reaped
    return int(fields[1]), fields[0], fields[19]


def descendants(root: int) -> dict[int, str]:
    """Every live process under ``root``, with its start time (a reused pid is not ours)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            children.setdefault(stat[0], []).append(int(entry))
            starts[int(entry)] = stat[2]
    found: dict[int, str] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found[pid] = starts[pid]
        todo += children.get(pid, [])
    return found


def still_there(pids: dict[int, str]) -> dict[int, str]:
    return {pid: start for pid, start in pids.items() if (s := _stat(pid)) is not None and s[2] == start}


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"


async def _draw_with_workers(proc: subprocess.Popen[str]) -> Client:
    """Read where ``proc`` listens, say hello and create a winnable race, which the search workers
    draw: they start now. The client, still open."""
    assert proc.stdout is not None
    match = LISTEN.match((await asyncio.to_thread(proc.stdout.readline)).rstrip("\n"))
    assert match
    client = await Client.open(match.group(1))
    await client.request("hello", name="alice")
    created = await client.request("create", variant="terrace", seats=2, deals="winnable")
    assert created["type"] == "created", created
    return client


async def test_kill_9_of_the_server_leaves_none_of_its_processes() -> None:
    proc = subprocess.Popen(
        [COMMAND, "--port", "0", "--house", "terrace", "--daily-prepare", "3600", "--search-workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=clean_env(),
    )
    try:
        client = await _draw_with_workers(proc)

        def all_started() -> dict[int, str] | None:
            found = descendants(proc.pid)
            lines = [command_line(p) for p in found]
            house = any("-m bots house" in line for line in lines)
            tracker = any("resource_tracker" in line for line in lines)
            forkserver = any("forkserver" in line for line in lines)
            # the forkserver's children: two search workers and the daily deal's one
            workers = sum(1 for p in found if (s := _stat(p)) and "forkserver" in command_line(s[0]))
            return found if house and tracker and forkserver and workers >= 2 else None

        ours = await eventually(all_started, timeout=30, what="the house, the tracker and the workers")
        await client.ws.close()
        proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(proc.wait, 10)
        try:
            await eventually(
                lambda: not still_there(ours), timeout=15, what="the server's processes to be gone"
            )
        except AssertionError:
            raise AssertionError([command_line(p) for p in still_there(ours)]) from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        for pid in still_there(locals().get("ours") or {}):  # never leave one behind, even on failure
            os.kill(pid, signal.SIGKILL)


async def test_ctrl_c_stops_the_server_and_its_workers_without_a_traceback() -> None:
    """Ctrl-C in a terminal reaches the whole foreground group: the workers too. They leave the
    stopping to the server (a worker's KeyboardInterrupt once printed a traceback under the
    server's goodbye)."""
    proc = subprocess.Popen(
        [COMMAND, "--port", "0", "--search-workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
        start_new_session=True,  # its own group, as a terminal's foreground job is
    )
    ours: dict[int, str] = {}
    try:
        client = await _draw_with_workers(proc)

        def workers_started() -> dict[int, str] | None:
            found = descendants(proc.pid)
            workers = sum(1 for p in found if (s := _stat(p)) and "forkserver" in command_line(s[0]))
            return found if workers >= 1 else None

        ours = await eventually(workers_started, timeout=30, what="the search workers")
        await client.ws.close()
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = await asyncio.to_thread(proc.communicate, timeout=30)
        assert proc.returncode == 0, (proc.returncode, err)
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
        await eventually(lambda: not still_there(ours), timeout=15, what="the workers to be gone")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in still_there(ours):
            os.kill(pid, signal.SIGKILL)


async def test_a_pool_busy_with_long_work_stops_after_its_grace_not_after_the_work() -> None:
    import time
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool

    from server.workers import pool, stop_pool

    executor = pool(2)
    busy = executor.submit(time.sleep, 120)  # a long search, an analysis
    queued = [executor.submit(time.sleep, 120) for _ in range(3)]
    await eventually(busy.running, timeout=60, every=0.05, what="the work to start")  # forkserver first
    workers = list(executor._processes.values())  # type: ignore[attr-defined]
    manager = executor._executor_manager_thread  # type: ignore[attr-defined]
    start = time.monotonic()
    await asyncio.to_thread(stop_pool, executor, 0.2)
    assert time.monotonic() - start < 30  # not the 120 s of the work
    assert not any(w.is_alive() for w in workers)
    # its manager thread is done too: left running, it raced the exit hook (a traceback at exit)
    assert not manager.is_alive()
    for future in (busy, *queued):
        with pytest.raises((CancelledError, BrokenProcessPool)):
            future.result(timeout=30)
