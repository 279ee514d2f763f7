"""The play screen: a table's board and standings above a move prompt, for play and practice.

On a terminal, prompt_toolkit draws the rendered screen as the prompt's
message, so a standings push redraws it in place while the player types, and
only a change renders it again (the clock lives in the bottom toolbar). Tab
completes from the legal moves and the screen's commands; earlier input is
suggested as you type (right-arrow takes it) and up-arrow recalls it. Without a terminal (piped input) it reads one move per line and
prints the screen after each change, so scripts and screen readers work too.
"""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import Iterable

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console

from .table import Table

HELP = "Type a move (w3, 4f, tf, d for the stock; Tab completes), or: {commands}, help, quit."


class _Moves(Completer):
    def __init__(self, table: Table, words: list[str]) -> None:
        self.table = table
        self.words = words

    def get_completions(self, document: Document, complete_event: object) -> Iterable[Completion]:
        typed = document.text_before_cursor.strip().lower()
        for option in [*sorted(self.table.legal()), *self.words]:
            if option.lower().startswith(typed) or option.lower().replace("-", "").startswith(typed):
                yield Completion(option, start_position=-len(document.text_before_cursor))


class Screen:
    """Runs one table until it is over or the player quits. ``me`` is highlighted in standings."""

    def __init__(self, table: Table, me: str | None = None, width: int | None = None) -> None:
        self.table = table
        self.me = me
        self.width = width
        self.message: str | None = None
        self._cache: tuple[object, str] | None = None  # (state key, rendered text)
        self._session: PromptSession[str] | None = None
        self._printed: str | None = None  # line mode: the screen last printed
        self._ended = asyncio.Event()

    # ----- drawing -------------------------------------------------------------------

    def _key(self) -> object:
        t = self.table
        return (repr(t.view()), repr(t.standings()), self.message, t.over())

    def rendered(self, color: bool = True) -> str:
        """The screen as text (ANSI colours when ``color``), rendered again only after a change."""
        from .render import screen

        key = (self._key(), color)
        if self._cache is None or self._cache[0] != key:
            buf = io.StringIO()
            console = Console(
                file=buf,
                width=self.width or _width(),
                color_system="truecolor" if color else None,
                force_terminal=color,
            )
            console.print(
                screen(
                    self.table.view(), self.table.standings(), self.me, None, self.table.title, self.message
                )
            )
            self._cache = (key, buf.getvalue())
        return self._cache[1]

    def changed(self) -> None:
        """Something outside the prompt changed the table (a push): redraw now."""
        over = self.table.over() is not None
        if over and not self._ended.is_set():
            self._ended.set()  # wakes a line-mode read
        if self._session is not None and self._session.app.is_running:
            if over:
                self._session.app.exit(result="")  # the race ended while the player was typing
            else:
                self._session.app.invalidate()
        elif self._printed is not None:
            self._print_if_changed()

    def _print_if_changed(self) -> None:
        text = self.rendered(color=False)
        if text != self._printed:
            self._printed = text
            print(text, flush=True)

    # ----- input ---------------------------------------------------------------------

    async def handle(self, text: str) -> bool:
        """Act on one line of input; False when the player asked to quit."""
        text = text.strip()
        commands = self.table.commands()
        if not text:
            return True
        if text.lower() in ("quit", "exit", "q"):
            return False
        if text.lower() in ("help", "?"):
            self.message = HELP.format(commands=", ".join(commands) or "no commands")
        elif text.lower() in commands:
            self.message = await commands[text.lower()]()
        else:
            outcome = await self.table.move(text)
            self.message = (
                (outcome.move + (f"  {outcome.message}" if outcome.message else ""))
                if outcome.ok
                else (f"✗ {outcome.message}")
            )
        return True

    async def run(self) -> str | None:
        """Play until the table is over (returns how it ended) or the player quits (None)."""
        if not sys.stdin.isatty():
            return await self._run_lines()
        self._session = PromptSession(
            history=InMemoryHistory(),
            completer=_Moves(self.table, [*self.table.commands(), "help", "quit"]),
            complete_while_typing=False,
            auto_suggest=AutoSuggestFromHistory(),  # earlier input, greyed ahead of the cursor
            bottom_toolbar=self._toolbar,
            refresh_interval=1.0,
        )
        with patch_stdout(raw=True):
            while self.table.over() is None:
                try:
                    text = await self._session.prompt_async(lambda: ANSI(self.rendered() + "\nmove> "))
                except (EOFError, KeyboardInterrupt):
                    return None
                if not await self.handle(text):
                    return None
        print(self.rendered())
        return self.table.over()

    def _toolbar(self) -> str:
        clock = self.table.clock()
        return f" {self.table.title}" + (f"   ⏱ {clock}" if clock else "") + "   Tab: moves   help   quit"

    async def _run_lines(self) -> str | None:
        lines = _stdin_lines()
        self._printed = ""
        self._print_if_changed()
        while self.table.over() is None:
            read = asyncio.ensure_future(lines.get())
            ended = asyncio.ensure_future(self._ended.wait())
            await asyncio.wait({read, ended}, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            if not read.done():
                read.cancel()
                break  # over while waiting for input
            line = read.result()
            if not line:
                return None
            if not await self.handle(line):
                return None
            self._print_if_changed()
        return self.table.over()


def _stdin_lines() -> asyncio.Queue[str]:
    """Lines of stdin ("" at its end), read by a daemon thread: a blocked read must never
    keep the program from exiting when the race ends first."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue()

    def pump() -> None:
        while True:
            line = sys.stdin.readline()
            loop.call_soon_threadsafe(queue.put_nowait, line)
            if not line:
                return

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return queue


def _width() -> int:
    import shutil

    return min(shutil.get_terminal_size((100, 30)).columns, 120)
