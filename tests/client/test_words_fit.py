"""At 80 columns nothing breaks inside a word: ``verify``, the daily's day view and a refusal
(the command's error line) show, in a real 80x24 terminal (pexpect and pyte), the very words
they show at 200 columns, in the same order: a terminal that cut a word at its last column
would show two pieces that are not words of it."""

from __future__ import annotations

import asyncio
import dataclasses

import pexpect
import pytest

from server.app import RaceServer
from server.config import Config
from tests.server.conftest import FAST
from tests.server.wire import Client

from .test_screen_fit import Terminal


@pytest.fixture
def config() -> Config:
    return dataclasses.replace(FAST, daily_secret="33" * 32)


async def _rows(cols: int, rows: int, *args: str) -> list[str]:
    term = Terminal(cols, rows, *args)
    try:
        await asyncio.to_thread(term.child.expect, pexpect.EOF, timeout=20)
        term.stream.feed(term.child.before or "")
        return [row.rstrip() for row in term.screen.display]
    finally:
        term.close()


async def _same_words_at_80(*args: str) -> list[str]:
    """The rows at 80 columns, once their words are checked against those at 200."""
    wide = " ".join(await _rows(200, 50, *args)).split()
    rows = await _rows(80, 24, *args)
    narrow = " ".join(rows).split()
    assert narrow == wide, f"at 80 columns:\n{narrow}\nat 200:\n{wide}"
    return rows


async def test_verify_breaks_between_words_at_80_columns(server: RaceServer) -> None:
    c = await Client.open(server.url)
    await c.request("hello", name="alice")
    race = (await c.request("create", variant="terrace", seats=1))["race"]["id"]
    await c.request("start", race=race)
    await c.wait("started")
    await c.request("resign", race=race)
    await c.wait("finished")
    await c.close()
    rows = [r for r in await _same_words_at_80("verify", race, "--server", server.url) if r]
    assert rows[-1].startswith(f"Race {race} verifies:")
    # a check's words that wrap stay in its own column (a hanging indent), never under its name
    assert all(r.startswith(("✓ ", "✗ ", " ")) for r in rows[:-1]), rows
    assert any(r.startswith(" " * 10) for r in rows), rows  # (one did wrap at 80 columns)


async def test_a_refusal_and_the_day_view_break_between_words_at_80_columns(server: RaceServer) -> None:
    # a guest asking for today's deal: the day view, then the server's long refusal
    words = " ".join(
        await _same_words_at_80(
            "daily", "--variant", "queen-of-italy", "--name", "visitor", "--server", server.url
        )
    ).split()
    assert "commitment" in words and "register." in words
