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
import string
import sys
import threading
from collections.abc import Iterable, Mapping

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console

from .table import Table
from .teach import cards_in_text, help_text, moves_of_card

COMPACT_BELOW = 40  # terminal lines under which the screen saves lines (no blank lines, fewer rows)
BOTTOM = 2  # lines under the screen: the move prompt and the bottom toolbar
YES = frozenset({"y", "yes"})
NO = frozenset({"n", "no"})


class _Moves(Completer):
    def __init__(self, table: Table, words: list[str]) -> None:
        self.table = table
        self.words = words

    def get_completions(self, document: Document, complete_event: object) -> Iterable[Completion]:
        typed = document.text_before_cursor.strip().lower()
        legal = sorted(self.table.legal())
        for option in [*legal, *self.words]:
            if option.lower().startswith(typed) or option.lower().replace("-", "").startswith(typed):
                yield Completion(option, start_position=-len(document.text_before_cursor))
        for option in moves_of_card(typed, self.table.view(), legal):  # a card typed: 10h or Th
            yield Completion(option, start_position=-len(document.text_before_cursor))


class Screen:
    """Runs one table until it is over or the player quits. ``me`` is highlighted in standings."""

    def __init__(
        self,
        table: Table,
        me: str | None = None,
        width: int | None = None,
        height: int | None = None,
        confirm: Iterable[str] = (),
        questions: Mapping[str, str] | None = None,
    ) -> None:
        self.table = table
        self.me = me
        self.width = width
        self.height = height
        self.confirm = frozenset(confirm)  # words asked twice ("quit", "resign"): see handle()
        self.questions = dict(questions or {})  # what is asked for a word, when not the race's question
        self.message: str | None = None
        self.help: str | None = None  # shown in place of the board until the next input
        self._asked: str | None = None  # the word waiting for its yes
        self._cache: tuple[object, str] | None = None  # (state key, rendered text)
        self._session: PromptSession[str] | None = None
        self._printed: str | None = None  # line mode: the screen last printed
        self._ended = asyncio.Event()

    # ----- drawing -------------------------------------------------------------------

    def _key(self) -> object:
        t = self.table
        return (repr(t.view()), repr(t.standings()), self.message, self.help, t.over(), _status(t))

    def rendered(self, color: bool = True) -> str:
        """The screen as text (ANSI colours when ``color``), rendered again only after a change.

        It fits the terminal: below ``COMPACT_BELOW`` lines it saves lines, and if it is
        still too tall the standings show fewer rows, the player's own row always among them."""
        width, height = self.width or _width(), self.height or _height()
        key = (self._key(), color, width, height)
        if self._cache is None or self._cache[0] != key:
            compact = height < COMPACT_BELOW
            text = self._draw(color, width, compact, None)
            rows = len(self.table.standings())
            limit = rows
            while _lines(text) > height - BOTTOM and limit > 1:
                limit -= 1
                text = self._draw(color, width, compact, limit)
            self._cache = (key, text)
        return self._cache[1]

    def _draw(self, color: bool, width: int, compact: bool, limit: int | None) -> str:
        from .layout import screen

        buf = io.StringIO()
        console = Console(
            file=buf, width=width, color_system="truecolor" if color else None, force_terminal=color
        )
        t = self.table
        console.print(
            screen(
                t.view(),
                t.standings(),
                self.me,
                None,
                t.title,
                self.message,
                compact=compact,
                row_limit=limit,
                help=self.help,
                status=_status(t),
            )
        )
        return buf.getvalue()

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

    def _print_if_changed(self, said: str | None = None) -> None:
        """Line mode: print the lines of the screen that changed since the last print (all of
        it the first time), so a pipe or a screen reader gets news, not the board again;
        ``said`` (the answer to the line just read) is printed even when it is the same as before."""
        text = self.rendered(color=False)
        news = changed_lines(self._printed or "", text) if text != self._printed else []
        self._printed = text
        if said and said not in news:
            news.append(said)
        if news:
            print("\n".join(news), flush=True)

    # ----- input ---------------------------------------------------------------------

    async def handle(self, text: str) -> bool:
        """Act on one line of input; False when the player asked to quit.

        A word in ``confirm`` is asked about first ("Resign? y to confirm"): ``y``/``yes``
        or the same word again does it, ``n``/``no`` only drops the question, anything else
        is taken as usual (a move is played) and the question drops."""
        text = text.strip()
        commands = self.table.commands()
        self.help = None
        word = text.lower()
        if word in ("exit", "q"):
            word = "quit"
        asked, self._asked = self._asked, None
        if asked is not None and (word in YES or word == asked):
            word = asked
        elif asked is not None and word in NO:  # an answer, not a move to read
            self.message = "Carrying on."
            return True
        elif word in self.confirm:
            self._asked = word
            self.message = self.questions.get(word) or confirm_question(word)
            return True
        if not text:
            return True
        if word == "quit":
            return False
        if word in ("help", "?"):
            variant = str(self.table.view().get("variant", "terrace"))
            self.help = help_text(variant, self.table.view(), self.table.legal(), commands)
            self.message = None
        elif word in commands:
            self.message = await commands[word]()
        else:
            outcome = await self.table.move(text)
            variant = str(self.table.view().get("variant", "terrace"))
            self.message = cards_in_text(
                (outcome.move + (f"  {outcome.message}" if outcome.message else ""))
                if outcome.ok
                else (f"✗ {outcome.message}"),
                variant,
            )
        return True

    async def run(self) -> str | None:
        """Play until the table is over (returns how it ended) or the player quits (None)."""
        if not sys.stdin.isatty():
            return await self._run_lines()
        self._session = PromptSession(
            key_bindings=escape_keeps_keys(),
            history=InMemoryHistory(),
            completer=_Moves(self.table, [*self.table.commands(), "help", "quit"]),
            complete_while_typing=False,
            auto_suggest=AutoSuggestFromHistory(),  # earlier input, greyed ahead of the cursor
            bottom_toolbar=self._toolbar,
            refresh_interval=1.0,
            reserve_space_for_menu=0,  # the screen fills the terminal: the bottom bar must not be pushed off
            erase_when_done=True,  # each screen is drawn whole from the same line: no old screens above
        )
        print("\x1b[2J\x1b[H", end="", flush=True)  # start at the top: the whole screen fits below
        with patch_stdout(raw=True):
            while self.table.over() is None:
                try:
                    text = await self._session.prompt_async(
                        lambda: ANSI(self.rendered().rstrip("\n") + "\nmove> "),
                        # prompt_toolkit's own Ctrl-C handler, once removed, takes the loop's with
                        # it: Ctrl-C after the screen (waiting for others, between arena races)
                        # would do nothing. In raw mode Ctrl-C arrives as a key anyway.
                        handle_sigint=False,
                    )
                except (EOFError, KeyboardInterrupt):
                    return None
                if not await self.handle(text):
                    return None
        print(self.rendered())
        return self.table.over()

    def _toolbar(self) -> str:
        clock = self.table.clock()
        # Short enough for 80 columns with a race's title and its clock.
        return f" {self.table.title}" + (f" · ⏱ {clock}" if clock else "") + " · Tab, help, quit"

    async def _run_lines(self) -> str | None:
        lines = _stdin_lines()
        self.height = self.height or 10_000  # no terminal to fit: every standings row
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
            self._print_if_changed(self.message)
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


