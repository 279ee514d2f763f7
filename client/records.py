"""``terrace register``, ``terrace verify`` and ``terrace replay``: accounts and finished races.

``register`` makes an account and keeps its token (client/config.py, mode 0600).
``verify`` fetches a finished race's record (or reads one saved as JSON) and
checks everything it claims with :func:`terrace.race.audit.audit`: the commitment,
the deal, every move, results, finishes and places. ``replay`` rebuilds each
player's game move by move from the revealed seed, with the engine, and shows it:
stepping with keys on a terminal, or printing every step when piped. It also asks
the server for the race's hindsight ``analysis`` (the stock known: where each game
was last winnable, the move that lost it, the win from there) and marks that move.

Each command is ``async def command(args, out) -> exit code``; the fields of
``args`` each one reads are listed in its docstring. Exit codes: 0 done, 1 refused
by the server or (verify) a mismatch, 2 usage.

Kept as one module (about 530 lines): the three commands share the record's fetching, its
replay from the seed and the hindsight marks, and each is short on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

import terrace
from link import Connection, Refused, fetch
from terrace.race.audit import Audit, Check, audit
from terrace.solve.hindsight import sentence
from terrace.wire.conversation import Message

from . import config
from .errors import print_json_error
from .render import board, plural

OK, BAD = "✓", "✗"


def _say(out: Console, text: str, style: str = "") -> None:
    """Print plain text: no rich markup in it is read (names and moves are data)."""
    out.print(Text(text, style=style))


def _opt(args: argparse.Namespace, name: str, default: Any = None) -> Any:
    return getattr(args, name, default)


def _fail(out: Console, args: argparse.Namespace, code: str, message: str, exit_code: int = 1) -> int:
    """Say why the command failed (as a JSON error with ``--json``: client/errors.py); its exit code."""
    if _opt(args, "json", False):
        print_json_error(code, message)
    else:
        _say(out, f"{BAD} {message}", "red")
    return exit_code


# ----- register -----------------------------------------------------------------------


async def register(args: argparse.Namespace, out: Console) -> int:
    """``terrace register NAME``: args.server, args.name, args.bot (bool), args.json.

    Registers the account, stores its token for this server (0600) and says where.
    ``--json`` prints ``{"player": ..., "stored": path}``. A refusal (``name_taken``,
    ``bad_name``) prints the server's message and exits 1.
    """
    kind = "bot" if _opt(args, "bot", False) else "human"
    try:
        install = config.client_id()
        answer = await fetch(
            args.server, "register", name=args.name, kind=kind, **({"client": install} if install else {})
        )
    except Refused as exc:
        return _fail(out, args, exc.code, str(exc))
    player = answer.get("player") or {}
    name = str(player.get("name", args.name))
    others = [n for n in config.accounts(args.server) if n.casefold() != name.casefold()]
    path, replaced = config.save_token(args.server, name, str(answer["token"]), str(player.get("kind", kind)))
    if _opt(args, "json", False):
        print(json.dumps({"player": player, "stored": str(path), "replaced": replaced is not None}))
        return 0
    _say(out, f"{OK} Registered {name} ({player.get('kind', kind)}) on {args.server}.", "green")
    _say(out, f"Its token is stored in {path} (readable by you only).")
    if replaced is not None:  # the server forgot the old account (a restart of a memory store)
        _say(
            out,
            f"It replaces the token stored before for {name} on this server, which the server no longer knew.",
        )
    if others:
        _say(
            out,
            f"Also stored for this server: {', '.join(others)}. `terrace play` now races as {name}; "
            f"`terrace play --name {others[0]}` races as {others[0]}.",
        )
    _say(out, "The server shows a token only this once: keep that file, or register again under a new name.")
    return 0


# ----- verify -------------------------------------------------------------------------


def _label(check: Check) -> str:
    return f"{check.name} ({check.player})" if check.player else check.name


def _load(path: str, out: Console, args: argparse.Namespace) -> tuple[Any, int]:
    """A record saved as JSON, or an exit code saying why not (2: no such file, 1: not JSON)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        return None, _fail(out, args, "cannot_read", f"cannot read {path}: {exc.strerror or exc}", 2)
    try:
        return json.loads(text), 0
    except ValueError as exc:
        return None, _fail(out, args, "not_json", f"{path} is not JSON: {exc}")


