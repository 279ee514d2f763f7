"""Checking a finished race from its record: commitment, deal, every move, results, finishes, places.

Sans-I/O: :func:`audit` takes the record as plain data (a ``record`` answer's
``race``, PROTOCOL.md "Records") and returns an :class:`Audit`, a list of named
checks that each passed or failed with a sentence saying why. It never raises
on a malformed record: a missing or ill-typed field is a failed check.

The checks, in order (``player`` is set on the per-player ones):

- ``record``: the record is a map with a known variant, a goal, a known rules version
  (``rules_version``; a record without one was made under version 1) and result rows;
- ``seed``: the seed is present and is 32 bytes of hex;
- ``commitment``: SHA-256 of ``terrace-commit:`` + seed is the published commitment;
- ``deal``: the deal recomputed with DEAL-V1 (its first cards, for people to compare);
- ``first_view`` (records that keep it): the view the seed deals is the recorded first view;
- ``solution`` (only when the record has one: a winnable-only race): the winning
  line replays, every move legal, from the revealed deal to a won game;
- ``replay`` (each player): every move of ``move_list`` is legal from the deal, and
  none comes after the player reached the terrace goal;
- ``result`` (each player): the replayed score, terrace left, move count and status
  are the row's ``score``, ``terrace_left``, ``moves`` and ``status``;
- ``finish`` (each player): ``goal`` means the goal was reached, ``stuck`` that the
  game is lost, other finishes that neither happened; ``time`` matches the limit;
- ``places``: goal finishers first, by time; then by score (more first) and terrace
  left (fewer first); exact ties share a place (competition ranking). The race time of
  each player's last card home, the server's final tie-break, is not in the record, so
  players level on score and terrace left may be in either order or tied.

A player whose moves do not replay gets no ``result`` or ``finish`` check (there is no
game to compare); ``places`` uses the record's own numbers, so it stands on its own.

Longer than our usual module: one small function per check above, kept in one file so
that the list reads in the order the code runs.

Kept as one module (about 470 lines): the checks are one ordered list, each a
short function, and a reader checking a record wants them side by side.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from terrace.errors import IllegalMove
from terrace.race.places import Standing
from terrace.rules.cards import NAME
from terrace.rules.deal import commitment, shuffle
from terrace.rules.game import Game
from terrace.rules.replay import new_game
from terrace.rules.variants import VARIANTS
from terrace.rules.versions import RULES, UNVERSIONED
from terrace.vocab import FINISHES

SEED_BYTES = 32
FIRST_CARDS = 5  # how many dealt cards the ``deal`` check names
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


@dataclass(frozen=True)
class Check:
    """One claim of the record, checked: ``ok`` and a sentence saying what was found."""

    name: str
    ok: bool
    detail: str
    player: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "player": self.player, "ok": self.ok, "detail": self.detail}


@dataclass
class Audit:
    """Every check of one record; ``ok`` when all passed."""

    checks: list[Check] = field(default_factory=list)
    race: str | None = None

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``--json`` output."""
        return {"race": self.race, "ok": self.ok, "checks": [c.to_dict() for c in self.checks]}


def deck_of(variant: str) -> list[int]:
    """The card ids a variant shuffles, in canonical order (Louis leaves out pack 0's aces and kings)."""
    return VARIANTS[variant].deck()


def audit(record: Any, race: str | None = None) -> Audit:
    """Check everything ``record`` claims. ``race``, if given, is the id the record should carry.

    ``record`` may also be a whole ``record`` answer (``{"type": "record", "race": {...}}``).
    """
    if (
        isinstance(record, Mapping)
        and record.get("type") == "record"
        and isinstance(record.get("race"), Mapping)
    ):
        record = record["race"]
    out = Audit(race=race)
    try:
        _audit(record, race, out)
    except Exception as exc:  # a record shaped in a way nobody foresaw: still an answer, not a crash
        out.checks.append(Check("record", False, f"cannot be checked: {type(exc).__name__}: {exc}"))
    return out


