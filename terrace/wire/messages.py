"""Every message of protocol v1 as a type: requests, answers, pushes and the values inside them.

These are ``TypedDict``s: at run time a message stays a plain dict (msgpack and JSON
carry it unchanged), and ``mypy --strict`` catches a wrong or missing key wherever
code names the type. PROTOCOL.md is the prose reference; ``terrace.wire.protocol`` checks
requests as they arrive.

    answer = cast(RacesAnswer, await link.ask("races"))
    answer["finished"]  # a key of the answer; answer["recent"] is a type error

Kept as one module (about 450 lines): it is a catalogue, one short type per
message, meant to be read beside PROTOCOL.md.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from terrace.vocab import (
    BoardName,
    DealsMode,
    Entry,
    Finish,
    Goal,
    Kind,
    Period,
    Pool,
    RaceState,
    StartMode,
    Status,
    Topic,
)

View = dict[str, Any]  # the engine's view (docs/ENGINE.md, "Views"): its shape depends on the variant


# ----- values inside messages ---------------------------------------------------------------


class PlayerInfo(TypedDict):
    id: str
    name: str
    kind: Kind
    guest: bool


class RaceHead(TypedDict):
    """What a race summary and a race record both say of a race: its rules and where it stands."""

    id: str
    variant: str
    goal: Goal
    seats: int
    time_limit: int
    entry: Entry
    start: StartMode
    rules_version: int
    state: RaceState
    creator: PlayerInfo | None
    created_at: int
    starts_at: NotRequired[int]
    deals: NotRequired[DealsMode]  # "winnable" on a deal proven winnable; absent otherwise


class Summary(RaceHead):
    """A race as lobby lists and ``race`` pushes show it."""

    players: list[PlayerInfo]
    commitment: NotRequired[str]


class Row(TypedDict):
    """One player's standings row: counts, never cards."""

    player: PlayerInfo
    score: int
    terrace_left: int
    moves: int
    finished: bool
    finish: Finish | None
    time: int | None
    place: int | None
    connected: bool


class Result(Row):
    """A final row: the standings row with the game's status and the last card home's race time."""

    status: Status | None
    last_home: int | None


class RecordRow(Result):
    move_list: list[str]
    move_times: NotRequired[list[int]]  # each move's race time (ms); records made before it have none


class Record(RaceHead):
    """A finished race, complete enough for anyone to check (``terrace.race.audit``)."""

    commitment: str
    started_at: int | None
    ended_at: int | None
    seed: str
    first_view: NotRequired[View]  # records made before it was kept lack it
    solution: NotRequired[list[str]]  # a winnable-only race: a winning line on the seed
    results: list[RecordRow]


class Brief(TypedDict):
    """A record in lists (``races``): without move lists."""

    id: str
    variant: str
    goal: Goal
    state: RaceState
    commitment: str
    seed: str
    started_at: int | None
    ended_at: int | None
    results: list[Result]


class Clock(TypedDict):
    started_at: int
    time_limit: int
    ends_at: int
    now: int


class BoardRow(TypedDict):
    rank: int
    position: int
    player: dict[str, Any]
    value: float | int
    mu: NotRequired[float]
    sigma: NotRequired[float]


# ----- requests ------------------------------------------------------------------------


class Hello(TypedDict):
    type: Literal["hello"]
    id: NotRequired[int]
    name: NotRequired[str]
    token: NotRequired[str]
    session: NotRequired[str]
    kind: NotRequired[Kind]  # a guest's: "bot" for a program (default "human")
    client: NotRequired[str]  # the client install's own id (rated races seat one per id)


class Register(TypedDict):
    type: Literal["register"]
    id: NotRequired[int]
    name: str
    kind: NotRequired[Kind]
    client: NotRequired[str]


class Create(TypedDict):
    type: Literal["create"]
    id: NotRequired[int]
    variant: str
    goal: NotRequired[Goal]
    seats: NotRequired[int]
    time_limit: NotRequired[int]
    entry: NotRequired[Entry]
    start: NotRequired[StartMode]
    join: NotRequired[bool]


class RaceRequest(TypedDict):
    """``join``, ``leave``, ``start``, ``resign``, ``spectate``, ``unspectate``, ``record``, ``analysis``."""

    type: Literal["join", "leave", "start", "resign", "spectate", "unspectate", "record", "analysis"]
    id: NotRequired[int]
    race: str


class Queue(TypedDict):
    type: Literal["queue"]
    id: NotRequired[int]
    variant: str
    goal: NotRequired[Goal]
    pool: NotRequired[Entry]
    house: NotRequired[bool]
    deals: NotRequired[DealsMode]


class Move(TypedDict):
    type: Literal["move"]
    id: NotRequired[int]
    race: str
    seq: int
    move: str


class Subscribe(TypedDict):
    type: Literal["subscribe", "unsubscribe"]
    id: NotRequired[int]
    topic: Topic


class LeaderboardQuery(TypedDict):
    type: Literal["leaderboard"]
    id: NotRequired[int]
    board: BoardName
    variant: str
    pool: NotRequired[Pool]
    goal: NotRequired[Goal]
    period: NotRequired[Period]
    start: NotRequired[int]
    count: NotRequired[int]
    around: NotRequired[str]


class Bare(TypedDict):
    """``races``, ``unqueue``, ``ping``: a type and maybe an id."""

    type: Literal["races", "unqueue", "ping"]
    id: NotRequired[int]


# ----- answers (each carries ``re`` when its request had an ``id``) -------------------------


