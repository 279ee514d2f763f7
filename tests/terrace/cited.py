"""Positions from real deals that issue reports cite, rebuilt from their move lists.

The Louis lines were found by replaying a simple policy (send the card just dealt
home now and then, otherwise deal) over numbered deals until the position the
report describes came up under version 1 of the rules; the Signora line is the
greedy sample bot's first 229 moves. DEAL-V1 and the rules are exact, so the
lines replay the same positions for ever.

A Louis script is written short: a number ``n`` stands for ``n`` deal moves.
"""

from __future__ import annotations

import terrace

# Louis deal 979 after 106 moves: the stock is just out, and both ``redeal`` and ``l-Kd``
# were legal under version 1 (so a player could redeal with a card ready to go home).
LOUIS_979 = "8 h-Kh 10 e-Kc 12 e-Ac 11 d-Ad 3 g-Ks 6 a-Ac 1 b-As 17 g-Kd 1 h-Ah 5 a-Kd 22"

# Louis deal 1 after 88 moves: the 8c just went to abeyance while dealing, and version 1
# offered ``Xc-Ac`` and ``Xc-Kc`` at once with no continuing card.
LOUIS_1 = (
    "7 g-Ac 11 e-Kc 3 h-Kd 8 d-Ac 1 e-Kc 1 f-As 3 i-Ac 1 k-Ks 2 m-Kc 3 c-Ac 6 i-Kc 1 k-Ad 2 m-Kh "
    "2 b-As 2 d-Ac 1 e-Ac 10 c-Ah 6 i-Xc"
)

# Signora deal 253 after 229 moves: stock and waste are used up, so the terrace is free.
SIGNORA_253 = """
2-F1 9-F2 7-F2 2-6 S-W S-W W-2 S-W W-1 S-W W-7 S-W W-3 S-W W-F1 S-W W-F3 S-W W-F4 3-F4 3-F1 S-W
W-3 S-W W-9 4-9 S-W W-2 3-2 S-W W-F1 S-W W-3 S-W W-4 S-W S-W W-5 W-5 S-W S-W S-W W-4 S-W W-4 S-W
W-F1 S-W W-F2 S-W S-W S-W S-W W-5 S-W S-W W-8 S-W W-1 W-1 S-W S-W S-W W-F3 S-W S-W W-F4 S-W S-W
S-W W-1 S-W W-F1 S-W W-5 W-5 S-W S-W S-W W-F5 4-F5 7-F5 W-F5 W-7 S-W S-W W-F6 T-F6 4-F6 T-F6
T-F1 T-F6 T-F7 W-F6 T-F6 4-F2 5-F2 6-F1 7-F2 6-9 W-4 W-6 W-7 S-W S-W W-4 7-4 W-7 S-W S-W W-F2
2-F2 9-F2 S-W W-3 S-W S-W S-W S-W S-W S-W W-6 S-W S-W W-7 S-W W-7 S-W W-F2 9-7 9-F2 W-9 S-W W-4
S-W W-1 S-W W-F4 S-W W-3 S-W S-W S-W S-W W-F6 2-F6 2-6 W-2 S-W S-W W-1 S-W W-F5 S-W W-F7 S-W
W-F5 S-W W-F3 2-F3 W-2 W-F3 5-F3 1-F3 S-W W-4 5-4 5-F3 5-7 5-F6 W-5 6-5 6-F6 6-9 W-6 S-W S-W
W-F8 S-W W-1 S-W W-4 W-4 6-4 W-1 W-6 W-F5 S-W W-F5 7-F5 3-F5 S-W W-F1 7-F1 3-F1 7-F5 3-F5 7-F6
7-F5 8-F1 W-3 W-7 W-F6 S-W W-F8 6-F8 4-F8 T-F8 T-F4 W-6 9-6 9-F1 W-9 S-W W-F2 W-F2 S-W W-F7 9-F7
4-F7 1-F7 4-F8 1-F8 7-F7 1-F7 2-1 W-2 W-7 W-F4
"""


def louis_moves(script: str) -> list[str]:
    """The moves a short Louis script stands for (``3 a-Ah`` is three deals, then a-Ah)."""
    moves: list[str] = []
    for token in script.split():
        moves.extend(["deal"] * int(token) if token.isdigit() else [token])
    return moves


def louis_line(deal: int, script: str, rules_version: int = terrace.RULES_VERSION) -> terrace.Game:
    return terrace.replay("louis", deal, louis_moves(script), rules_version=rules_version)


def signora_253(rules_version: int = terrace.RULES_VERSION) -> terrace.Game:
    return terrace.replay("signora", 253, SIGNORA_253.split(), rules_version=rules_version)
