"""The words races, the protocol and the clients share, each defined once.

Every closed set of strings that travels on the wire or lands in a record lives
here as a ``Literal`` type (for ``mypy --strict``) and a tuple of its values (for
checking input and listing choices). Other modules import these; none spells
the strings out again.
"""

from __future__ import annotations

from typing import Literal, get_args

VariantId = Literal["terrace", "queen-of-italy", "signora", "louis"]
"""The variants, by id (``terrace.rules.variants.VARIANTS`` holds their rules, in this order)."""
VARIANT_IDS: tuple[VariantId, ...] = get_args(VariantId)

Goal = Literal["terrace", "clear"]
"""What wins a race: an empty terrace (``terrace``) or all 104 cards home (``clear``)."""
GOALS: tuple[Goal, ...] = get_args(Goal)

Entry = Literal["all", "humans", "bots"]
"""Who may sit in a race, or wait in a queue."""
ENTRIES: tuple[Entry, ...] = get_args(Entry)

Pool = Literal["humans", "bots"]
"""A rating pool: rated races are all people or all programs."""
POOLS: tuple[Pool, ...] = get_args(Pool)

Kind = Literal["human", "bot"]
"""What an account is."""
KINDS: tuple[Kind, ...] = get_args(Kind)

StartMode = Literal["manual", "full"]
"""How a created race starts: by its creator, or when every seat is taken."""
START_MODES: tuple[StartMode, ...] = get_args(StartMode)

DealsMode = Literal["any", "winnable"]
"""Which seeds a created race may deal: any, or only one the solver proved winnable."""
DEALS_MODES: tuple[DealsMode, ...] = get_args(DealsMode)

Unrated = Literal["same_address"]
"""Why a race that could have been rated is not: two registered players of one address (or
client install) seated in a created race, which goes ahead unrated."""

Topic = Literal["lobby", "leaderboards", "daily"]
"""What a connection may subscribe to."""
TOPICS: tuple[Topic, ...] = get_args(Topic)

BoardName = Literal["rating", "fastest", "wins"]
"""The leaderboards."""
BOARDS: tuple[BoardName, ...] = get_args(BoardName)

Period = Literal["all", "day", "week"]
"""How far back a fastest-time board reaches."""
PERIODS: tuple[Period, ...] = get_args(Period)

Finish = Literal["goal", "stuck", "resigned", "left", "disconnected", "time"]
"""Why a player stopped racing: reached the goal, had no way forward (the game is
lost), resigned, left the race, stayed away past the grace period, or the race's
time ran out."""
FINISHES: tuple[Finish, ...] = get_args(Finish)

Quit = Literal["resigned", "left"]
"""The finishes a player chooses: giving up the game, or leaving the race."""

RaceState = Literal["open", "countdown", "running", "finished", "cancelled"]
"""Where a race is in its life; ``terrace.race.states`` says which steps are allowed."""
RACE_STATES: tuple[RaceState, ...] = get_args(RaceState)

Status = Literal["playing", "won", "lost"]
"""A game's status (the lost rule decides ``lost``)."""
STATUSES: tuple[Status, ...] = get_args(Status)

ViewMode = Literal["full", "changes"]
"""How a player's ``moved`` answers carry the view: whole, or only what the move changed."""
VIEW_MODES: tuple[ViewMode, ...] = get_args(ViewMode)
