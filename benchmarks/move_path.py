"""Where a move's instructions go: each stage of the server's move path counted alone.

    python benchmarks/move_path.py                  # the table (runs itself under callgrind)
    python benchmarks/move_path.py --json           # the same as JSON

``benchmarks/instructions.py`` counts a whole move in the running server; this script
splits it. It plays the same kind of races as the benchmark's players (4-seat
``terrace`` races, a foundation move first, else the stock, else any move that does not
undo the last) through the server's own parts, one stage at a time, each stage a loop
over the same moves, and counts each loop's instructions under valgrind's callgrind
(``--toggle-collect`` on ``operator.call``, through which each stage is run, and a dump
after each). The stages:

- decoding and checks: a move's frame read into a checked request;
- race core and engine: ``Race.check_move`` then ``apply_move``, as the driver calls them
  (the answer built, its view and legal moves, kept for resends);
- engine alone: what the core asks the game for on a move (read the move, play it, the
  quick status, the view, the legal moves), on games of the same moves;
- encoding: the ``moved`` answer into a msgpack frame;
- metrics: the per-move counts (message type, move tally);
- journal: the move's log entry appended to the memory store;
- pushes: one standings push built and encoded (given per push; how many moves share one
  push depends on the standings window).

What is not here (the event loop, websockets' framing and sockets, the connection's
reader and worker, the dispatcher and the handler, the driver's lock) is the whole
move's count less these.

Kept as one module (about 420 lines): the scripted races, the stages that replay them and
the callgrind driver that counts each stage must agree move for move, and the stages also
run against older checkouts (``--root``), whose APIs differ.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from benchmarks.common import run_info  # noqa: E402

RACE_MOVES = 400  # as the benchmark's players: resign after 400 moves
KNOWN: dict[str, dict[tuple[str, int], Any]] = {}  # race id -> (player, seq) -> status after the move
STAGES = (
    "decode",
    "decode_dict",
    "core",
    "engine",
    "encode",
    "encode_msgpack",
    "metrics",
    "journal",
    "push",
    "empty",
)
LABELS = {
    "decode": "decoding and checks in one step (msgspec: frame to typed request)",
    "decode_dict": "the same by msgpack, then the checks in Python (the old way)",
    "encode_msgpack": "encoding the answer by msgpack's packb (the old way)",
    "core": "race core and engine (check_move, apply_move)",
    "engine": "engine alone (resolve, play, quick status, view, legal moves)",
    "encode": "encoding the answer (msgspec's msgpack)",
    "metrics": "metrics (message count, move tally)",
    "journal": "journal (log append, memory store)",
    "push": "one standings push (built, encoded once)",
    "empty": "the loop itself (subtracted from each)",
}


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never waits (the memory store's) to its end, without a loop."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine waited")


class Script:
    """The races to play: each a list of (player, seq, text) in the order they are sent."""

    def __init__(self, races: int, seats: int, seed: int) -> None:
        from benchmarks.server_client import choose
        from terrace.rules.replay import new_game

        rng = random.Random(seed)
        self.seats = seats
        self.seeds = [rng.randbytes(32) for _ in range(races)]
        self.moves: list[list[tuple[str, int, str]]] = []
        # (race, player, seq) -> the game's status after that move and the path its search found:
        # what a worker's long lost search tells the server, outside its own process (so outside
        # the count here too)
        self.statuses: dict[tuple[int, str, int], Any] = {}
        for r, s in enumerate(self.seeds):
            games = {f"p{i}": new_game("terrace", s) for i in range(seats)}
            rngs = {pid: random.Random(rng.random()) for pid in games}  # each player its own, as bots
            last: dict[str, str | None] = dict.fromkeys(games)
            seq = dict.fromkeys(games, 0)
            order: list[tuple[str, int, str]] = []
            live = list(games)
            while live:
                for pid in list(live):
                    g = games[pid]
                    text = choose(sorted(g.legal_moves()), last[pid], rngs[pid])
                    g.play(text)
                    last[pid] = text
                    seq[pid] += 1
                    order.append((pid, seq[pid], text))
                    self.statuses[r, pid, seq[pid]] = found(g)
                    if g.status != "playing" or g.terrace_left == 0 or seq[pid] >= RACE_MOVES:
                        live.remove(pid)
            self.moves.append(order)

    def save(self, path: Path) -> None:
        """Kept for the counting process, which plays them under callgrind (where working them out,
        lost searches and all, would take minutes)."""
        data = {
            "seats": self.seats,
            "seeds": [s.hex() for s in self.seeds],
            "moves": self.moves,
            "statuses": [[r, pid, seq, status] for (r, pid, seq), status in self.statuses.items()],
        }
        path.write_text(json.dumps(data))

    @classmethod
    def load(cls, path: Path) -> Script:
        data = json.loads(path.read_text())
        script = cls.__new__(cls)
        script.seats = data["seats"]
        script.seeds = [bytes.fromhex(s) for s in data["seeds"]]
        script.moves = [[(pid, seq, text) for pid, seq, text in race] for race in data["moves"]]
        script.statuses = {(r, pid, seq): status for r, pid, seq, status in data["statuses"]}
        return script

    @property
    def count(self) -> int:
        return sum(len(m) for m in self.moves)

    def races(self) -> list[tuple[Any, list[tuple[str, int, str]]]]:
        """Fresh running races (the first view dealt), with their moves."""
        from terrace.race import Race
        from terrace.race.rules import RaceRules, Timing

        out = []
        for r, (seed, moves) in enumerate(zip(self.seeds, self.moves, strict=True)):
            rules = RaceRules("terrace", "terrace", self.seats, 900, start="full")
            race = Race("r" + seed.hex()[:8], rules, seed=seed, now=0, timing=Timing(countdown=0))
            for i in range(self.seats):
                race.seat({"id": f"p{i}", "name": f"player{i}", "kind": "bot", "guest": True}, 0)
            race.tick(0)
            assert race.state == "running", race.state
            KNOWN[race.id] = {(pid, seq): self.statuses[r, pid, seq] for pid, seq, _ in moves}
            out.append((race, moves))
        return out


def found(g: Any) -> Any:
    """What a search worker sends back for ``g``'s position: a fresh copy's ``found()`` (older
    checkouts: the status alone)."""
    import pickle

    if not hasattr(g, "found"):
        return g.status
    status, path = pickle.loads(pickle.dumps(g)).found()
    return [status, [list(m) for m in path]]


def _answer(g: Any, answer: Any) -> tuple[str, list[tuple[int, int]]]:
    """The status and path of :func:`found`'s answer; no path for a checkout whose games take none."""
    status, path = answer if isinstance(answer, list) else (answer, [])
    return status, [tuple(m) for m in path] if hasattr(g, "found") else []


