"""Every error of the project in one place: a machine code and a human sentence.

Codes are stable identifiers that clients and bots may branch on; the
sentences are for people. :data:`REASONS` are the rules engine's refusals
(:class:`IllegalMove`); :data:`ERRORS` are protocol v1's error codes
(:class:`ProtocolError`). The server forwards an engine refusal as its
``illegal_move`` error with ``reason`` set to the engine's code.
"""

from __future__ import annotations

from typing import ClassVar

# code -> sentence; ``{...}`` fields are filled in by the raiser.
REASONS: dict[str, str] = {
    # reading the move
    "bad_notation": "Cannot read {text!r} as a move; write SOURCE-TARGET such as W-3, 4-F or S-W.",
    "ambiguous_move": "{text!r} could mean {options}; say which.",
    "game_over": "The game is over; no more moves.",
    "move_limit": "This game has reached {limit} moves, the most one game may hold; resign or wait for the time limit.",
    # sources
    "empty_source": "There is no card at {place}.",
    "card_not_available": "{card} is not at the top of any pile you can play from.",
    "foundation_is_final": "Cards never leave a foundation.",
    "same_place": "A card cannot move onto its own pile.",
    "bad_target": "{source} cannot go to {target}.",
    "no_move_from": "{card} at {place} has no legal move now.",
    # phases
    "choose_base_first": "First choose the base: move one of the four cards on piles 1-4 to F1.",
    # foundations
    "not_base_rank": "An empty foundation takes only a {base} (the base rank); {card} is not one.",
    "foundation_complete": "{target} is complete.",
    "foundation_rank": "{card} does not follow {top} on {target}: it needs the next rank up.",
    "foundation_colour": "{card} is the same colour as {top} on {target}: foundations alternate colours.",
    "foundation_suit": "{card} is not the suit of {target}.",
    # tableau
    "tableau_rank": "{card} cannot go on {top}: a pile takes the next rank down.",
    "tableau_colour": "{card} cannot go on {top}: a pile alternates colours.",
    "terrace_to_foundation_only": "Terrace cards go only to the foundations{when}.",
    "gap_waste_only": "A gap may be filled only from the waste.",
    # stock and waste
    "stock_empty": "The stock is empty.",
    "play_waste_first": "After the recycle each turned card must be played before the next: play the waste top first.",
    "no_recycle": "This variant has no recycle.",
    "recycle_used": "The waste has already been turned over once.",
    "stock_not_empty": "The waste can be turned over only when the stock is empty.",
    "waste_empty": "The waste is empty.",
    # Louis
    "wrong_heap": "The next card must go to heap {heap}.",
    "deal_in_progress": "While dealing only the card just dealt may be played; the other cards wait until the stock is dealt.",
    "dealt_card_targets": "The card just dealt may go only to a foundation or to the abeyance.",
    "heap_to_empty": "Empty heaps stay empty.",
    "heap_sequence": "{card} cannot go on {top}: heap cards pack by suit, one rank up or down.",
    "must_go_home": "{card} can go to a foundation, so it cannot move to another heap.",
    "abeyance_full": "{target} already holds a card.",
    "abeyance_suit": "{card} does not belong in {target}.",
    "abeyance_needs_both": "{card} may wait in abeyance only when it fits both foundations of its suit.",
    "abeyance_waits": "The card in abeyance waits for a card that continues one side: {card} still fits both foundations.",
    "no_more_deals": "All three deals have been used.",
    "redeal_while_dealing": "Finish dealing before you redeal.",
    "redeal_while_playable": "Gather the heaps only when no card can go home.",
}


class CodedError(ValueError):
    """An error with a stable ``code`` from ``codes``, a ``message`` for people (the
    code's sentence filled in with ``fields`` unless given), and the ``fields``."""

    codes: ClassVar[dict[str, str]]

    def __init__(self, code: str, message: str | None = None, **fields: object) -> None:
        if code not in self.codes:
            raise KeyError(f"unknown {type(self).__name__} code {code!r}")
        self.code = code
        self.fields = fields
        self.message = message or self.codes[code].format(**fields)
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalMove(CodedError):
    """A move the rules refuse. ``code`` is a key of :data:`REASONS`."""

    codes = REASONS


class ReplayError(IllegalMove):
    """A recorded move list that does not replay: ``index`` is the first bad move (0-based)."""

    def __init__(self, index: int, move: str, cause: IllegalMove) -> None:
        self.index = index
        self.move = move
        self.cause = cause
        super().__init__(cause.code, f"move {index + 1} ({move!r}): {cause.message}", **cause.fields)