def print_audit(result: Audit, out: Console) -> None:
    """One row per check, ✓ or ✗ with what was found, then a verdict. What was found wraps
    between words in a column of its own (a hanging indent), never back under the check's name;
    on a narrow terminal (under 60 columns) it goes on the lines under the name instead."""
    wide = out.width >= 60
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold", ratio=1)
    for c in result.checks:
        mark = Text(OK if c.ok else BAD, style="green" if c.ok else "bold red")
        detail = Text(c.detail, style="" if c.ok else "red")
        if wide:
            grid.add_row(mark, _label(c), detail)
        else:
            out.print(Text.assemble(mark, " ", (_label(c), "bold")))
            out.print(Padding(detail, (0, 0, 0, 2)))
    if wide:
        out.print(grid)
    race = f"Race {result.race}" if result.race else "The record"
    if result.ok:
        _say(out, f"{race} verifies: all {len(result.checks)} checks pass.", "bold green")
    else:
        names = ", ".join(_label(c) for c in result.failed)
        _say(
            out,
            f"{race} does NOT verify: {len(result.failed)} of {len(result.checks)} checks fail: {names}.",
            "bold red",
        )


async def verify(args: argparse.Namespace, out: Console) -> int:
    """``terrace verify RACE``: args.server, args.race, args.json, args.file (optional path),
    args.save (optional path: the fetched record is written there, to check again later
    with ``--file`` and no server).

    Checks the race's record (fetched with ``record``, or read from ``--file``) and
    prints every check, or the audit as JSON with ``--json``. Exit 0 when every
    check passes, 1 on any mismatch and when the server refuses (``no_race``,
    ``not_finished``: its message is printed), 2 for usage (no race and no file, or
    a file that cannot be read). With both a race and a file, the record must be
    that race's.
    """
    race, path = _opt(args, "race"), _opt(args, "file")
    if path:
        record, code = _load(path, out, args)
        if code:
            return code
    elif race:
        try:
            answer = await fetch(args.server, "record", race=race)
        except Refused as exc:
            return _fail(out, args, exc.code, str(exc))
        record = answer.get("race")
        save = _opt(args, "save")
        if save:
            try:
                Path(save).write_text(json.dumps(record, indent=1) + "\n")
            except OSError as exc:
                return _fail(out, args, "usage", f"cannot write {save}: {exc.strerror or exc}", 2)
            if not _opt(args, "json", False):
                _say(
                    out,
                    f"Saved the record to {save}: `terrace verify --file {save}` checks it again offline.",
                )
    else:  # the command line says so with verify's usage (client/cli.py)
        return _fail(out, args, "usage", "verify needs a race id, or --file with a saved record", 2)
    result = audit(record, race=race or None)
    if _opt(args, "json", False):
        print(json.dumps(result.to_dict()))
    else:
        print_audit(result, out)
    return 0 if result.ok else 1


# ----- replay -------------------------------------------------------------------------


def _board(game: terrace.Game) -> RenderableType:
    """The board as the play screen draws it."""
    return board(game.view())


def _who(row: Message, i: int) -> str:
    player = row.get("player")
    return str(player.get("name")) if isinstance(player, dict) and player.get("name") else f"player {i + 1}"


def _heading(row: Message, i: int) -> str:
    t = row.get("time")
    when = f" at {t / 1000:.1f} s" if isinstance(t, int) else ""
    return (
        f"{_who(row, i)}: place {row.get('place')}, {row.get('finish')}{when}: score {row.get('score')}, "
        f"terrace left {row.get('terrace_left')}, {plural(int(row.get('moves') or 0), 'move')}"
    )


