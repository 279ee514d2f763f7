"""``terrace play``: find a race (queue, join, create or pick one), wait out the countdown, race.

The race itself is a :class:`client.race_table.RaceTable`; this module finds it, waits
for it, runs the screen on it and says what to do next.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time

from rich.console import Console

from link import Refused, checked
from link.command import interrupt_handled
from terrace.wire.conversation import Message

from . import config
from .race_table import RaceTable, hello_fields
from .render import plural
from .screen import Screen
from .suggest import command, invitation, server_flag

QUEUED_ALONE = (
    "Nobody else is waiting for {variant} now: your race starts when someone else queues for it."
    " Ctrl-C leaves the queue."
)
QUEUED_WINNABLE_ALONE = (
    "Nobody else is waiting for winnable {variant} deals now (house bots race any deal, so they"
    " wait in the other queue): your race starts when someone else queues for winnable deals,"
    " or race a winnable deal alone with --create {variant} --winnable --seats 1. Ctrl-C leaves the queue."
)
UNRATED = (
    "This race goes ahead unrated: two of its players' accounts play from one address (or one"
    " install), so it counts on no board and moves no rating. A race with players from elsewhere is rated."
)
STILL_WAITING = 20.0  # seconds in the queue before the player is told again that nobody came


# ----- the command ---------------------------------------------------------------------

LEFT_SCREEN = (
    "You left the screen; the race goes on without you. Run `{command}` again to come back "
    "(within the server's grace period, 60 s by default), or type `leave` there to drop out."
)


async def play(args: argparse.Namespace, out: Console) -> int:
    """``terrace play``: args.server, args.name, args.queue, args.race, args.create, args.seats, args.goal."""
    table = RaceTable(args.server, hello_fields(args))
    try:
        welcome = await table.connect()
        me = welcome["player"]["name"]
        config.save_session(args.server, me, welcome["session"])
        out.print(f"Connected to {args.server} as [bold]{me}[/bold].")
        if (
            welcome["player"].get("kind") == "bot"
        ):  # the newest account is the default: say so when it is a bot's
            out.print(
                f"{me} is a bot account: its races count among the bots'. "
                "`terrace play --name NAME` races as another of your accounts, or as a guest."
            )
        race_id = await _find_race(table, welcome, args, out)
        if race_id is None:
            return 0
        assert table.started is not None
        if not table.started.done():
            out.print("Waiting for the race to start…  (Ctrl-C to leave)")
            try:
                await _countdown(table, out)
            except asyncio.CancelledError:
                return await _leave_before_start(table, out)
        _say_unrated(table, out)
        screen = Screen(table, me=me, confirm=("quit", "resign", "leave"))
        table.on_change = screen.changed
        ended = await screen.run()
        if ended is None:
            out.print(LEFT_SCREEN.format(command=command(args, "terrace play", name=True)))
            return 0
        assert table.finished is not None
        again = again_command(args, table.race)
        if table.race_gone or (table.my_finish == "left" and not table.finished.done()):
            out.print(f"{ended} Race again with: {again}")
            return 0
        if not table.finished.done():
            out.print(f"{ended} Waiting for the others… (Ctrl-C to stop waiting)")
            try:
                await table.finished
            except asyncio.CancelledError:
                interrupt_handled()  # stopping the wait is a way to end, not an error
                results = command(args, f"terrace replay {table.race['id']}")
                out.print(f"Stopped waiting; the race goes on. Its results once over: {results}")
                return 0
        from .layout import end_screen, rated_note
        from .rating import rating_change

        finished = table.finished.result()
        out.print(end_screen({**table.race, **finished}, me, again, server_flag(args.server)))
        if rated_note(finished["results"]) is None and not welcome["player"].get("guest"):
            change = await rating_change(table.ask, me, str(finished["race"]))
            if change:
                out.print(change)
        return 0
    finally:  # refusals and drops are reported by the command line, once
        await table.close()


async def _leave_before_start(table: RaceTable, out: Console) -> int:
    """Ctrl-C in the queue or the countdown: out of the queue, or out of the race, as said."""
    interrupt_handled()  # leaving is what Ctrl-C was asked to do
    race = table.race.get("id")
    if race is None:  # still in the queue: no race yet
        await table.ask("unqueue")
        out.print("You left the queue.")
        return 0
    answer = await table.ask("leave", race=race)
    if answer["type"] == "left":
        out.print(f"You left race {race} before it started.")
    else:
        out.print(str(answer.get("message", answer.get("code"))))
    return 0


def again_command(args: argparse.Namespace, race: Message) -> str:
    """The command that gets the same kind of race as this one: a created race is created
    again with its seats, a queued one queued for again; its goal and ``--winnable`` kept.
    A race joined by id (or picked) is queued for: its variant, and its goal if not the default."""
    from terrace import VARIANTS

    variant = str(args.create or args.queue or race.get("variant") or "terrace")
    words = ["terrace play"]
    words += ["--create", variant, "--seats", str(args.seats)] if args.create else ["--queue", variant]
    goal = args.goal or race.get("goal")
    if goal and variant in VARIANTS and goal != VARIANTS[variant].default_goal:
        words += ["--goal", str(goal)]
    if getattr(args, "winnable", False):
        words.append("--winnable")
    return command(args, " ".join(words), name=True)


async def _find_race(
    table: RaceTable, welcome: Message, args: argparse.Namespace, out: Console
) -> str | None:
    if welcome.get("race"):  # a race goes on for us: the server pushes its `started` now
        table.race = {**table.race, "id": welcome["race"]}
        out.print(f"Back in race {welcome['race']}: it went on while you were away.")
        return str(welcome["race"])
    if args.queue:
        fields = {"variant": args.queue, **({"goal": args.goal} if args.goal else {})}
        if getattr(args, "winnable", False):
            fields["deals"] = "winnable"
        _say_queued(out, checked(await table.ask("queue", **fields)))
        return "queued"
    if args.race:
        answer = await table.ask("join", race=args.race)
        if (
            answer.get("code") == "no_race"
            and (await table.ask("record", race=args.race))["type"] == "record"
        ):
            over = command(args, f"terrace replay {args.race}")
            raise Refused(
                {
                    "type": "error",
                    "code": "race_over",
                    "message": f"Race {args.race} is over: `{over}` shows it.",
                }
            )
        checked(answer)
        table.race = dict(answer["race"])
        return str(args.race)
    if args.create:
        fields = {"variant": args.create, "seats": args.seats, "start": "full", "join": True}
        if args.goal:
            fields["goal"] = args.goal
        if getattr(args, "winnable", False):
            fields["deals"] = "winnable"  # the answer waits while the server proves a deal winnable
            out.print("Drawing a deal the server's solver proves winnable…")
        created = await table.ask("create", **fields)
        checked(created)
        table.race = created["race"]
        joined = f"{plural(args.seats, 'player')} {'has' if args.seats == 1 else 'have'} joined"
        out.print(f"Created race {created['race']['id']}: it starts when {joined}.")
        if args.seats > 1:
            for line in invitation(args, str(created["race"]["id"])):
                out.print(line, soft_wrap=True, highlight=False, markup=False)
        return str(created["race"]["id"])
    return await _pick(table, out)


async def _pick(table: RaceTable, out: Console) -> str | None:
    """Show the open races and let the player pick one, queue, or leave."""
    from prompt_toolkit import PromptSession

    from .render import lobby

    listing = await table.ask("races")
    open_races = [r for r in listing.get("races", []) if r.get("state") == "open"]
    out.print(lobby(open_races) if open_races else "No open races right now.")
    hint = "a race id to join, a variant to queue for (terrace, signora, …), or q to quit"
    from terrace import VARIANTS

    while True:
        if sys.stdin.isatty():
            try:
                # handle_sigint=False: prompt_toolkit would take the loop's Ctrl-C handler away for good
                ask = PromptSession[str]().prompt_async(f"Join or queue ({hint}): ", handle_sigint=False)
                answer = (await ask).strip()
            except (EOFError, KeyboardInterrupt):
                return None
        else:  # a pipe or a file: a line of it, with no terminal to draw a prompt on
            print(f"Join or queue ({hint}): ", end="", flush=True)
            answer = (await asyncio.to_thread(sys.stdin.readline)).strip()
        if answer in ("", "q", "quit"):
            return None
        if answer in VARIANTS:
            _say_queued(out, checked(await table.ask("queue", variant=answer)))
            return "queued"
        joined = await table.ask("join", race=answer)
        if joined.get("code") in ("no_race", "race_full", "race_started", "bad_field"):  # a typo: ask again
            out.print(f"{joined.get('message')} Type one of the ids above, a variant, or q.")
            continue
        checked(joined)
        table.race = dict(joined["race"])
        return answer


def _say_unrated(table: RaceTable, out: Console) -> None:
    """Say once, before the race starts, that it goes ahead unrated (and why)."""
    if table.race.get("unrated") == "same_address" and not table.unrated_said:
        table.unrated_said = True
        out.print(UNRATED)


def _say_queued(out: Console, queued: Message) -> None:
    winnable = ", winnable deals only" if queued.get("deals") == "winnable" else ""
    out.print(
        f"Queued for {queued['variant']} (goal {queued['goal']}{winnable}), position {queued['position']}."
    )
    if queued["position"] == 1:
        if queued.get("deals") == "winnable":
            out.print(QUEUED_WINNABLE_ALONE.format(variant=queued["variant"]))
        else:
            out.print(QUEUED_ALONE.format(variant=queued["variant"]))


async def _countdown(table: RaceTable, out: Console) -> None:
    assert table.started is not None
    shown: set[int] = set()
    since = time.monotonic()
    while not table.started.done():
        _say_unrated(table, out)
        if not table.race and since and time.monotonic() - since > STILL_WAITING:
            out.print(
                f"Still waiting after {STILL_WAITING:.0f} s: nobody else has queued yet. Ctrl-C leaves the queue."
            )
            since = 0.0
        starts_at = table.race.get("starts_at")
        if starts_at and table.race.get("state") == "countdown":
            # whole seconds still to go, rounded up: the last second reads 1, not 0
            left = max(0, math.ceil((starts_at - time.time() * 1000) / 1000))
            if left not in shown:
                shown.add(left)
                out.print(f"Starting in {left}…" if left else "Starting…")
        await asyncio.wait([table.started], timeout=0.2)
