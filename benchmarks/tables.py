#!/usr/bin/env python3
"""Keep a benchmark's ``--json`` output as its current figures, and write docs/BENCHMARKS.md's tables
from those files.

    python benchmarks/tables.py record engine -- python benchmarks/engine.py --json
    python benchmarks/tables.py              # rewrite the tables in docs/BENCHMARKS.md
    python benchmarks/tables.py --check      # exit 1, naming them, when tables are stale

``record NAME -- COMMAND`` runs COMMAND (a benchmark printing its JSON report on stdout; put
``nice -n 10`` in front on a shared machine), and keeps what it printed as
``benchmarks/results/NAME.json`` with the command, the date, the machine and the load average
before and after: the figures' source. A benchmark too long to run again for every change (a
10-minute soak, a 1,000-player run) keeps the file of its last run, marked ``kept`` with why.

The tables themselves are written by :mod:`benchmarks.tables_doc`, each between two markers
in docs/BENCHMARKS.md; ``tests/benchmarks/test_tables.py`` fails when one is not exactly what
its results file says, so every figure in those tables has its source here.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from benchmarks.common import machine  # noqa: E402
from benchmarks.tables_doc import DOC, RESULTS, render, stale  # noqa: E402


def record(name: str, command: list[str], note: str = "") -> dict[str, Any]:
    """Run ``command``, keep its JSON output as ``results/NAME.json``; returns what was kept."""
    load0, start = os.getloadavg()[0], time.perf_counter()
    date = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} exited with {done.returncode}; nothing kept")
    kept = {
        "command": shlex.join(command),
        "date": date,
        "load_average": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "seconds": round(time.perf_counter() - start, 1),
        "machine": machine(),
        "note": note,
        "output": json.loads(done.stdout),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(kept, indent=1) + "\n")
    return kept


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["record"]:
        name, rest, note = args[1] if len(args) > 1 else "", args[2:], ""
        if rest[:1] == ["--note"] and len(rest) > 1:
            note, rest = rest[1], rest[2:]
        if not name or rest[:1] != ["--"] or len(rest) < 2:
            print("usage: tables.py record NAME [--note TEXT] -- COMMAND...", file=sys.stderr)
            return 2
        record(name, rest[1:], note)
        print(f"kept benchmarks/results/{name}.json; now run: python benchmarks/tables.py")
        return 0
    text = DOC.read_text()
    if args == ["--check"]:
        names = stale(text)
        for name in names:
            print(f"docs/BENCHMARKS.md: the table {name} is not what its results say", file=sys.stderr)
        return 1 if names else 0
    if args:
        print(__doc__, file=sys.stderr)
        return 2
    DOC.write_text(render(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