class _Steps:
    """One player's game after each move: ``games[k]`` is the position after k moves, built as needed."""

    def __init__(self, variant: str, seed: bytes, moves: list[str]) -> None:
        self.moves = moves
        self.games = [terrace.new_game(variant, seed)]
        self.error: str | None = None

    def upto(self, k: int) -> int:
        """Build positions up to ``k`` moves (fewer if a move does not replay); the last one built."""
        while len(self.games) <= min(k, len(self.moves)) and self.error is None:
            n = len(self.games) - 1
            game = self.games[-1].copy()
            try:
                game.play(self.moves[n])
            except terrace.IllegalMove as exc:
                self.error = f"move {n + 1} ({self.moves[n]!r}) does not replay: {exc.message}"
                break
            self.games.append(game)
        return min(k, len(self.games) - 1)


ANALYSIS_WAIT = 60.0  # seconds replay waits for the server to make a race's analysis


async def hindsight(server: str, race: str, wait: float = ANALYSIS_WAIT) -> tuple[Message | None, str]:
    """The race's ``analysis`` (asked again while the server answers ``analysing``), or None and why."""
    deadline = time.monotonic() + wait
    conn = await Connection.open(server)
    try:
        while True:
            try:
                answer = await conn.ask("analysis", race=race)
            except Refused as exc:  # an older server, or a race that cannot be analysed
                return None, str(exc)
            if answer.get("type") == "analysis":
                return answer, ""
            pause = float(answer.get("retry_after") or 1)
            if time.monotonic() + pause > deadline:
                return None, f"the server is still analysing race {race}; run replay again later"
            await asyncio.sleep(pause)
    finally:
        await conn.close()


def _analysis_of(analysis: Message | None, row: Message) -> Message | None:
    """One player's game in the analysis (by player id)."""
    if analysis is None:
        return None
    pid = (row.get("player") or {}).get("id")
    return next((g for g in analysis.get("players") or [] if (g.get("player") or {}).get("id") == pid), None)


def _marker(game: Message | None, k: int) -> str:
    """What hindsight says about move ``k`` (1-based), for the line that shows it."""
    if game is None:
        return ""
    if game.get("losing_move") is not None and k == game["losing_move"] + 1:
        return "  <- this move lost it (hindsight)"
    if (
        game.get("losing_move") is None
        and game.get("last_winnable") == k
        and game.get("verdict") == "unknown"
    ):
        return "  <- last position proven winnable (hindsight)"
    return ""


def _where(game: Message | None) -> int | None:
    """The step hindsight points at: the move that lost it, else the last position proven winnable."""
    if game is None:
        return None
    if game.get("losing_move") is not None:
        return int(game["losing_move"]) + 1
    if game.get("verdict") == "unknown" and game.get("last_winnable"):
        return int(game["last_winnable"])
    return None


def _verdict_lines(game: Message) -> list[str]:
    """The analysis of one game in plain words, with the winning continuation."""
    lw = game.get("last_winnable")
    line = list(game.get("continuation") or [])
    said = sentence(game)
    lines = [f"hindsight (the stock known, which no player saw): {said}"]
    if line and lw is not None:
        where = "from the deal" if lw == 0 else f"from after move {lw}"
        lines.append(f"a win {where} ({len(line)} moves): {' '.join(line)}")
    return lines


