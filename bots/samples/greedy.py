"""The greedy bot: home first, then moves that free a card, then the stock; never looks further.

It sees only the view and the legal moves. To ask "would this move let a card go
home?" it plays the move on a game built from the view (``terrace.solve.imagine``),
so it never re-derives the rules.
"""

from __future__ import annotations

from bots.bot import Bot, View
from terrace.solve.imagine import imagine, unseen

SHUFFLE_CAP = 40  # shuffle moves allowed between two progress moves: packing can loop for ever


def split(move: str) -> tuple[str, str]:
    src, _, dst = move.partition("-")
    return src, dst


def is_home(move: str) -> bool:
    dst = split(move)[1]
    return dst.startswith("F") or (len(dst) == 2 and dst[0] in "AK")


def undoes(move: str, last: str) -> bool:
    return bool(last) and split(move) == split(last)[::-1]


def frees_home(view: View, move: str) -> bool:
    """After ``move``, can the card it uncovers go home at once?"""
    game = imagine(view, unseen(view))  # the stock's order does not matter for one move
    src = split(move)[0]
    game.play(move)
    return any(m.startswith(src + "-") and is_home(m) for m in game.legal_moves())


def base_choice(view: View, legal: list[str]) -> str:
    """The pile whose card's rank is most common in the terrace: those cards can then
    go home as soon as they come up, so the terrace empties early."""
    ranks = [c[0] for c in view["terrace"]]
    return max(sorted(legal), key=lambda m: ranks.count(view["piles"][split(m)[0]][-1][0]))


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self) -> None:
        self.last = ""
        self.shuffles = 0
        self.progress: tuple[int, int] = (-1, -1)

    def choose(self, view: View, legal: list[str]) -> str | None:
        progress = (view["score"], view["stock"])
        if progress != self.progress:  # a card went home or the stock moved: shuffling may resume
            self.progress, self.shuffles = progress, 0
        move = self.pick(view, legal)
        self.shuffles += 1
        self.last = move or ""
        return move

    def pick(self, view: View, legal: list[str]) -> str | None:
        if view.get("phase") == "choose-base":
            return base_choice(view, legal)
        homes = sorted((m for m in legal if is_home(m)), key=lambda m: "TW".find(m[0]) % 3)
        # Louis: an abeyance card leaves alone only once its twin went the other way (it fits
        # one side); keeping it costs nothing, since the next card of that side takes it along.
        held = [m for m in homes if m.startswith("X")]
        homes = [m for m in homes if not m.startswith("X")]
        louis = view["variant"] == "louis"
        abeyance = sorted(m for m in legal if split(m)[1].startswith("X"))
        if abeyance or homes:  # terrace top first, then the waste, then the rest
            return (abeyance or homes)[0]
        if self.shuffles < SHUFFLE_CAP:
            helpful = self.shuffle_moves(view, legal, louis)
            if helpful:
                return helpful[0]
        for m in legal:
            if m.startswith("S-"):
                return m
        if held:  # nothing else goes; the heaps may not be gathered while it could go home
            return held[0]
        for wanted in ("W-S", "redeal"):
            if wanted in legal:
                return wanted
        return None

    def shuffle_moves(self, view: View, legal: list[str], louis: bool) -> list[str]:
        """Moves between tableau places that help: freeing a card for home, a gap, the waste."""
        ranked = []
        for m in legal:
            src, dst = split(m)
            if src == "S" or dst in ("S", "W", "") or undoes(m, self.last) or is_home(m) or dst[0] == "X":
                continue
            if src in ("W", "T"):  # out of the waste (or a freed terrace) onto the tableau
                if view["piles"][dst] or len(view["waste"]) > 1 or src == "T":
                    ranked.append((2, m))
            elif louis or view["piles"][dst]:
                if frees_home(view, m):
                    ranked.append((0, m))
                elif not louis and len(view["piles"][src]) == 1:  # it leaves a gap for the waste
                    ranked.append((1, m))
        return [m for _, m in sorted(ranked)]
