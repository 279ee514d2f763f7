"""Rules versions: which revision of the rules a game is played under, so old records still verify.

The rules change rarely, but a finished race's record must replay under the rules
its moves were made under. Each version is a set of switches the engines read
(never ``if version == 1``); docs/rulebook.md, "Rules versions", says what each
one changed and why. A record without a version was made under version 1.

- Version 1: Louis offers ``redeal`` as soon as the stock is dealt, and an abeyance
  card may go to either foundation on its own at any time.
- Version 2 (current): Louis offers ``redeal`` only when no card can go to a
  foundation, and an abeyance card that fits both foundations of its suit leaves
  its cell only by the two-card move. The Terrace family is the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rules:
    """The switches one rules version sets."""

    version: int
    summary: str  # what changed from the version before, for people
    louis_redeal_when_stuck: bool  # redeal only when no card can go to a foundation
    louis_abeyance_waits: bool  # a card fitting both sides leaves the cell only by the two-card move


RULES: dict[int, Rules] = {
    r.version: r
    for r in (
        Rules(
            version=1,
            summary="The first rules: Louis may redeal as soon as the stock is out, and release "
            "an abeyance card to either side at any time.",
            louis_redeal_when_stuck=False,
            louis_abeyance_waits=False,
        ),
        Rules(
            version=2,
            summary="Louis as the book has it: redeal only when no card can go home; an abeyance "
            "card that fits both sides waits for a card that continues one of them.",
            louis_redeal_when_stuck=True,
            louis_abeyance_waits=True,
        ),
    )
}

RULES_VERSION = max(RULES)  # the version new games are played under
UNVERSIONED = 1  # records and race metas made before rules versions existed were played under version 1


def rules_of(version: object) -> Rules:
    """The switches of rules ``version``; ValueError naming the known versions otherwise."""
    if isinstance(version, bool) or not isinstance(version, int) or version not in RULES:
        known = ", ".join(str(v) for v in RULES)
        raise ValueError(f"unknown rules version {version!r}; this engine knows {known}")
    return RULES[version]