async def replay(args: argparse.Namespace, out: Console) -> int:
    """``terrace replay RACE``: args.server, args.race, args.player (optional name),
    args.all (bool: print every step even on a terminal), args.json, args.no_hindsight.

    Unless ``--no-hindsight``, it asks the server for the race's ``analysis`` (waiting
    up to ``ANALYSIS_WAIT`` seconds while it is made), marks the move that lost each
    game and prints the win the player missed; without it the replay goes on alone.

    Fetches the finished race's record and rebuilds each player's game from the
    revealed seed. On a terminal it steps (:data:`STEP_KEYS`): Enter or ``n`` next move,
    ``b`` back, ``s``/Home the deal, ``e``/End the player's last move, ``p`` next player,
    ``l`` the move that lost the game (when that is undecided, the last position proven
    winnable), ``q`` quit; another key shows the keys. Each step shows hindsight's verdict
    in one line, the last step all of it. Piped, or with ``--all``, it prints every move
    with the score and terrace left after it, then each player's final board;
    ``--json`` prints the same as data. Exit 1 when the server refuses, the player
    is not in the race, or a move does not replay.
    """
    try:
        answer = await fetch(args.server, "record", race=args.race)
    except Refused as exc:
        return _fail(out, args, exc.code, str(exc))
    record = answer.get("race")
    if not isinstance(record, dict):
        return _fail(out, args, "no_record", f"the server sent no record for {args.race}")
    variant, seed_hex = record.get("variant"), record.get("seed")
    try:
        seed = bytes.fromhex(seed_hex) if isinstance(seed_hex, str) else b""
        terrace.new_game(str(variant), seed or b"?")
    except ValueError as exc:
        return _fail(out, args, "bad_record", f"the record cannot be replayed: {exc}")
    if not seed:
        return _fail(out, args, "bad_record", "the record reveals no seed")
    rows = [r for r in record.get("results") or [] if isinstance(r, dict)]
    chosen = list(enumerate(rows))
    if _opt(args, "player"):
        chosen = [(i, r) for i, r in chosen if _who(r, i).lower() == args.player.lower()]
        if not chosen:
            names = ", ".join(_who(r, i) for i, r in enumerate(rows)) or "nobody"
            return _fail(
                out, args, "no_player", f"no player {args.player} in race {args.race}; its players: {names}"
            )
    steps = [
        (i, r, _Steps(str(variant), seed, [str(m) for m in r.get("move_list") or []])) for i, r in chosen
    ]
    analysis: Message | None = None
    if not _opt(args, "no_hindsight", False):
        if not _opt(args, "json", False):
            # a first analysis takes the server's solver up to a minute: say so, or it looks hung
            _say(
                out,
                "Asking the server where each game was lost (hindsight, the stock known; the first"
                " time, up to a minute; --no-hindsight skips it)…",
            )
        analysis, why = await hindsight(args.server, args.race, _opt(args, "analysis_wait", ANALYSIS_WAIT))
        if analysis is None and not _opt(args, "json", False):
            _say(out, f"No hindsight: {why}", "yellow")
    if _opt(args, "json", False):
        return _replay_json(record, steps, analysis)
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not _opt(args, "all", False)
    _say(
        out,
        f"Race {record.get('id')}: {variant}, goal {record.get('goal')}, {plural(len(rows), 'player')}, "
        f"seed {seed.hex()[:16]}…",
        "bold",
    )
    if interactive:
        return await _step(steps, out, analysis)
    failed = False
    for i, row, s in steps:
        out.print()
        _say(out, _heading(row, i), "bold")
        game_hindsight = _analysis_of(analysis, row)
        last = s.upto(len(s.moves))
        for k in range(1, last + 1):
            g = s.games[k]
            mark = _marker(game_hindsight, k)
            _say(
                out,
                f"  {k:4d}  {s.moves[k - 1]:<6}  score {g.score:3d}  terrace left {g.terrace_left:2d}{mark}",
                "bold yellow" if mark else "",
            )
        if s.error:
            _say(out, f"  {BAD} {s.error}", "red")
            failed = True
        game = s.games[last]
        _say(out, f"  final board after {plural(last, 'move')}:")
        out.print(_board(game))
        _say(out, f"  final: score {game.score}, terrace left {game.terrace_left}, {game.status}", "bold")
        if game_hindsight is not None:
            for text in _verdict_lines(game_hindsight):
                _say(out, "  " + text, "yellow")
    return 1 if failed else 0


def _replay_json(
    record: Message, steps: list[tuple[int, Message, _Steps]], analysis: Message | None = None
) -> int:
    players = []
    for _, row, s in steps:
        last = s.upto(len(s.moves))
        players.append(
            {
                "player": row.get("player"),
                "place": row.get("place"),
                "finish": row.get("finish"),
                "steps": [
                    {
                        "n": k,
                        "move": s.moves[k - 1],
                        "score": s.games[k].score,
                        "terrace_left": s.games[k].terrace_left,
                    }
                    for k in range(1, last + 1)
                ],
                "final": s.games[last].view(),
                "error": s.error,
                "hindsight": _analysis_of(analysis, row),
            }
        )
    print(json.dumps({"race": record.get("id"), "variant": record.get("variant"), "players": players}))
    return 1 if any(p["error"] for p in players) else 0