def confirm_question(word: str) -> str:
    """What the screen asks before ``word`` (``quit``, ``resign``) is done."""
    what = {
        "quit": "Quit? You can come back to a race you quit. Type y to quit, anything else to stay.",
        "resign": "Resign? Your game ends here, placed by what you have home. Type y to resign, anything else to play on.",
        "leave": "Leave the race? It ends for you at once and you may race again. Type y to leave, anything else to stay.",
    }
    return what.get(word, f"{word.capitalize()}? Type y to confirm.")


def escape_keeps_keys() -> KeyBindings:
    """Esc followed by a key types that key.

    A terminal sends Alt+key as Esc then the key, so prompt_toolkit reads Esc then ``3``
    as Alt+3 (a repeat count: ``3f`` became ``fff``) and Esc then ``f`` as a word motion.
    A person who presses Esc to cancel and then types a move must get the move."""
    kb = KeyBindings()

    def typed(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text(event.key_sequence[-1].data)

    for ch in string.ascii_letters + string.digits + "-> ?":
        kb.add("escape", ch)(typed)  # if Esc and the key come in one read

    @kb.add("escape", eager=True)
    def _alone(event: KeyPressEvent) -> None:
        """Esc alone does nothing (it never waits to swallow the next key)."""

    return kb


def _status(table: Table) -> str | None:
    """The table's connection news (an online race's), if any."""
    return getattr(table, "status_line", None)


def changed_lines(before: str, after: str) -> list[str]:
    """The lines of ``after`` that are not in ``before`` (in order), for line mode."""
    old = set(before.splitlines())
    return [line for line in after.splitlines() if line.strip() and line not in old]


def _lines(text: str) -> int:
    return len(text.rstrip("\n").splitlines())


def _width() -> int:
    import shutil

    return shutil.get_terminal_size((100, 30)).columns


def _height() -> int:
    import shutil

    return shutil.get_terminal_size((100, 30)).lines
