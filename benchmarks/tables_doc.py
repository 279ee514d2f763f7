"""docs/BENCHMARKS.md's tables, each written from its results file in ``benchmarks/results/``.

A table sits between two markers in the doc::

    <!-- table engine-random: written by benchmarks/tables.py from its results; do not edit -->
    ...
    <!-- end table engine-random -->

and :data:`TABLES` names, for each, the results files it reads and the function that writes
it; under every table a line says where its figures come from (the command, the date, the load
average before and after), and a file kept from an earlier run says so and why.
``python benchmarks/tables.py`` rewrites every block (:func:`render`); :func:`stale` names
those that differ from what their files say (``tests/benchmarks/test_tables.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import tables_offline as offline
from benchmarks import tables_server as server
from benchmarks.tables_format import Results

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "BENCHMARKS.md"
RESULTS = ROOT / "benchmarks" / "results"
BLOCK = re.compile(
    r"(<!-- table (?P<name>[a-z0-9-]+): [^\n]*-->\n)(?P<body>.*?)(<!-- end table (?P=name) -->)", re.S
)


@dataclass(frozen=True)
class Table:
    sources: tuple[str, ...]
    write: Callable[[Results], list[str]]


TABLES: dict[str, Table] = {
    "engine-random": Table(("engine",), offline.engine_random),
    "engine-greedy": Table(("engine",), offline.engine_greedy),
    "engine-playouts": Table(("engine",), offline.engine_playouts),
    "engine-lost-search": Table(("engine",), offline.engine_lost_search),
    "bots": Table(offline.BOT_FILES, offline.bots),
    "solver": Table(("solver",), offline.solver),
    "solver-signora": Table(("solver-signora",), offline.solver_signora),
    "reductions": Table(("reductions",), offline.reductions),
    "winnable-create": Table(("winnable",), offline.winnable_create),
    "winnable-signora": Table(("winnable-signora",), offline.winnable_signora),
    "winnable-queue": Table(("winnable-queue",), offline.winnable_queue),
    "daily": Table(("daily", "daily-signora"), offline.daily),
    "hindsight": Table(("hindsight",), offline.hindsight),
    "replay": Table(("replay", "replay-eight-seats"), offline.replay),
    "server": Table(("server",), server.server),
    "server-quiet": Table(("server-quiet",), server.server_quiet),
    "server-long": Table(("server-quiet", "server-idle"), server.server_long),
    "instructions": Table(server.INSTRUCTION_FILES, server.instructions),
    "soak": Table(("soak",), server.soak),
    "swarm": Table(("swarm",), server.swarm),
    "arena": Table(("arena", "arena-two-nodes"), server.arena),
}


# ----- the doc ------------------------------------------------------------------------------


def load(names: Iterable[str]) -> Results:
    return {name: json.loads((RESULTS / f"{name}.json").read_text()) for name in names}


def written(name: str) -> str:
    """The body of table ``name``, as its results files say."""
    table = TABLES[name]
    return "\n".join(table.write(load(table.sources))) + "\n"


def render(text: str) -> str:
    """``text`` (the doc) with every table block rewritten from its results."""

    def one(m: re.Match[str]) -> str:
        if m["name"] not in TABLES:
            raise KeyError(
                f"docs/BENCHMARKS.md has a table {m['name']!r} that benchmarks/tables_doc.py does not know"
            )
        return m.group(1) + written(m["name"]) + m.group(4)

    return BLOCK.sub(one, text)


def blocks(text: str) -> dict[str, str]:
    """Each table block of the doc: name -> body."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


def stale(text: str) -> list[str]:
    """The tables whose body is not what their results say (or that the doc lacks)."""
    found = blocks(text)
    return [name for name in TABLES if found.get(name) != written(name)]
