"""The four variants as data: rule switches read by the engines.

The three Terrace-family variants share one engine (``terrace.rules.family``) and
differ only in the switches below; Louis has its own layout
(``terrace.rules.louis``). docs/rulebook.md is the normative text for each switch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from terrace.vocab import Goal


@dataclass(frozen=True)
class Variant:
    id: str
    name: str
    summary: str
    family: Literal["terrace", "louis"]
    goals: tuple[Goal, ...]  # the first is the default
    # Terrace-family switches (ignored by Louis)
    foundation_match: Literal["colour", "suit"] = "colour"
    gap_fill: Literal["waste", "any"] = "waste"
    autofill_gaps: bool = False  # queen-of-italy: a gap takes the next stock card at once
    recycles: int = 0  # signora: turn the waste over once
    terrace_freed_late: bool = False  # signora: terrace top may pack once stock and waste are empty
    # Louis
    deals: int = 1

    @property
    def default_goal(self) -> Goal:
        """The goal a race of this variant has when nobody names one."""
        return self.goals[0]

    @property
    def has_terrace(self) -> bool:
        """Whether the layout has a terrace (the Terrace family) or not (Louis)."""
        return self.family == "terrace"

    def deck(self) -> list[int]:
        """The card ids this variant shuffles, in canonical order (Louis leaves out pack 0's
        aces and kings, which start its foundations)."""
        if self.family == "louis":
            return [c for c in range(104) if not (c < 52 and c % 13 in (0, 12))]
        return list(range(104))

    def to_dict(self) -> dict[str, object]:
        """Plain data for the protocol and ``--json`` output."""
        d = asdict(self)
        d["goals"] = list(self.goals)
        return d


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant(
            id="terrace",
            name="Terrace",
            summary="Foundations by alternate colour; gaps filled only from the waste; no redeal.",
            family="terrace",
            goals=("terrace", "clear"),
        ),
        Variant(
            id="queen-of-italy",
            name="Queen of Italy",
            summary="As Terrace, but a gap is filled at once from the stock.",
            family="terrace",
            goals=("terrace", "clear"),
            autofill_gaps=True,
        ),
        Variant(
            id="signora",
            name="Signora",
            summary="Foundations by suit; any card may fill a gap; one recycle; the terrace is freed late.",
            family="terrace",
            goals=("terrace", "clear"),
            foundation_match="suit",
            gap_fill="any",
            recycles=1,
            terrace_freed_late=True,
        ),
        Variant(
            id="louis",
            name="Louis",
            summary="Twelve heaps, four ace and four king foundations by suit, three deals.",
            family="louis",
            goals=("clear",),
            deals=3,
        ),
    )
}
