"""Recorded games for the hindsight tests: real deals, real moves (they replay under the current rules).

``LOST_AT_178``: numbered terrace deal 2, played along a winning line for 178 moves, then
``S-W`` (move index 178), after which the solver proves no line wins; the player
plays on until no move is left (status "lost", 193 moves).
"""

LOST_AT_178_DEAL = 2
LOST_AT_178 = [
    "3-F1", "5-F2", "S-W", "W-5", "S-W", "4-3", "W-4", "S-W", "5-6", "W-5", "S-W", "5-9", "W-5",
    "S-W", "8-2", "W-8", "S-W", "S-W", "S-W", "W-4", "1-4", "W-1", "S-W", "S-W", "S-W", "W-4",
    "7-4", "W-7", "S-W", "W-8", "5-8", "W-5", "S-W", "S-W", "W-2", "S-W", "S-W", "S-W", "W-8",
    "7-8", "W-7", "S-W", "S-W", "S-W", "W-7", "S-W", "S-W", "S-W", "W-F3", "1-F3", "W-1", "S-W",
    "S-W", "W-8", "S-W", "W-1", "S-W", "S-W", "S-W", "S-W", "S-W", "W-4", "S-W", "W-F1", "5-F1",
    "W-5", "S-W", "S-W", "W-4", "S-W", "S-W", "W-3", "S-W", "S-W", "S-W", "S-W", "S-W", "W-F3",
    "S-W", "S-W", "W-F4", "6-F4", "6-F4", "W-6", "S-W", "S-W", "W-1", "5-1", "W-5", "S-W",
    "W-F1", "S-W", "W-F3", "2-F3", "T-F3", "S-W", "W-F5", "S-W", "W-F6", "S-W", "S-W", "W-F1",
    "3-F1", "3-F1", "3-1", "W-3", "1-F1", "1-F1", "1-F1", "T-F1", "9-F1", "5-F1", "W-5", "W-3",
    "S-W", "S-W", "W-1", "S-W", "W-7", "S-W", "W-1", "S-W", "W-F7", "S-W", "S-W", "W-F4",
    "4-F4", "2-F4", "2-F3", "W-2", "W-F3", "S-W", "S-W", "S-W", "W-4", "S-W", "W-7", "S-W",
    "W-F3", "7-F3", "7-F3", "7-F3", "5-F3", "W-5", "S-W", "W-5", "2-5", "W-2", "S-W", "W-F4",
    "S-W", "W-4", "S-W", "W-9", "S-W", "W-9", "S-W", "W-1", "S-W", "W-F2", "3-F2", "3-5", "W-3",
    "W-3", "W-F4", "5-F2", "5-F2", "5-F2", "T-F2", "5-1", "W-5", "W-2", "S-W", "W-F4", "W-F4",
    "W-6", "W-7", "S-W", "S-W", "S-W", "S-W", "W-F8", "S-W", "W-F7", "S-W", "S-W", "W-F8",
    "S-W", "S-W", "S-W", "W-F2", "S-W", "S-W",
]  # fmt: skip