STEP_KEYS = "Enter/n/→ next move, b/← back, s/Home the deal, e/End the last move, p next player"


async def _key(prompt: str) -> str:
    """One key from the user, acted on at once (no Enter after it): a letter as itself, Enter
    as '', Home and End as ``s`` and ``e``, the arrows as ``n`` and ``b``."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

    keys = KeyBindings()
    named = {"enter": "", "home": "s", "end": "e", "right": "n", "left": "b"}
    for key, result in named.items():
        keys.add(key)(lambda event, result=result: event.app.exit(result=result))

    @keys.add("<any>")  # any other key (prompt_toolkit tries it after the named ones)
    def _other(event: KeyPressEvent) -> None:
        event.app.exit(result=event.data.lower())

    try:
        # handle_sigint=False: prompt_toolkit would take the loop's Ctrl-C handler away for good
        asked = PromptSession[str](key_bindings=keys).prompt_async(prompt, handle_sigint=False)
        return (await asked).strip().lower()
    except (EOFError, KeyboardInterrupt):
        return "q"


def _show_step(out: Console, row: Message, i: int, s: _Steps, k: int, game_hindsight: Message | None) -> None:
    """Position ``k`` of one player's game, with hindsight's verdict: its first line on every
    step (what ``l`` jumps to), every line (the missed win too) at the end."""
    game = s.games[k]
    out.print()
    _say(out, _heading(row, i), "bold")
    move = (
        f"move {k} of {len(s.moves)}: {s.moves[k - 1]}"
        if k
        else f"the deal ({plural(len(s.moves), 'move')} to come)"
    )
    mark = _marker(game_hindsight, k) if k else ""
    _say(
        out,
        f"{move}  ·  score {game.score}, terrace left {game.terrace_left}{mark}",
        "bold yellow" if mark else "",
    )
    out.print(_board(game))
    at_end = _at_end(s, k)
    if at_end and s.error:
        _say(out, f"{BAD} {s.error}", "red")
    if game_hindsight is not None:
        verdict = _verdict_lines(game_hindsight)
        for text in verdict if at_end else verdict[:1]:
            _say(out, text, "yellow")


def _at_end(s: _Steps, k: int) -> bool:
    """Whether ``k`` is the player's last position (the last move, or the last that replays)."""
    return k >= len(s.moves) or (s.error is not None and k == len(s.games) - 1)


async def _read_key(out: Console, where: int | None) -> str:
    """A key the stepper knows; for any other, a line of the keys, and ask again."""
    jump = f" [l] move {where}" if where else ""
    # short enough for 80 columns; a key it does not know lists them all (Enter, arrows, Home, End)
    prompt = f"[n]ext [b]ack [s]tart [e]nd [p]layer{jump} [q]uit > "
    while True:
        key = await _key(prompt)
        if key in ("", "n", "b", "s", "e", "p", "q") or (key == "l" and where):
            return key
        jump_key = f", l move {where} (hindsight)" if where else ""
        _say(out, f"Keys: {STEP_KEYS}{jump_key}, q quit.", "yellow")


def _next_step(key: str, k: int, last: int, at_end: bool, where: int | None) -> int | None:
    """The position a key goes to in this player's game, or None for the next player."""
    if key == "p" or (key in ("", "n") and at_end):
        return None
    steps = {"b": max(0, k - 1), "s": 0, "e": last, "l": where or k}
    return steps.get(key, k + 1)


async def _step(
    steps: list[tuple[int, Message, _Steps]], out: Console, analysis: Message | None = None
) -> int:
    """Step through each player's game with keys (see :func:`replay`); ``analysis`` is hindsight's."""
    p, k = 0, 0
    while p < len(steps):
        i, row, s = steps[p]
        k = s.upto(k)
        game_hindsight = _analysis_of(analysis, row)
        _show_step(out, row, i, s, k, game_hindsight)
        key = await _read_key(out, _where(game_hindsight))
        if key == "q":
            break
        following = _next_step(key, k, len(s.moves), _at_end(s, k), _where(game_hindsight))
        p, k = (p, following) if following is not None else (p + 1, 0)
    return 0
