"""Ratings: OpenSkill (Plackett-Luce) per pool (humans, bots) and variant.

A race is rated when it had at least two players, every one of them a
registered account (no guests) of the same kind. Each finished race updates
its players from their places (ties share a rank). A rating is shown, and
ranked on leaderboards, as its ordinal: mu - 3 sigma, a cautious estimate that
rises as the system grows sure of a player.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce

from terrace.vocab import Pool

Rating = tuple[float, float]  # mu, sigma

_MODEL = PlackettLuce()
DEFAULT: Rating = (_MODEL.mu, _MODEL.sigma)


def pool_of(rows: Sequence[Mapping[str, Any]]) -> Pool | None:
    """``"humans"`` or ``"bots"`` when the race is rated, else None."""
    players = [r.get("player") or {} for r in rows]
    if len(players) < 2 or any(p.get("guest", True) for p in players):
        return None
    kinds = {p.get("kind") for p in players}
    if kinds == {"human"}:
        return "humans"
    if kinds == {"bot"}:
        return "bots"
    return None


def ordinal(rating: Rating) -> float:
    mu, sigma = rating
    return mu - 3 * sigma


def rate(rows: Sequence[Mapping[str, Any]], current: Mapping[str, Rating | None]) -> dict[str, Rating]:
    """New ratings of a rated race's players from their places.

    ``rows`` are the race's results (``player.id``, ``place``); ``current`` the
    players' ratings before it (None: new to this pool and variant).
    """
    ids = [str(r["player"]["id"]) for r in rows]
    teams = [[_MODEL.rating(*(current.get(pid) or DEFAULT), name=pid)] for pid in ids]
    ranks = [float(r.get("place") or len(rows)) for r in rows]
    rated = _MODEL.rate(teams, ranks=ranks)
    return {pid: (team[0].mu, team[0].sigma) for pid, team in zip(ids, rated, strict=True)}
