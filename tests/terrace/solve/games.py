"""Recorded games for the hindsight tests: a real deal, real moves (they replay under the current rules).

``LOST_AT_189``: terrace on the 32-byte seed ``SEED`` (SHA-256 of ``hindsight-test:3``), played
along a winning line for 189 moves, then ``1-F2`` (move index 189), after which the solver proves
no line wins; the player plays on until no move is left (status "lost", 209 moves).
"""

import hashlib

SEED = hashlib.sha256(b"hindsight-test:3").digest()
assert SEED.hex() == "b1b4fbbc341c572a9acc069221825fe5151592eec26e0f4d6d059b4f53a06cc7"
LOST_AT_189 = [
    "2-F1", "7-F1", "S-W", "W-F1", "S-W", "W-7", "S-W", "6-5", "W-6", "S-W", "S-W", "S-W",
    "W-2", "S-W", "S-W", "S-W", "W-F2", "1-F2", "W-1", "S-W", "W-4", "S-W", "S-W", "W-F1",
    "4-F1", "4-F1", "W-4", "S-W", "W-F2", "S-W", "S-W", "S-W", "W-F3", "S-W", "S-W", "W-8",
    "S-W", "S-W", "W-F1", "8-F1", "8-F1", "W-8", "W-F1", "S-W", "S-W", "S-W", "S-W", "S-W",
    "W-F4", "7-F4", "W-7", "S-W", "S-W", "S-W", "S-W", "S-W", "S-W", "S-W", "W-F2", "T-F2",
    "S-W", "W-7", "S-W", "S-W", "W-7", "S-W", "W-F1", "S-W", "W-F3", "1-F3", "W-1", "S-W",
    "S-W", "S-W", "W-F3", "8-F3", "W-8", "S-W", "S-W", "W-2", "S-W", "S-W", "S-W", "S-W",
    "W-F2", "1-F2", "W-1", "S-W", "S-W", "S-W", "W-F5", "S-W", "W-7", "S-W", "W-F6", "S-W",
    "W-F7", "S-W", "W-7", "S-W", "W-3", "S-W", "S-W", "W-F4", "3-F4", "T-F4", "S-W", "S-W",
    "W-F2", "W-F2", "S-W", "W-F2", "S-W", "W-3", "S-W", "S-W", "W-F1", "W-F1", "S-W", "W-F8",
    "S-W", "S-W", "W-F3", "S-W", "S-W", "W-8", "S-W", "S-W", "W-1", "S-W", "S-W", "W-F3",
    "8-F3", "W-F3", "S-W", "W-3", "S-W", "S-W", "W-F7", "T-F7", "S-W", "S-W", "W-F4", "5-F4",
    "5-2", "W-5", "9-2", "W-9", "W-F7", "9-5", "W-9", "S-W", "W-F5", "4-F5", "W-4", "S-W",
    "S-W", "W-F7", "S-W", "W-9", "4-9", "W-4", "S-W", "W-F7", "2-F7", "2-F4", "W-F4", "W-F3",
    "W-F5", "W-F3", "5-F5", "5-F5", "W-5", "W-F5", "W-9", "W-F5", "8-9", "W-8", "W-F8", "3-F8",
    "3-F8", "3-F8", "W-3", "W-F5", "W-F5", "S-W", "W-F4", "S-W", "W-F2", "1-F2", "1-F2", "W-1",
    "W-9", "1-9", "W-1", "1-9", "8-9", "W-1", "W-F3", "4-F3", "1-5", "W-1", "W-F5", "W-F7",
    "2-F7", "2-F7", "2-F4", "5-F4", "1-F4",
]  # fmt: skip
