"""The examples in the README and the engine guide run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("doc", ["README.md", "docs/ENGINE.md"])
def test_python_examples_run(doc: str) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, doc, "exec"), {})


def test_engine_guide_example_shows_what_the_engine_answers() -> None:
    import terrace

    g = terrace.new_game("terrace", deal=7)
    assert g.play("2f") == "2-F1"
    assert g.last_events == [{"type": "base", "card": "Td", "rank": "T"}]
    assert g.resolve("sw") == "S-W"
    doc = (ROOT / "docs" / "ENGINE.md").read_text()
    assert "{'type': 'base', 'card': 'Td', 'rank': 'T'}" in doc


def test_readme_names_the_test_command_that_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "-m pytest" in ci and "pip install -e '.[test]'" in readme and "python -m pytest" in readme