def settle_race(race: Any, pid: str, answer: Any) -> list[Any]:
    """``race.settled`` with what a worker sent back for ``pid``'s game."""
    status, path = _answer(race.seats[pid].game, answer)
    return race.settled(pid, status, 1, path) if path else race.settled(pid, status, 1)  # type: ignore[no-any-return]


def settle_game(g: Any, answer: Any) -> None:
    """``g.settle`` with what a worker sent back."""
    status, path = _answer(g, answer)
    if path:
        g.settle(status, path)
    else:
        g.settle(status)


def play(race: Any, pid: str, seq: int, text: str) -> list[Any]:
    """One move through the race core, as the driver makes it (a long lost search run here)."""
    effects: list[Any] = race.apply_move(race.check_move(pid, seq, text, 1), 1)
    if effects and type(effects[0]).__name__ == "Search":  # the worker's answer, known beforehand
        effects = settle_race(race, pid, KNOWN[race.id][pid, seq])
    return effects


def stages(script: Script) -> dict[str, Callable[[], None]]:
    """Each stage as a function that runs it over every move of the script once."""
    import msgpack

    from server.metrics import Metrics
    from server.store.memory import MemoryStore
    from terrace.rules.replay import new_game
    from terrace.wire import protocol
    from terrace.wire.protocol import MSGPACK, check_request, decode, encode

    # (a checkout from before the one-step reading: decode, then check)
    read_request = getattr(protocol, "read_request", lambda f, s: check_request(decode(f, s)))

    frames = [
        encode({"type": "move", "id": i, "race": "r0123456", "seq": seq, "move": text}, MSGPACK)
        for i, (_, seq, text) in enumerate(m for ms in script.moves for m in ms)
    ]
    answers: list[Any] = []
    for race, moves in script.races():
        for pid, seq, text in moves:
            for effect in play(race, pid, seq, text):
                if type(effect).__name__ == "Reply":
                    answers.append(effect.message)
    entries = [{"p": pid, "seq": seq, "m": text, "t": 1} for ms in script.moves for pid, seq, text in ms]
    pushers = [race for race, _ in script.races()]
    for race, moves in zip(pushers, script.moves, strict=True):  # midway through each race
        for pid, seq, text in moves[: len(moves) // 2]:
            play(race, pid, seq, text)
    metrics = Metrics()
    store = MemoryStore()
    prepared: dict[str, Any] = {}

    def prepare_core() -> None:
        prepared["core"] = script.races()

    def prepare_engine() -> None:
        prepared["engine"] = []
        for seed, moves in zip(script.seeds, script.moves, strict=True):
            games = {f"p{i}": new_game("terrace", seed) for i in range(script.seats)}
            first = games["p0"]
            for g in games.values():
                if g is not first:  # as the race deals them: one search per position for every seat
                    g.share_searches(first)
            prepared["engine"].append(
                (
                    games,
                    moves,
                    {
                        (pid, seq): status
                        for (r, pid, seq), status in script.statuses.items()
                        if r == len(prepared["engine"])
                    },
                )
            )

    def decode_stage() -> None:
        for frame in frames:
            read_request(frame, MSGPACK)

    def decode_dict_stage() -> None:
        for frame in frames:
            check_request(msgpack.unpackb(frame))

    def core_stage() -> None:
        for race, moves in prepared["core"]:
            for pid, seq, text in moves:
                play(race, pid, seq, text)

    def engine_stage() -> None:
        for games, moves, known in prepared["engine"]:
            for pid, seq, text in moves:
                g = games[pid]
                g.play(g.resolve(text))
                if g.quick_status() is None:  # as the race: a worker's search settles it (not counted)
                    settle_game(g, known[pid, seq])
                g.view()
                sorted(g.legal_moves())

    def encode_stage() -> None:
        for answer in answers:
            encode(answer, MSGPACK)

    def encode_msgpack_stage() -> None:
        for answer in answers:
            msgpack.packb(answer)

    def metrics_stage() -> None:
        for _ in entries:
            metrics.count_message("move")
            metrics.moves.observe(0.0002)

    def journal_stage() -> None:
        for entry in entries:
            _run(store.log_append("r0123456", entry))

    def push_stage() -> None:
        for race in pushers:
            encode(race.standings(), MSGPACK)

    def empty_stage() -> None:
        for _ in entries:
            pass

    return {
        "prepare_core": prepare_core,
        "prepare_engine": prepare_engine,
        "decode": decode_stage,
        "decode_dict": decode_dict_stage,
        "encode_msgpack": encode_msgpack_stage,
        "core": core_stage,
        "engine": engine_stage,
        "encode": encode_stage,
        "metrics": metrics_stage,
        "journal": journal_stage,
        "push": push_stage,
        "empty": empty_stage,
    }


def inside(args: argparse.Namespace) -> None:
    """Under callgrind: run each stage through ``operator.call`` (counted), the rest not."""
    script = Script.load(args.script)
    run = stages(script)
    for name in STAGES:  # once first: warms every cache the code keeps (interned names, bytecode)
        if name in ("core", "engine"):
            run["prepare_" + name]()
        run[name]()
    for name in STAGES:
        if name in ("core", "engine"):
            run["prepare_" + name]()
        print(f"stage {name}", flush=True)
        operator.call(run[name])
    print(json.dumps({"moves": script.count, "pushes": len(script.moves)}), flush=True)


def totals(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


def count(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="terrace-move-path-") as tmp:
        out = Path(tmp) / "cg.out"
        script = Path(tmp) / "script.json"
        Script(args.races, args.seats, args.seed).save(script)
        argv = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=_operator_call",
            "--dump-after=_operator_call",
            f"--callgrind-out-file={out}",
            sys.executable,
            str(Path(__file__).resolve()),
            "--inside",
            *("--script", str(script)),
        ]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=args.root, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the stages failed under callgrind:\n{done.stderr[-3000:]}")
        sizes = json.loads(done.stdout.strip().splitlines()[-1])
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        counted = [totals(p) for p in dumps]
    if len(counted) != len(STAGES):
        raise RuntimeError(f"expected {len(STAGES)} dumps, got {len(counted)}")
    raw = dict(zip(STAGES, counted, strict=True))
    moves, pushes = sizes["moves"], sizes["pushes"]
    loop = raw["empty"] / moves  # the bare loop over the moves, in every per-move stage
    per_move = {k: raw[k] / moves - loop for k in STAGES if k not in ("push", "empty")}
    per_move["core"] -= per_move["engine"]  # the core's own part
    return {
        "moves": moves,
        "raw": raw,
        "per_move": per_move,
        "per_push": raw["push"] / pushes,
        "loop_per_move": loop,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--races", type=int, default=6, help="races played per stage (default: %(default)s)")
    p.add_argument("--seats", type=int, default=4, help="players per race (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="the races' random seed (default: %(default)s)")
    p.add_argument("--root", type=Path, default=ROOT, help="the checkout to count (default: this one)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--script", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.inside:
        sys.path.insert(0, str(Path.cwd()))
        inside(args)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not on the PATH", file=sys.stderr)
        return 1
    args.root = args.root.resolve()
    env_root = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(args.root) + (os.pathsep + env_root if env_root else "")
    report = {**run_info(argv), "root": str(args.root), **count(args)}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"command: {report['command']}")
    print(f"{report['moves']} moves of {args.races} races of {args.seats} seats, instructions per move:")
    for name, value in report["per_move"].items():
        if name == "core":
            print(f"  {'race core (without the engine)':<62} {value:>9,.0f}")
        else:
            print(f"  {LABELS[name]:<62} {value:>9,.0f}")
    print(f"  {LABELS['push']:<62} {report['per_push']:>9,.0f} per push")
    return 0


if __name__ == "__main__":
    sys.exit(main())
