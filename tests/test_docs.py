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


def _protocol_doc() -> str:
    return (ROOT / "PROTOCOL.md").read_text()


def test_protocol_reference_documents_every_error_code() -> None:
    from terrace.errors import ERRORS

    documented = set(re.findall(r"^\| `([a-z_]+)` \|", _protocol_doc(), re.M))
    assert set(ERRORS) <= documented, set(ERRORS) - documented


def test_protocol_reference_documents_every_request_and_its_fields() -> None:
    from terrace.wire.protocol import REQUESTS

    doc = _protocol_doc().split("### Requests at a glance", 1)[1].split("\n## ", 1)[0]
    for kind, fields in REQUESTS.items():
        row = re.search(rf"^\| `{kind}` \| (.*?) \|", doc, re.M)
        assert row, f"request {kind} missing from the table"
        for name in fields:
            assert f"`{name}" in row.group(1), f"{kind}.{name} missing from the table"


def test_protocol_reference_json_examples_without_placeholders_parse() -> None:
    import json

    decoder = json.JSONDecoder()
    blocks = re.findall(r"```json\n(.*?)```", _protocol_doc(), re.S)
    complete = [b for b in blocks if "<" not in b and "..." not in b and "{...}" not in b and "->" not in b]
    assert len(complete) >= 5
    for block in complete:
        text, at = block.strip(), 0
        while at < len(text):
            _, at = decoder.raw_decode(text, at)
            while at < len(text) and text[at].isspace():
                at += 1


def test_the_operations_guide_lists_every_server_setting_with_its_flag_and_variable() -> None:
    from dataclasses import fields

    from server.config import Config, env_name

    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()
    for f in fields(Config):
        assert f"| `--{f.name.replace('_', '-')}` | `{env_name(f.name)}` |" in guide, f.name


def test_no_doc_shows_a_token_on_a_command_line() -> None:
    """A token on a command line is in the process list for anyone on the machine: the docs show
    ``$TERRACE_TOKEN`` or ``--token-file PATH``, never ``--token VALUE``."""
    docs = [ROOT / "README.md", ROOT / "PROTOCOL.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = [
        f"{doc.name}: {m.group(0)}"
        for doc in docs
        for m in re.finditer(r"--token(?:[ =]+)(?!-)\S+", doc.read_text())
    ]
    assert shown == []


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 350


def test_protocol_reference_verification_vectors_match_the_engine() -> None:
    from terrace.rules.cards import NAME
    from terrace.rules.deal import commitment, shuffle

    section = _protocol_doc().split("### Verifying a race", 1)[1].split("\n### ", 1)[0]
    first_five = [" ".join(NAME[c] for c in shuffle(range(104), deal)[:5]) for deal in (1, bytes(range(32)))]
    assert f"starts `{first_five[0]}` in the Terrace family" in section
    assert f"starts `{first_five[1]}`" in section
    assert f"commitment is\n`{commitment(bytes(range(32)))}`" in section
