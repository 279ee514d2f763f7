"""Reason codes: one table, each with a sentence, each documented."""

from pathlib import Path

import pytest

import terrace

ENGINE_DOC = Path(__file__).resolve().parents[2] / "docs" / "ENGINE.md"


def test_every_reason_code_has_a_sentence() -> None:
    for code, sentence in terrace.REASONS.items():
        assert code.isidentifier() and sentence.endswith(".")


def test_unknown_codes_cannot_be_raised() -> None:
    with pytest.raises(KeyError):
        terrace.IllegalMove("no_such_code")


def test_every_reason_code_is_documented_for_programs() -> None:
    doc = ENGINE_DOC.read_text()
    assert [c for c in terrace.REASONS if f"`{c}`" not in doc] == []


def test_illegal_move_carries_code_message_and_fields() -> None:
    e = terrace.IllegalMove("tableau_rank", card="4c", top="9s", target="1")
    assert (e.code, e.message, e.fields["card"]) == (
        "tableau_rank",
        "4c cannot go on 9s: a pile takes the next rank down.",
        "4c",
    )
    assert str(e) == e.message and "tableau_rank" in repr(e)