def _audit(record: Any, race: str | None, out: Audit) -> None:
    add = out.checks.append
    if not isinstance(record, Mapping):
        add(Check("record", False, f"a record is a map, not {type(record).__name__}"))
        return
    if out.race is None and isinstance(record.get("id"), str):
        out.race = record["id"]
    shape = _shape(record, race)
    add(Check("record", not shape.problems, "; ".join(shape.problems) or shape.summary))
    seed = _seed(record, add)
    if seed is not None:
        _commitment(record, seed, add)
    variant = shape.variant
    if seed is None or variant is None:
        add(
            Check(
                "deal", False, "not recomputed: " + ("no usable seed" if seed is None else "unknown variant")
            )
        )
    else:
        deck = shuffle(deck_of(variant), seed)
        first = " ".join(NAME[c] for c in deck[:FIRST_CARDS])
        add(Check("deal", True, f"{variant} deals {first} … ({len(deck)} cards shuffled)"))
        if "first_view" in record:
            _first_view(record["first_view"], variant, seed, add)
        if "solution" in record and shape.rules_version is not None:
            add(_solution(record["solution"], variant, shape.rules_version, seed))
    for i, row in enumerate(shape.rows):
        who = _name(row, i)
        if seed is None or variant is None or shape.rules_version is None:
            add(Check("replay", False, "not replayed: no usable seed, variant or rules version", who))
            continue
        game = _replay(row, variant, shape.rules_version, shape.goal, seed, who, add)
        if game is not None:
            _result(row, game, who, add)
            _finish(row, game, shape.goal, record.get("time_limit"), who, add)
    if shape.rows:
        add(_places(shape.rows))


_Add = Callable[[Check], None]


# ----- the record's shape -----------------------------------------------------------


