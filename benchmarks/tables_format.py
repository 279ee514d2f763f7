"""How docs/BENCHMARKS.md's generated tables are written: numbers, rows, and the source line
under each table (the results file, its command, date and load)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Results = dict[str, dict[str, Any]]  # results file name (no .json) -> what benchmarks/tables.py kept
VARIANTS = ("terrace", "queen-of-italy", "signora", "louis")


def n0(x: float | None) -> str:
    return "–" if x is None else f"{x:,.0f}"


def n1(x: float | None) -> str:
    return "–" if x is None else f"{x:,.1f}"


def n2(x: float | None) -> str:
    return "–" if x is None else f"{x:,.2f}"


def n3(x: float | None) -> str:
    return "–" if x is None else f"{x:,.3f}"


def pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x * 100:.{digits}f}%"


def row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def head(*names: str, right: Iterable[int] = ()) -> list[str]:
    """A header and its rule; columns in ``right`` are right-aligned."""
    rule = ["---:" if i in set(right) else "---" for i in range(len(names))]
    return [row(*names), "|" + "|".join(rule) + "|"]


def source(results: Results, name: str) -> str:
    """Where a file's figures come from, in one line."""
    r = results[name]
    load = r.get("load_average")
    said = f"load average {load[0]:.1f} to {load[1]:.1f}" if isinstance(load, list) else str(load or "")
    when = ", ".join(x for x in (r["date"], said) if x)
    line = f"`benchmarks/results/{name}.json`: `{r['command']}`, {when}"
    if r.get("kept"):
        line = f"**Kept from an earlier run** ({r['kept']}): " + line
    return line + (f"; {r['note']}" if r.get("note") else "") + "."


def sources(results: Results, names: Iterable[str]) -> list[str]:
    """The lines under a table: its one source, or a list of them."""
    said = [source(results, n) for n in names]
    if len(said) == 1:
        return ["", f"Source: {said[0]}"]
    return ["", "Sources:", "", *(f"- {s}" for s in said)]


def sig(x: float | None) -> str:
    """Two significant digits, never in exponent form (decision times from 0.003 ms to 90 ms)."""
    return "–" if x is None else f"{float(f'{x:.2g}'):g}"


def met(ok: bool) -> str:
    return "met" if ok else "**not met**"
