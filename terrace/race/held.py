"""Why a finished result is kept off the people's boards (fair play), as codes and sentences.

The server decides (``server.players.fairplay``); a ``daily`` or ``challenge`` answer's ``attempt`` carries the
code as ``held``, and every client says it with the sentence here, so a player whose time is
not on the board learns why instead of reading an empty board.
"""

from __future__ import annotations

NEW_ACCOUNT, FEW_RACES, PACE, VOIDED = "new_account", "few_races", "inhuman_pace", "voided"
SAME_ADDRESS = "same_address"  # another account of one address or install beside it, or before it

SENTENCES: dict[str, str] = {
    NEW_ACCOUNT: "your account is too new for its results to count on the people's boards yet",
    FEW_RACES: "your account needs a few finished rated races before its times count on the people's boards",
    PACE: "its moves came faster than a person plays; the operators have been told",
    VOIDED: "the operators have voided this account's results",
    SAME_ADDRESS: (
        "another account from your address or install played the same deal before you were done,"
        " and one account a place counts"
    ),
}


def held_sentence(code: str) -> str:
    """Why a result with ``held: code`` is not on the board, in words (an unknown code said as is)."""
    return SENTENCES.get(code, f"held back ({code})")