# Protocol v1 error codes (PROTOCOL.md, Errors): code -> sentence. The server sends
# ``{"type": "error", "re": id, "code": code, "message": sentence, ...fields}``.
ERRORS: dict[str, str] = {
    # reading messages
    "bad_message": "Cannot read that message: {detail}.",
    "unknown_type": "Unknown message type {request!r}.",
    "bad_field": "Field {field!r} {detail}.",
    # accounts and sessions
    "hello_first": "Say hello (or register) before {request!r}.",
    "already_welcomed": "This connection is already welcomed as {name!r}.",
    "bad_name": "A name is 2 to 24 characters: letters, digits, '-' or '_', starting with a letter.",
    "name_taken": "The name {name!r} is taken, or looks too like one that is (an account's, or a guest's while a race of theirs goes on): choose another.",
    "bad_token": "That token belongs to no account.",
    "name_reserved": "Names beginning with 'house' ({name!r} is one) are kept for this server's own house bots; choose another name.",
    "guest_name": "{name!r} reads like the name the server gives a guest who races without one; an account needs another name.",
    "bad_house_key": "That is not this server's house key; a house name needs the key the server was given.",
    "bad_session": "That session is unknown or has expired; say hello again without it.",
    # races
    "no_race": "There is no race {race!r}.",
    "bad_goal": "Variant {variant!r} has only the goal 'clear'.",
    "race_full": "Race {race} is full.",
    "race_started": "Race {race} has already started.",
    "entry_refused": "That race is open to {entry} only.",
    "pool_refused": "The {pool} queue is for {pool} only.",
    "already_in_race": "You are already in race {race}; leave it first.",
    "already_queued": "You are already waiting in the queue.",
    "not_queued": "You are not waiting in the queue.",
    "not_in_race": "You are not in race {race}.",
    "not_creator": "Only the creator of race {race} can start it.",
    "race_empty": "Race {race} has no players yet: it can start once someone has joined.",
    "race_not_running": "Race {race} is not running.",
    "player_finished": "You have finished race {race}; no more moves.",
    "bad_seq": "Expected seq {expected}, got {seq}.",
    "seq_conflict": "seq {seq} was already used for the move {move!r}.",
    "illegal_move": "The rules refuse that move.",
    "not_finished": "Race {race} has not finished; its record is published when it ends.",
    "no_winnable_deal": "No deal was proven winnable within {seconds} s; try again, or create without 'deals'.",
    # leaderboards
    "bad_board": "No such leaderboard: {detail}.",
    "not_on_board": "That player is not on the {board} board.",
    # the daily deal
    "daily_attempted": "You have used your daily attempt at {variant} for {day}; play it again unrated as practice (terrace daily --practice; practice: true in daily_play).",
    "daily_attempt_first": "Play your rated daily attempt at {variant} before practising on today's deal.",
    "daily_account_needed": (
        "Today's {variant} deal is raced by accounts only, one rated attempt each, so that nobody"
        " learns it before racing it; as a guest, play a past day's deal, or register."
    ),
    "challenge_create_account_needed": (
        "Only an account can make a challenge: its board counts accounts' first attempts, and its"
        " creator reveals it later; register, then make one."
    ),
    "challenge_account_needed": (
        "Challenge {challenge} is raced by accounts only until its creator reveals it; register to race it."
    ),
    "daily_unfinished": "Your daily attempt at {variant} has not finished; practice comes after it.",
    "daily_not_yet": "The daily deal of {day} is not out yet (today is {today}).",
    "no_challenge": "There is no challenge {challenge!r}.",
    "not_challenge_creator": "Only the creator of challenge {challenge} can reveal its deal.",
    "challenge_closing": (
        "Challenge {challenge} takes no new attempts: its creator asked for its deal, which is told"
        " once the attempts under way are over."
    ),
    "not_revealed": (
        "{what} is still secret, as attempts of it may still be running{when}; until then it can be"
        " neither read, analysed nor practised."
    ),
    "no_daily": "There was no daily {variant} deal on {day} on this server (or it is no longer kept).",
    "no_player": "There is no registered player {name!r}.",
    # arenas
    "no_arena": "There is no arena {arena!r}.",
    "arena_over": "Arena {arena} is over; join a running or upcoming one.",
    "arena_pool": "Arena {arena} is for {pool} only.",
    "not_in_arena": "You have not joined arena {arena}.",
    "already_in_arena": "You are already in arena {arena}; leave it first.",
    # limits and the server itself
    "rate_limited": "Too many messages; wait {retry_after} s.",
    "same_address": "Another registered player in race {race} plays from your address or client, and it was created rated, which takes one account per address and client. To race each other, create a race without 'rated' (terrace play --create, or Create on the play page): it goes ahead unrated.",
    "too_many_races": "Too many races created by {by} are waiting to start (at most {limit}); start or leave one first.",
    "too_many_registrations": "Too many accounts were registered from your address; try again in {retry_after} s.",
    "busy": "Too many requests are waiting on this connection; wait for their answers.",
    "store_down": "The server's store is unavailable; nothing was changed. Try again shortly.",
    "internal": "The server failed on this request; it has been logged.",
}


class ProtocolError(CodedError):
    """A request the server refuses. ``code`` is a key of :data:`ERRORS`;
    ``fields`` travel in the error message beside ``code`` and ``message``."""

    codes = ERRORS
    # a refusal inside someone's private attempt: the server's metrics count it when the attempt
    # is over, with its moves, so a live count never times a private attempt
    counted_later: bool = False

    def to_message(self, re: int | None = None) -> dict[str, object]:
        """The ``error`` message for this refusal."""
        msg: dict[str, object] = {"type": "error", "code": self.code, "message": self.message}
        if re is not None:
            msg["re"] = re
        msg.update((k, v) for k, v in self.fields.items() if k not in msg and k != "detail")
        return msg
