"""The server's child processes, made to die with it however it ends.

A server killed with SIGKILL runs no shutdown code: its search workers (a process pool
forked by the forkserver) and the pool's resource tracker would stay behind with parent 1
for minutes, and a crash-looping server would pile them up. On Linux each child asks the
kernel (``prctl(PR_SET_PDEATHSIG)``) for a signal when its parent dies:

* :func:`child` starts a command (the house bots of ``--house``) that gets SIGTERM when the
  server dies.

Pool workers cannot use it: their parent is the forkserver, which waits for the end of a pipe
that every worker holds too (so it never comes while they live). :func:`pool` gives workers
that watch the server itself: a thread waits on its ``pidfd`` (Linux 5.3; elsewhere it looks
every second) and ends the worker when the server is gone. With the workers gone, the
forkserver's pipe and the resource tracker's are closed at last, and both exit.

Elsewhere (no ``prctl``) :func:`child` asks nothing: a clean shutdown still stops it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask the kernel for ``sig`` when this process's parent dies (Linux; elsewhere nothing).

    If the parent is already gone (it died before this ran) the signal is sent now."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
        return  # refused (a sandbox): the clean shutdown still stops us
    if os.getppid() != parent:  # the parent died between getppid and prctl
        os.kill(os.getpid(), sig)


POLL_EVERY = 1.0  # seconds between looks at the server where there is no pidfd


def die_with(pid: int) -> None:
    """In a pool worker (its initializer): end this process when process ``pid`` ends.

    Ctrl-C in a terminal reaches the whole foreground group, workers too: they ignore it and
    leave the stopping to the server, which shuts its pool down (no traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)  # the server died before this worker started
    except (AttributeError, OSError):  # no pidfd here: look every second
        threading.Thread(target=_poll, args=(pid,), name="die-with-server", daemon=True).start()
        return
    threading.Thread(target=_wait, args=(pidfd,), name="die-with-server", daemon=True).start()


def _wait(pidfd: int) -> None:
    select.select([pidfd], [], [])  # readable once the process is gone
    os._exit(1)  # no clean-up: the work it held was the server's, and that is gone


def _poll(pid: int) -> None:
    while True:
        time.sleep(POLL_EVERY)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass  # (a pid reused by another user's process: ours is gone, but rare enough to wait)


def pool(workers: int) -> ProcessPoolExecutor:
    """A process pool (forkserver) whose workers end when this process ends, however it ends."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("forkserver"),
        initializer=die_with,
        initargs=(os.getpid(),),
    )


STOP_GRACE = 1.0  # seconds a busy worker may take to finish its work when the server stops


def stop_pool(executor: ProcessPoolExecutor, grace: float = STOP_GRACE) -> None:
    """Stop ``executor`` without waiting out long work: what waits is cancelled, what runs gets
    ``grace`` seconds, then its workers are ended. A long lost search or a race's analysis can
    run for tens of seconds, and Ctrl-C should not wait for it: the search is made again when
    the race is taken up again, the analysis when it is next asked for."""
    # (the pool's own list of its processes: Python 3.14 has terminate_workers() for this)
    processes = list((getattr(executor, "_processes", None) or {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()
    # The pool's manager thread closes the pool's wake-up pipe once it sees its workers gone.
    # Left running, it races the interpreter's exit hook, which writes to that pipe: on 3.11
    # that prints "OSError: Bad file descriptor" with a traceback as the server exits.
    if manager is not None:
        manager.join(MANAGER_JOIN)


MANAGER_JOIN = 10.0  # seconds; it needs only to notice the ended workers and close pipes


def child(argv: Sequence[str], **popen: object) -> subprocess.Popen[bytes]:
    """``argv`` started as a child that gets SIGTERM when this process dies."""
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        list(argv), preexec_fn=lambda: die_with_parent(signal.SIGTERM), **popen
    )