@dataclass
class _Shape:
    variant: str | None = None
    goal: str | None = None
    rules_version: int | None = None
    rows: list[Mapping[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    summary: str = ""


def _shape(record: Mapping[str, Any], race: str | None) -> _Shape:
    s = _Shape()
    rid = record.get("id")
    if race is not None and rid != race:
        s.problems.append(f"the record is of race {rid!r}, not {race!r}")
    if record.get("state", "finished") != "finished":
        s.problems.append(f"the race is {record.get('state')!r}, not finished")
    variant = record.get("variant")
    if isinstance(variant, str) and variant in VARIANTS:
        s.variant = variant
    else:
        s.problems.append(f"variant {variant!r} is not one of {', '.join(VARIANTS)}")
    goal = record.get("goal")
    if s.variant is not None and isinstance(goal, str) and goal in VARIANTS[s.variant].goals:
        s.goal = goal
    elif s.variant is not None:
        s.problems.append(f"goal {goal!r} is not a goal of {s.variant}")
    version = record.get("rules_version", UNVERSIONED)
    if _int(version) and version in RULES:
        s.rules_version = version
    else:
        known = ", ".join(str(v) for v in RULES)
        s.problems.append(f"rules version {version!r} is unknown: this checker knows versions {known}")
    results = record.get("results")
    if not isinstance(results, list) or not results:
        s.problems.append("no results: 'results' should be a non-empty list of rows")
    else:
        for i, row in enumerate(results):
            if isinstance(row, Mapping):
                s.rows.append(row)
            else:
                s.problems.append(f"result row {i + 1} is not a map")
    s.summary = (
        f"race {rid}: {variant}, goal {goal}, rules version {version}, "
        f"{len(s.rows)} player{'s' * (len(s.rows) != 1)}"
    )
    return s


def _name(row: Mapping[str, Any], i: int) -> str:
    player = row.get("player")
    if isinstance(player, Mapping) and isinstance(player.get("name"), str):
        return str(player["name"])
    return f"row {i + 1}"


def _solution(line: Any, variant: str, version: int, seed: bytes) -> Check:
    """The record's winning line, replayed from the deal: the proof the deal was winnable."""
    if not isinstance(line, list) or not all(isinstance(m, str) for m in line):
        return Check("solution", False, "not a list of moves")
    game = new_game(variant, seed, rules_version=version)
    for i, move in enumerate(line):
        try:
            game.play(move)
        except IllegalMove as exc:
            return Check("solution", False, f"move {i + 1} ({move!r}) is refused: {exc.code}")
    if game.status != "won":
        return Check(
            "solution", False, f"the {len(line)} moves are legal but end with {game.score} cards home"
        )
    return Check("solution", True, f"the deal is winnable: the {len(line)}-move line wins it")


# ----- seed, commitment -------------------------------------------------------------


def _seed(record: Mapping[str, Any], add: _Add) -> bytes | None:
    text = record.get("seed")
    if text is None:
        add(Check("seed", False, "missing: the record reveals no seed"))
        return None
    if not isinstance(text, str) or not _HEX.fullmatch(text):
        add(Check("seed", False, f"not hex: {str(text)[:80]!r}"))
        return None
    seed = bytes.fromhex(text)
    if len(seed) != SEED_BYTES:
        add(Check("seed", False, f"{len(seed)} bytes; a race seed is {SEED_BYTES} random bytes"))
        return None
    add(Check("seed", True, f"{SEED_BYTES} bytes, revealed: {text[:16]}…"))
    return seed


def _commitment(record: Mapping[str, Any], seed: bytes, add: _Add) -> None:
    claimed = record.get("commitment")
    actual = commitment(seed)
    if not isinstance(claimed, str):
        add(
            Check(
                "commitment", False, f"missing: the record has no commitment (the seed commits to {actual})"
            )
        )
    elif claimed.lower() != actual:
        add(
            Check(
                "commitment",
                False,
                f"SHA-256('terrace-commit:' + seed) is {actual}, but the race published {claimed}",
            )
        )
    else:
        add(Check("commitment", True, f"SHA-256('terrace-commit:' + seed) = {actual[:16]}…, as published"))


# ----- each player ------------------------------------------------------------------


def _first_view(recorded: Any, variant: str, seed: bytes, add: _Add) -> None:
    dealt = new_game(variant, seed).view()  # a fresh deal looks the same under every rules version
    if recorded == dealt:
        add(Check("first_view", True, "the recorded first view is what the seed deals"))
    else:
        differ = sorted(k for k in dealt if not isinstance(recorded, Mapping) or recorded.get(k) != dealt[k])
        add(
            Check(
                "first_view", False, "the recorded first view differs from the deal in: " + ", ".join(differ)
            )
        )


def _replay(
    row: Mapping[str, Any], variant: str, version: int, goal: str | None, seed: bytes, who: str, add: _Add
) -> Game | None:
    moves = row.get("move_list")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        add(Check("replay", False, "no move list: 'move_list' should be a list of moves (strings)", who))
        return None
    game = new_game(variant, seed, rules_version=version)
    for i, move in enumerate(moves):
        if goal == "terrace" and game.terrace_left == 0:
            add(
                Check(
                    "replay",
                    False,
                    f"the terrace was empty (goal reached) after move {i}, yet {len(moves) - i} more "
                    "moves are recorded",
                    who,
                )
            )
            return None
        try:
            game.play(move)
        except IllegalMove as exc:
            add(Check("replay", False, f"move {i + 1} ({move!r}) is illegal: {exc.message}", who))
            return None
    add(Check("replay", True, f"{len(moves)} move{'s' * (len(moves) != 1)}, every one legal", who))
    return game


def _result(row: Mapping[str, Any], game: Game, who: str, add: _Add) -> None:
    found = {
        "score": game.score,
        "terrace_left": game.terrace_left,
        "moves": len(game.moves),
        "status": game.status,
    }
    wrong = [f"{k} is {row.get(k)!r}, the replay gives {v!r}" for k, v in found.items() if row.get(k) != v]
    if wrong:
        add(Check("result", False, "; ".join(wrong), who))
    else:
        n, ended = len(game.moves), _ended(game.status, row.get("finish"))
        said = f"score {game.score}, terrace left {game.terrace_left}, {n} move{'s' * (n != 1)}, {ended}"
        add(Check("result", True, said, who))


# How a finish reads where the game itself was not over (its status still ``playing``).
_STOPPED = {
    "goal": "goal reached",
    "resigned": "resigned",
    "left": "left",
    "disconnected": "disconnected",
    "time": "out of time",
}


def _ended(status: str, finish: Any) -> str:
    """The game's end as the result line says it. A game stopped by its player or the race
    (resigned, left, the clock, an emptied terrace) is still ``playing`` to the engine,
    which is the record's ``status``; the line says how it stopped, with that status."""
    if status == "playing" and finish in _STOPPED:
        return f"{_STOPPED[finish]} (game status playing)"
    return status


def _finish(
    row: Mapping[str, Any], game: Game, goal: str | None, time_limit: Any, who: str, add: _Add
) -> None:
    finish = row.get("finish")
    reached = game.status == "won" or (goal == "terrace" and game.terrace_left == 0)
    what = "the game is won" if game.status == "won" else "the terrace is empty"
    problems: list[str] = []
    notes: list[str] = []
    if finish not in FINISHES:
        problems.append(f"finish {finish!r} is not one of {', '.join(FINISHES)}")
    elif finish == "goal" and not reached:
        need = "an empty terrace" if goal == "terrace" else "a won game"
        problems.append(
            f"'goal' needs {need}, but the replay ends {game.status} with {game.terrace_left} left"
        )
    elif finish == "stuck" and (reached or game.status != "lost"):
        problems.append(
            f"'stuck' needs a lost game, but {what}"
            if reached
            else f"'stuck' needs a lost game, but the replay ends {game.status}"
        )
    elif finish in ("resigned", "left", "disconnected", "time") and (reached or game.status == "lost"):
        # The race can end while the server decides a last move's status; then the finish
        # is the clock's (or the leaver's), not the game's. Worth saying, not a mismatch.
        notes.append(f"though {what if reached else 'the game is lost'} (the race ended on the last move)")
    if row.get("finished") is not True:
        problems.append(f"'finished' is {row.get('finished')!r} in a finished race")
    t = row.get("time")
    if not isinstance(t, int) or isinstance(t, bool) or t < 0:
        problems.append(f"time {t!r} is not a race time in ms")
    elif finish == "time" and _int(time_limit) and t != time_limit * 1000:
        # Only 'time' finishes are exact; others may pass the limit by a busy event loop's delay.
        problems.append(f"'time' finishes come at the limit, {time_limit * 1000} ms, not {t} ms")
    if problems:
        add(Check("finish", False, "; ".join(problems), who))
    else:
        add(Check("finish", True, " ".join([f"{finish} at {t} ms", *notes]), who))


# ----- places -----------------------------------------------------------------------


def _int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _places(rows: Sequence[Mapping[str, Any]]) -> Check:
    """The race's placing rule (:mod:`terrace.race.places`). Records without ``last_home`` (older
    servers) leave level players' order as given."""
    keyed: list[tuple[Standing, int, str]] = []
    exact = all("last_home" in row for row in rows)
    bad: list[str] = []
    for i, row in enumerate(rows):
        who = _name(row, i)
        place = row.get("place")
        if not _int(place):
            bad.append(f"{who}: place {place!r} is not a number")
            continue
        t = row.get("time")
        if row.get("finish") == "goal" and not _int(t):
            bad.append(f"{who}: a goal finish without a time")
            continue
        score, left = row.get("score"), row.get("terrace_left")
        if row.get("finish") != "goal" and not (_int(score) and _int(left)):
            bad.append(f"{who}: score {score!r} or terrace left {left!r} is not a number")
            continue
        last = row.get("last_home") if exact else None
        if last is not None and not _int(last):
            bad.append(f"{who}: last_home {last!r} is not a number")
            continue
        key = Standing.of(
            goal_time=t if row.get("finish") == "goal" else None,
            score=score if _int(score) else 0,
            terrace_left=left if _int(left) else 0,
            last_home=last,
        )
        keyed.append((key, place, who))
    if bad:
        return Check("places", False, "cannot be checked: " + "; ".join(bad))
    keyed.sort(key=lambda k: (k[0], k[1]))
    wrong: list[str] = []
    unresolved = 0
    previous: tuple[Standing, int] | None = None
    for n, (key, place, who) in enumerate(keyed, 1):
        if previous is not None and key == previous[0]:
            tied = key.reached == 0 or exact  # equal on every recorded key: the same place
            allowed = {previous[1]} if tied else {previous[1], n}
            if not tied:
                unresolved += 1
        else:
            allowed = {n}
        if place not in allowed:
            want = " or ".join(str(p) for p in sorted(allowed))
            wrong.append(f"{who} is placed {place}, should be {want}")
        previous = (key, place)
    if wrong:
        return Check("places", False, "; ".join(wrong))
    n = len(keyed)
    keys = (
        "goal times, scores, terrace left and last cards home"
        if exact
        else "goal times, scores and terrace left"
    )
    detail = f"places agree with {keys} ({n} player{'s' * (n != 1)})"
    if unresolved:
        detail += (
            f" ({unresolved} player{'s' * (unresolved != 1)} level on score and terrace left: "
            "the last-card-home times that order them are not in the record, so that order is taken as given)"
        )
    return Check("places", True, detail)
