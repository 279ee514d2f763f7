"""What is *visible* on the play screen in a real pseudo terminal at 80x24 and 200x50.

pexpect runs the real ``terrace`` command; pyte, a terminal emulator, turns its output
into the rows a person would see, so a test can say "the player's own row and the
bottom bar are on screen" rather than "this text was printed at some point".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pexpect
import pyte
import pytest

from bots.house.keeper import DEFAULT_LINEUP, House, Slot, parse_lineup
from server.app import RaceServer
from tests.poll import eventually
from tests.server.conftest import FAST

TERRACE = str(Path(sys.executable).parent / "terrace")
SIZES = [(80, 24), (200, 50)]


class _Answering(pyte.Screen):  # type: ignore[misc]
    """A pyte screen that answers the program's questions (cursor position) like a terminal:
    prompt_toolkit draws the bottom toolbar only once it knows where the cursor is."""

    child: pexpect.spawn

    def write_process_input(self, data: str) -> None:
        self.child.send(data)


class Terminal:
    """The real command in a pty of ``cols`` x ``rows``, and what its screen shows."""

    def __init__(self, cols: int, rows: int, *args: str) -> None:
        env = {
            **{k: v for k, v in os.environ.items() if k != "PROMPT_TOOLKIT_NO_CPR"},
            "TERM": "xterm-256color",
            "COLUMNS": str(cols),
            "LINES": str(rows),
        }
        self.child = pexpect.spawn(
            TERRACE, list(args), env=env, dimensions=(rows, cols), encoding="utf-8", timeout=15
        )
        self.screen = _Answering(cols, rows)
        self.screen.child = self.child  # answers cursor position requests, as a terminal does
        self.stream = pyte.Stream(self.screen)

    def _pump(self) -> None:
        while True:
            try:
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0))
            except (pexpect.TIMEOUT, pexpect.EOF):
                return

    def rows(self) -> list[str]:
        self._pump()
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.rows())

    async def shows(self, pattern: str, timeout: float = 15) -> str:
        """Wait until the visible screen matches ``pattern``; returns the screen."""
        try:
            return await eventually(lambda: re.search(pattern, self.text()) and self.text(), timeout=timeout)
        except AssertionError:
            raise AssertionError(f"the screen never showed {pattern!r}; it shows:\n{self.text()}") from None

    async def holds(self, check: Callable[[list[str]], bool], what: str, timeout: float = 15) -> list[str]:
        """Wait until the visible rows pass ``check`` (a redraw may come in pieces on a
        loaded machine); returns the rows."""
        try:
            return await eventually(lambda: check(rows := self.rows()) and rows, timeout=timeout)
        except AssertionError:
            raise AssertionError(f"the screen never showed {what}; it shows:\n" + self.text()) from None

    async def settled(self, quiet: float = 0.4, timeout: float = 10) -> None:
        """Wait until the screen has not changed for ``quiet`` seconds (a redraw is done), or
        ``timeout`` seconds have passed (a screen with a running clock never settles)."""
        seen = {"text": self.text(), "since": time.monotonic()}

        def still() -> bool:
            now = self.text()
            if now != seen["text"]:
                seen.update(text=now, since=time.monotonic())
            return time.monotonic() - float(seen["since"]) >= quiet

        with contextlib.suppress(AssertionError):
            await eventually(still, timeout=timeout, every=0.05)

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def close(self) -> None:
        self.child.terminate(force=True)


@pytest.fixture
async def house_server() -> AsyncIterator[RaceServer]:
    """A fast server with three house bots at full speed waiting."""
    async with RaceServer(FAST) as srv:
        house = House(srv.url, [Slot("random", 3, "full")], ["terrace"])
        task = asyncio.create_task(house.run())
        try:
            waiting = srv.matchmaking.queues.values
            await eventually(lambda: sum(len(w.players) for w in waiting()) >= 3, what="house bots queued")
            yield srv
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _bottom_bar(rows: list[str]) -> bool:
    return any("Tab, help, quit" in r for r in rows[-2:])


@pytest.mark.parametrize(("cols", "lines"), SIZES)
async def test_a_race_shows_my_own_row_and_the_bottom_bar_on_every_screen(
    house_server: RaceServer, cols: int, lines: int
) -> None:
    term = Terminal(cols, lines, "play", "--server", house_server.url, "--queue", "terrace", "--name", "me")
    try:
        await term.shows("move>")
        await term.shows("▶ me")  # the standings arrive with the first push
        for keys, news in [("1f\r", "1-F1"), ("help\r", "Now you could type"), ("w3\r", "✗"), ("d\r", "S-W")]:
            term.send(keys)
            await term.shows(news)
            await term.settled()
            await term.holds(
                lambda rows: (
                    any("▶ me" in r for r in rows)
                    and _bottom_bar(rows)
                    and any(r.startswith("move>") for r in rows)
                ),
                "my row, the bottom bar and the prompt",
            )
    finally:
        term.close()


async def test_the_standings_stay_beside_the_board_at_200_columns_as_the_game_goes_on(
    house_server: RaceServer,
) -> None:
    term = Terminal(200, 50, "play", "--server", house_server.url, "--queue", "terrace", "--name", "me")
    try:
        await term.shows("▶ me")
        for moves, keys in enumerate(["1f\r", "d\r", "d\r", "d\r"], 1):
            term.send(keys)
            await term.shows(f"{moves} moves?\\b")
            await term.settled()
            rows = await term.holds(
                lambda rows: any("▶ me" in r for r in rows) and "terrace" in "".join(rows[:4]),
                "my row and the race's title",
            )
            mine = [r for r in rows if "▶ me" in r]
            # beside: my row shares its line with the board (a place name starts the line)
            assert mine[0].index("▶ me") > 60, mine[0]
    finally:
        term.close()


@pytest.mark.parametrize(("cols", "lines"), SIZES)
async def test_practice_fits_the_terminal_and_help_teaches_this_variant(cols: int, lines: int) -> None:
    term = Terminal(cols, lines, "practice", "--variant", "louis", "--deal", "7")
    try:
        await term.shows("move>")
        await term.holds(_bottom_bar, "the bottom bar")
        term.send("help\r")
        await term.shows("Now you could type")
        await term.settled()
        rows = await term.holds(_bottom_bar, "the bottom bar under the help")
        screen = "\n".join(rows)
        assert "heaps a-m" in screen and "S-a (deal)" in screen
        assert "d for the stock" not in screen  # Louis has a heap d
    finally:
        term.close()


@pytest.mark.parametrize(("cols", "lines"), SIZES)
async def test_help_at_the_base_choice_shows_all_four_bases(cols: int, lines: int) -> None:
    """The first move picks one of the cards on piles 1-4 (docs/rules.md): help shows all four."""
    term = Terminal(cols, lines, "practice", "--variant", "terrace", "--deal", "7")
    try:
        await term.shows("move>")
        term.send("help\r")
        await term.shows("Now you could type")
        await term.settled()
        rows = await term.holds(_bottom_bar, "the bottom bar under the help")
        screen = "\n".join(rows)
        for pile in "1234":
            assert f"{pile}-F1 ({pile}f1): " in screen, screen
    finally:
        term.close()


async def test_escape_then_a_move_sends_the_move() -> None:
    term = Terminal(80, 24, "practice", "--variant", "terrace", "--deal", "7")
    try:
        await term.shows("move>")
        term.send("\x1b")
        # the behaviour tested is Esc pressed alone and the move typed after a moment, as a person
        # does (Esc and keys in one read are the other case, below): the moment is waited out
        await asyncio.sleep(0.2)
        term.send("3f\r")
        await term.shows("3-F1")
        term.send("\x1b3f\r")  # Esc and the keys in one read, as a fast typist's terminal sends them
        await term.shows("✗")
        assert "fff" not in term.text()
    finally:
        term.close()


async def test_a_person_at_a_move_a_second_is_still_racing_default_house_bots_after_30_moves() -> None:
    """The README's quick start as a person lives it: house bots at their default pace."""
    async with RaceServer(FAST) as srv:
        house = House(srv.url, parse_lineup(DEFAULT_LINEUP), ["terrace"])
        task = asyncio.create_task(house.run())
        term = Terminal(100, 40, "play", "--server", srv.url, "--queue", "terrace", "--name", "me")
        try:
            await term.shows("▶ me")
            for n, keys in enumerate(["1f\r"] + ["d\r"] * 29, 1):
                term.send(keys)
                await term.shows(f"{n} moves?\\b")
                await asyncio.sleep(1.0)  # a person's move a second: the pace is the behaviour tested
            [driver] = srv.registry.drivers.values()
            bots = [s for s in driver.race.seats.values() if s.player["kind"] == "bot"]
            assert len(bots) == 3
            assert any(s.finish is None for s in bots), [(s.finish, s.move_count) for s in bots]
            assert all(s.move_count > 0 for s in bots)  # racing, not idle
            me = next(s for s in driver.race.seats.values() if s.player["name"] == "me")
            assert me.finish is None and me.move_count == 30
        finally:
            term.close()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
