"""docs/BENCHMARKS.md's tables are written from the benchmarks' kept results, and say so."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from benchmarks import tables, tables_doc
from benchmarks.tables_doc import DOC, RESULTS, TABLES, blocks, render, stale

TEXT = DOC.read_text()


def test_every_table_in_the_doc_is_what_its_results_files_say() -> None:
    assert stale(TEXT) == [], "run: python benchmarks/tables.py"
    assert render(TEXT) == TEXT


def test_the_doc_has_each_table_once_and_no_table_of_figures_outside_them() -> None:
    found = [m["name"] for m in tables_doc.BLOCK.finditer(TEXT)]
    assert sorted(found) == sorted(TABLES)
    outside = tables_doc.BLOCK.sub("", TEXT)
    assert [line for line in outside.splitlines() if line.startswith("|")] == []  # no hand-typed table


def test_every_results_file_says_its_command_date_load_and_machine_and_feeds_a_table() -> None:
    used = {name for table in TABLES.values() for name in table.sources}
    files = {p.stem for p in RESULTS.glob("*.json")}
    assert files == used
    for name in sorted(files):
        kept = json.loads((RESULTS / f"{name}.json").read_text())
        assert kept["command"] and kept["machine"] and kept["output"], name
        assert re.match(r"\d{4}-\d{2}-\d{2}", kept["date"]), name
        assert kept.get("load_average") is not None, name
        if kept.get("kept"):  # an earlier run kept, not run again: the table says so and why
            assert (
                "**Kept from an earlier run** ("
                in blocks(TEXT)[next(t for t, v in TABLES.items() if name in v.sources)]
            )


def test_a_table_changed_by_hand_is_found_stale() -> None:
    body = blocks(TEXT)["replay"]
    changed = TEXT.replace(body, body.replace("| 1 |", "| 2 |", 1))
    assert changed != TEXT and stale(changed) == ["replay"]
    assert render(changed) == TEXT


def test_record_keeps_a_commands_json_with_its_command_date_and_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "RESULTS", tmp_path)
    command = [sys.executable, "-c", "import json; print(json.dumps({'per_s': 12.5}))"]
    assert tables.main(["record", "tiny", "--note", "a test", "--", *command]) == 0
    kept = json.loads((tmp_path / "tiny.json").read_text())
    assert kept["output"] == {"per_s": 12.5} and kept["note"] == "a test"
    assert kept["command"] == shlex.join(command)


def test_record_keeps_nothing_when_the_benchmark_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "RESULTS", tmp_path)
    with pytest.raises(SystemExit, match="exited with 3; nothing kept"):
        tables.main(["record", "broken", "--", sys.executable, "-c", "raise SystemExit(3)"])
    assert list(tmp_path.iterdir()) == []
