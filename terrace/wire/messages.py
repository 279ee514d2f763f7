"""Every message of protocol v1 as a type, in one place: requests, answers, pushes and the values inside them.

**Requests** (client to server) are msgspec ``Struct``s, one class a request type, told
apart by ``type``: :func:`terrace.wire.protocol.read_request` decodes a frame straight into
one and checks every field's type and bounds in the same call (in C), so the server reads
``req.race`` of a checked :class:`Move`, never a dict. Their bounds here are the protocol's
(PROTOCOL.md, "Requests at a glance"); ``terrace.wire.protocol`` derives its exact error
sentences from them.

**Answers and pushes** (server to client) are ``TypedDict``s: at run time a plain dict,
which the race core builds, the store keeps and msgpack or JSON carries unchanged, while
``mypy --strict`` holds every key the server writes and every key a client reads to its
type. A client reads a frame through its type:

    answer = cast(RacesAnswer, await link.ask("races"))
    answer["finished"]  # a key of the answer; answer["recent"] is a type error

``docs/protocol.schema.json`` is generated from this module (``terrace.wire.schema``), and
the tests check every frame a test server sends against it.

Kept as one module (about 950 lines): it is the protocol's catalogue, one short type per
message, meant to be read beside PROTOCOL.md; split, it would be two halves of one table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    NotRequired,
    TypedDict,
    TypeVar,
    cast,
    get_args,
    get_type_hints,
)

from msgspec import Meta, Struct

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
    Unrated,
    VariantId,
    ViewMode,
)

View = dict[str, Any]  # the engine's view (docs/ENGINE.md, "Views"): its shape depends on the variant
Event = dict[str, Any]  # an engine event (docs/ENGINE.md, "Status, events"): ``type`` and its fields

# ----- requests ----------------------------------------------------------------------------

RaceId = Annotated[str, Meta(min_length=1, max_length=64)]
# Name rules are the server's, with their own error (bad_name, which says them): the bound here
# only keeps a frame's worth of text away from them.
Name = Annotated[str, Meta(max_length=256)]
Token = Annotated[str, Meta(min_length=1, max_length=128)]
ClientId = Annotated[str, Meta(min_length=8, max_length=64)]  # an install's own random id
HouseKey = Annotated[str, Meta(min_length=1, max_length=128)]
Day = Annotated[str, Meta(max_length=32)]  # its form (YYYY-MM-DD) is the daily deal's to check
Ghosts = Annotated[int, Meta(ge=0, le=8)]
Seq = Annotated[int, Meta(ge=0, le=2**31)]


class Request(Struct, tag_field="type", kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """What every request has: its ``type`` (the class's tag) and an optional integer ``id``.

    Unknown fields are ignored by the protocol: a frame that has some is read by the slower,
    lenient path (``terrace.wire.protocol``), which drops them; ``forbid_unknown_fields``
    only keeps such frames off the one-call path. ``null`` counts as absent: every optional
    field is None when absent."""

    TYPE: ClassVar[str]  # the request's ``type`` (set for every subclass below)
    id: int | None = None


class Hello(Request, tag="hello"):
    name: Name | None = None
    token: Token | None = None
    session: Token | None = None
    kind: Kind | None = None  # a guest's: "bot" for a program (default "human")
    client: ClientId | None = None  # the client install's own id (rated races seat one per id)
    views: ViewMode | None = None
    house_key: HouseKey | None = None  # the server's house key: a guest name beginning with "house"


class Register(Request, tag="register"):
    name: Annotated[str, Meta(max_length=256)]
    kind: Kind | None = None
    client: ClientId | None = None
    views: ViewMode | None = None
    house_key: HouseKey | None = None  # the server's house key: a name beginning with "house"


class RacesQuery(Request, tag="races"):
    start: Annotated[int, Meta(ge=0, le=2**31)] | None = None


class Create(Request, tag="create"):
    variant: VariantId
    goal: Goal | None = None
    seats: Annotated[int, Meta(ge=1, le=1000)] | None = None  # the server's max_seats says its own limit
    time_limit: Annotated[int, Meta(ge=1, le=86_400)] | None = None
    entry: Entry | None = None
    start: StartMode | None = None
    join: bool | None = None
    deals: DealsMode | None = None
    rated: bool | None = (
        None  # true: refuse a second account of one address (same_address) rather than go unrated
    )


class Join(Request, tag="join"):
    race: RaceId


class Leave(Request, tag="leave"):
    race: RaceId


class StartRace(Request, tag="start"):
    race: RaceId


class Queue(Request, tag="queue"):
    variant: VariantId
    goal: Goal | None = None
    pool: Entry | None = None
    house: bool | None = None
    deals: DealsMode | None = None


class Unqueue(Request, tag="unqueue"):
    pass


class Move(Request, tag="move"):
    race: RaceId
    seq: Seq
    move: Annotated[str, Meta(max_length=64)]


class Resign(Request, tag="resign"):
    race: RaceId


class Spectate(Request, tag="spectate"):
    race: RaceId


class Unspectate(Request, tag="unspectate"):
    race: RaceId


class Subscribe(Request, tag="subscribe"):
    topic: Topic


class Unsubscribe(Request, tag="unsubscribe"):
    topic: Topic


class RecordQuery(Request, tag="record"):
    race: RaceId


class AnalysisQuery(Request, tag="analysis"):
    race: RaceId
    first: RaceId | None = None  # a player of the race whose game to analyse first (a page's own)


class LeaderboardQuery(Request, tag="leaderboard"):
    board: BoardName
    variant: VariantId
    pool: Pool | None = None
    goal: Goal | None = None
    period: Period | None = None
    start: Annotated[int, Meta(ge=0, le=1_000_000)] | None = None
    count: Annotated[int, Meta(ge=1, le=100)] | None = None
    around: Name | None = None


class Ping(Request, tag="ping"):
    pass


class DailyQuery(Request, tag="daily"):
    variant: VariantId
    day: Day | None = None
    pool: Pool | None = None


class ChallengeCreate(Request, tag="challenge_create"):
    variant: VariantId


class ChallengePlay(Request, tag="challenge_play"):
    challenge: RaceId
    ghosts: Ghosts | None = None


class ChallengeReveal(Request, tag="challenge_reveal"):
    challenge: RaceId


class ChallengeQuery(Request, tag="challenge"):
    challenge: RaceId
    pool: Pool | None = None  # whose board: "humans" or "bots" (by default the asker's)


class DailyPlay(Request, tag="daily_play"):
    variant: VariantId
    day: Day | None = None
    practice: bool | None = None
    ghosts: Ghosts | None = None


class ArenasQuery(Request, tag="arenas"):
    pass


class ArenaQuery(Request, tag="arena"):
    arena: RaceId
    watch: bool | None = None


class ArenaUnwatch(Request, tag="arena_unwatch"):
    arena: RaceId


class ArenaJoin(Request, tag="arena_join"):
    arena: RaceId


class ArenaLeave(Request, tag="arena_leave"):
    arena: RaceId


class PlayerQuery(Request, tag="player"):
    """The bot ladder: one player's page."""

    name: Annotated[str, Meta(min_length=1, max_length=64)]


AnyRequest = (
    Hello
    | Register
    | RacesQuery
    | Create
    | Join
    | Leave
    | StartRace
    | Queue
    | Unqueue
    | Move
    | Resign
    | Spectate
    | Unspectate
    | Subscribe
    | Unsubscribe
    | RecordQuery
    | AnalysisQuery
    | LeaderboardQuery
    | Ping
    | DailyQuery
    | DailyPlay
    | ChallengeCreate
    | ChallengePlay
    | ChallengeReveal
    | ChallengeQuery
    | ArenasQuery
    | ArenaQuery
    | ArenaUnwatch
    | ArenaJoin
    | ArenaLeave
    | PlayerQuery
)
REQUEST_TYPES: tuple[type[Request], ...] = AnyRequest.__args__
for _cls in REQUEST_TYPES:
    _cls.TYPE = str(_cls.__struct_config__.tag)


# ----- values inside answers and pushes ---------------------------------------------------


class PlayerInfo(TypedDict):
    id: str
    name: str
    kind: Kind
    guest: bool
    ghost: NotRequired[bool]  # a daily attempt's or a challenge's ghost (an earlier attempt, replayed)


class BoardPlayer(TypedDict):
    """A player as boards name them: registered players, so no ``guest``."""

    id: str
    name: str
    kind: NotRequired[str]
    guest: NotRequired[bool]


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
    # why a race that could be rated is not (two accounts of one address in a created race)
    unrated: NotRequired[Unrated]
    rated: NotRequired[bool]  # true: created `rated`, it seats one account per address


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
    # in a live standings push only: the place if the race ended now (ties share it), while
    # ``place`` waits for the end (but a goal's)
    live: NotRequired[int]


class Result(Row):
    """A final row: the standings row with the game's status and the last card home's race time."""

    status: Status | None
    last_home: int | None


class RecordRow(Result):
    move_list: list[str]
    move_times: NotRequired[list[int]]  # each move's race time (ms); records made before it have none


class DailyTag(TypedDict):
    """What a daily attempt's (or a challenge attempt's) record says it was."""

    variant: str
    day: NotRequired[str]
    rated: NotRequired[bool]
    challenge: NotRequired[str]


class Record(RaceHead):
    """A finished race, complete enough for anyone to check (``terrace.race.audit``)."""

    commitment: str
    started_at: int | None
    ended_at: int | None
    seed: NotRequired[str]  # a daily attempt's record, to its player while the day lasts, lacks it
    first_view: NotRequired[View]  # records made before it was kept lack it
    solution: NotRequired[list[str]]  # a winnable-only race: a winning line on the seed
    results: list[RecordRow]
    daily: NotRequired[DailyTag]  # a daily attempt's or a challenge attempt's record
    move_times: NotRequired[list[int]]  # ...with each move's race time (ms), in move order


class Brief(TypedDict):
    """A record in lists (``races``): without move lists or first view."""

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
    player: BoardPlayer
    value: float | int
    mu: NotRequired[float]
    sigma: NotRequired[float]
    races: NotRequired[int]


class Rating(TypedDict):
    """One of a player's ratings (``player``): a pool and variant."""

    pool: Pool
    variant: str
    value: float
    mu: float
    sigma: float
    races: int
    rank: int | None


class HistoryEntry(TypedDict):
    """One rated race of a player's (``player``), with the rating right after it."""

    race: str
    at: int
    variant: str
    pool: str
    place: int
    players: int
    rating: float
    mu: float
    sigma: float


class DailyRow(TypedDict):
    """A row of a daily or challenge board: a goal time, or else the cards home."""

    rank: int
    player: BoardPlayer
    time: int | None
    score: int | None
    goal: bool


class BestLine(TypedDict):
    """A finished day's best attempt: its race and its moves with their race times."""

    race: str
    player: NotRequired[BoardPlayer]
    move_list: list[tuple[int, str]]
    rank: NotRequired[int]
    time: NotRequired[int | None]
    score: NotRequired[int | None]
    goal: NotRequired[bool]


class Attempt(TypedDict):
    """The asker's own daily attempt (or first attempt of a challenge)."""

    state: Literal["none", "playing", "finished", "lost"]
    race: NotRequired[str | None]
    time: NotRequired[int | None]
    score: NotRequired[int | None]
    goal: NotRequired[bool]
    held: NotRequired[str]  # kept off the board for fair play, and why


class ArenaSummary(TypedDict):
    id: str
    name: str
    variant: str
    goal: str
    pool: str
    starts_ms: int
    ends_ms: int
    state: Literal["upcoming", "running", "finished"]
    players: int  # everyone on its standings: joined, or raced in it and left
    joined: int  # players joined now (paired into its races)
    races: int


class ArenaPlayer(TypedDict):
    id: str
    name: str
    kind: str


class ArenaRow(TypedDict):
    rank: int
    player: ArenaPlayer
    points: int
    races: int
    wins: int
    streak: int
    places: list[int]
    held: int  # races whose result was held back for fair play: no points


class ArenaDetails(ArenaSummary):
    standings: list[ArenaRow]
    race_ids: list[str]
    held: dict[str, dict[str, str]]  # race id -> player id -> why its result earned nothing


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


class ServerInfo(TypedDict):
    protocol: int
    variants: list[str]


# ----- answers (each carries ``re`` when its request had an ``id``) -------------------------


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


class Done(TypedDict):
    """``unqueued``: nothing more to say."""

    type: Literal["unqueued"]
    re: NotRequired[int]


class Moved(TypedDict):
    type: Literal["moved"]
    re: NotRequired[int]
    race: str
    seq: int
    move: str
    events: list[Event]
    view: NotRequired[View]  # a connection whose hello said `views: "changes"` gets `changes` instead
    legal: list[str]
    status: Status
    finish: NotRequired[Finish]
    changes: NotRequired[View]  # what the move changed in the view (terrace.wire.views)


class Standings(TypedDict):
    type: Literal["standings"]
    race: str
    state: RaceState
    rows: list[Row]


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


class BoardHead(TypedDict):
    """Which leaderboard: its name, variant, and what else names it."""

    board: BoardName
    variant: str
    pool: NotRequired[Pool]
    goal: NotRequired[Goal]
    period: NotRequired[Period]
    period_key: NotRequired[str]


class Leaderboard(BoardHead):
    """The ``leaderboard`` answer, and (without ``re``, ``start`` and ``total``) its push."""

    type: Literal["leaderboard"]
    re: NotRequired[int]
    start: NotRequired[int]
    total: NotRequired[int]
    rows: list[BoardRow]


class PlayerAnswer(TypedDict):
    type: Literal["player"]
    re: NotRequired[int]
    player: BoardPlayer
    ratings: list[Rating]
    history: list[HistoryEntry]


class Pong(TypedDict):
    type: Literal["pong"]
    re: NotRequired[int]
    time: int


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
    players: NotRequired[list[GameHindsight]]  # the games analysed so far (the asker's own first)


class DailyAnswer(TypedDict):
    type: Literal["daily"]
    re: NotRequired[int]
    variant: str
    day: str
    today: str
    goal: Goal
    time_limit: int
    rules_version: int
    commitment: str
    next_commitment: str
    ends_at: int
    pool: Pool
    board: list[DailyRow]
    total: int
    attempt: NotRequired[Attempt]  # a registered asker's own
    reveals_at: NotRequired[int]  # while the deal is secret: when it is revealed at the soonest
    seed: NotRequired[str]  # once the deal is revealed
    solution: NotRequired[list[str]]
    best: NotRequired[list[BestLine]]


class DailyPlaying(TypedDict):
    type: Literal["daily_playing"]
    re: NotRequired[int]
    variant: str
    day: str
    race: str
    rated: bool
    ghosts: int
    commitment: str


class ChallengePlaying(TypedDict):
    type: Literal["challenge_playing"]
    re: NotRequired[int]
    challenge: str
    variant: str
    race: str
    ghosts: int
    commitment: str


class ChallengeAnswer(TypedDict):
    type: Literal["challenge"]
    re: NotRequired[int]
    challenge: str
    variant: str
    creator: PlayerInfo
    commitment: str
    revealed: bool
    pool: Pool  # whose first attempts the board shows
    board: list[DailyRow]
    attempt: NotRequired[Attempt]  # a registered asker's own first attempt
    reveals_at: NotRequired[int]  # revealed by its creator, and waiting for attempts under way
    seed: NotRequired[str]  # once revealed
    solution: NotRequired[list[str]]


class ArenasAnswer(TypedDict):
    type: Literal["arenas"]
    re: NotRequired[int]
    now: int
    upcoming: list[ArenaSummary]
    running: list[ArenaSummary]
    finished: list[ArenaSummary]


class ArenaAnswer(TypedDict):
    """The ``arena`` answer, and (without ``re``) the push its watchers get."""

    type: Literal["arena"]
    re: NotRequired[int]
    now: int
    arena: ArenaDetails


class ArenaJoined(TypedDict):
    type: Literal["arena_joined"]
    re: NotRequired[int]
    arena: ArenaSummary


class ArenaIdAnswer(TypedDict):
    """``arena_unwatched``, ``arena_left``: the arena's id."""

    type: Literal["arena_unwatched", "arena_left"]
    re: NotRequired[int]
    arena: str


class Error(TypedDict):
    """A refusal. Extra fields depend on ``code`` (PROTOCOL.md, Errors; ``terrace.errors``)."""

    type: Literal["error"]
    re: NotRequired[int]
    code: str
    message: str
    request: NotRequired[str]
    field: NotRequired[str]
    name: NotRequired[str]
    race: NotRequired[str]
    variant: NotRequired[str]
    entry: NotRequired[Entry]
    pool: NotRequired[str]
    expected: NotRequired[int]
    seq: NotRequired[int]
    move: NotRequired[str]
    reason: NotRequired[str]
    seconds: NotRequired[str]  # (no_winnable_deal: the search's bound, written as a number, "8")
    board: NotRequired[str]
    day: NotRequired[str]
    today: NotRequired[str]
    challenge: NotRequired[str]
    retry_after: NotRequired[float]
    by: NotRequired[str]
    limit: NotRequired[int]
    arena: NotRequired[str]
    what: NotRequired[str]
    when: NotRequired[str]
    reveals_at: NotRequired[int]


class Redirect(TypedDict):
    """Another node runs the race: an answer (with ``re``), or a push."""

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
    unrated: NotRequired[Unrated]  # as in the race's summary


class Finished(TypedDict):
    type: Literal["finished"]
    race: str
    variant: str
    goal: Goal
    commitment: str
    seed: NotRequired[str]  # kept back in a race whose deal is raced again later (a daily attempt)
    results: list[Result]


class DailyBoard(TypedDict):
    type: Literal["daily_board"]
    variant: str
    day: str
    pool: Pool
    board: list[DailyRow]
    total: int


class ArenaOver(TypedDict):
    type: Literal["arena_over"]
    arena: str


Answer = (
    Welcome
    | Registered
    | RacesAnswer
    | RaceAnswer
    | RaceIdAnswer
    | Queued
    | Done
    | Moved
    | Spectating
    | Subscribed
    | RecordAnswer
    | AnalysisAnswer
    | Analysing
    | Leaderboard
    | PlayerAnswer
    | Pong
    | DailyAnswer
    | DailyPlaying
    | ChallengePlaying
    | ChallengeAnswer
    | ArenasAnswer
    | ArenaAnswer
    | ArenaJoined
    | ArenaIdAnswer
    | Error
    | Redirect
)
Push = (
    RacePush | Started | Standings | Finished | Leaderboard | DailyBoard | ArenaAnswer | ArenaOver | Redirect
)
ServerMessage = Answer | Push

SERVER_TYPES: tuple[type, ...] = (
    Welcome,
    Registered,
    RacesAnswer,
    RaceAnswer,
    RaceIdAnswer,
    Queued,
    Done,
    Moved,
    Spectating,
    Subscribed,
    RecordAnswer,
    AnalysisAnswer,
    Analysing,
    Leaderboard,
    PlayerAnswer,
    Pong,
    DailyAnswer,
    DailyPlaying,
    ChallengePlaying,
    ChallengeAnswer,
    ArenasAnswer,
    ArenaAnswer,
    ArenaJoined,
    ArenaIdAnswer,
    Error,
    Redirect,
    RacePush,
    Started,
    Standings,
    Finished,
    DailyBoard,
    ArenaOver,
)
"""Every answer and push type, once each (the schema lists them in this order)."""


T = TypeVar("T")
_TAGS: dict[type, tuple[str, ...]] = {}


class Unexpected(ValueError):
    """A message of another ``type`` than the one the reader expected."""


def read(message: Mapping[str, Any], kind: type[T]) -> T:
    """``message`` (decoded from a server's frame) read as ``kind``, an answer or push type
    above, once its ``type`` is one ``kind`` carries; raises :class:`Unexpected` otherwise.

        moved = read(answer, Moved)  # moved["legal"]: a list of str; moved["lgeal"]: a type error
    """
    tags = _TAGS.get(kind)
    if tags is None:
        tags = _TAGS[kind] = get_args(get_type_hints(kind)["type"])
    if message.get("type") not in tags:
        raise Unexpected(f"expected {' or '.join(tags)}, got {message.get('type')!r}")
    return cast(T, message)