class ServerInfo(TypedDict):
    protocol: int
    variants: list[str]


class Welcome(TypedDict):
    type: Literal["welcome"]
    re: NotRequired[int]
    player: PlayerInfo
    session: str
    server: ServerInfo
    race: NotRequired[str]  # the race that goes on for this player; its `started` follows


class Registered(TypedDict):
    type: Literal["registered"]
    re: NotRequired[int]
    token: str
    player: PlayerInfo
    session: str


class RacesAnswer(TypedDict):
    type: Literal["races"]
    re: NotRequired[int]
    races: list[Summary]  # one page of them, from the request's ``start``
    total: int  # races not over, on every page
    next: NotRequired[int]  # where the next page starts, when there is one
    finished: list[Brief]


class RaceAnswer(TypedDict):
    """``created``, ``joined``, ``starting``: the race's summary."""

    type: Literal["created", "joined", "starting"]
    re: NotRequired[int]
    race: Summary


class RaceIdAnswer(TypedDict):
    """``left``, ``resigned``, ``unspectated``: the race's id."""

    type: Literal["left", "resigned", "unspectated"]
    re: NotRequired[int]
    race: str


class Queued(TypedDict):
    type: Literal["queued"]
    re: NotRequired[int]
    variant: str
    goal: Goal
    pool: Entry
    house: bool
    position: int
    deals: NotRequired[DealsMode]  # present when the queue asked for winnable deals


class Moved(TypedDict):
    type: Literal["moved"]
    re: NotRequired[int]
    race: str
    seq: int
    move: str
    events: list[dict[str, Any]]
    view: View  # a connection whose hello said `views: "changes"` gets `changes` in its place
    legal: list[str]
    status: Status
    finish: NotRequired[Finish]
    changes: NotRequired[View]  # what the move changed in the view (terrace.wire.views)


class Spectating(TypedDict):
    type: Literal["spectating"]
    re: NotRequired[int]
    race: Summary
    standings: Standings


class Subscribed(TypedDict):
    type: Literal["subscribed", "unsubscribed"]
    re: NotRequired[int]
    topic: Topic
    races: NotRequired[list[Summary]]  # the lobby: the first page of the races not over
    total: NotRequired[int]
    next: NotRequired[int]
    standings: NotRequired[list[Standings]]  # lobby: a snapshot of every running race's standings


class RecordAnswer(TypedDict):
    type: Literal["record"]
    re: NotRequired[int]
    race: Record


class Leaderboard(TypedDict):
    type: Literal["leaderboard"]
    re: NotRequired[int]
    board: BoardName
    variant: str
    pool: NotRequired[Pool]
    goal: NotRequired[Goal]
    period: NotRequired[Period]
    period_key: NotRequired[str]
    start: NotRequired[int]
    total: NotRequired[int]
    rows: list[BoardRow]


class Pong(TypedDict):
    type: Literal["pong"]
    re: NotRequired[int]
    time: int


class GameHindsight(TypedDict):
    """One player's game in an ``analysis``: see :class:`terrace.solve.hindsight.Hindsight`."""

    player: PlayerInfo
    moves: int
    deal: Literal["won", "lost", "unknown"]
    verdict: Literal["won", "lost_by_move", "stopped_winnable", "lost_from_deal", "unknown"]
    last_winnable: int | None
    first_lost: int | None
    losing_move: int | None
    continuation: list[str]
    nodes: int
    probes: int


class AnalysisAnswer(TypedDict):
    """Hindsight on a finished race: each game seen with the stock known."""

    type: Literal["analysis"]
    re: NotRequired[int]
    race: str
    hindsight: Literal[True]
    budget: dict[str, int]  # nodes per position asked about, positions asked about per game
    players: list[GameHindsight]


class Analysing(TypedDict):
    """The analysis is being made: ask again after ``retry_after`` seconds."""

    type: Literal["analysing"]
    re: NotRequired[int]
    race: str
    retry_after: int


class Error(TypedDict):
    """A refusal; extra fields depend on ``code`` (PROTOCOL.md, Errors)."""

    type: Literal["error"]
    re: NotRequired[int]
    code: str
    message: str


class Redirect(TypedDict):
    type: Literal["redirect"]
    re: NotRequired[int]
    race: str
    url: str


# ----- pushes --------------------------------------------------------------------------


class RacePush(TypedDict):
    type: Literal["race"]
    race: Summary


class Started(TypedDict):
    type: Literal["started"]
    race: str
    variant: str
    goal: Goal
    rules_version: int
    commitment: str
    view: View
    legal: list[str]
    seq: int
    resumed: bool
    clock: Clock
    players: list[PlayerInfo]


class Standings(TypedDict):
    type: Literal["standings"]
    race: str
    state: RaceState
    rows: list[Row]


class Finished(TypedDict):
    type: Literal["finished"]
    race: str
    variant: str
    goal: Goal
    commitment: str
    seed: NotRequired[str]  # kept back in a race whose deal is raced again later (a daily attempt)
    results: list[Result]


Request = Hello | Register | Create | RaceRequest | Queue | Move | Subscribe | LeaderboardQuery | Bare
Answer = (
    Welcome
    | Registered
    | RacesAnswer
    | RaceAnswer
    | RaceIdAnswer
    | Queued
    | Moved
    | Spectating
    | Subscribed
    | RecordAnswer
    | AnalysisAnswer
    | Analysing
    | Leaderboard
    | Pong
    | Error
    | Redirect
)
Push = RacePush | Started | Standings | Finished | Leaderboard
