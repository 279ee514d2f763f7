"""The arena's figures: per-variant summaries of a bot's games, and head to head rankings."""

from collections.abc import Sequence
from typing import Any

import terrace
from bots.arena.games import FINISHES, GameResult, goal_of
from bots.stats import percentile
from terrace.race.places import Standing, better

ERROR_EXAMPLES = 5  # error messages kept per bot and variant

# ----- figures -------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(games: Sequence[GameResult], variant: str) -> dict[str, Any]:
    """The figures of one bot on one variant."""
    n = len(games)
    has_terrace = terrace.VARIANTS[variant].has_terrace
    times = sorted(t for g in games for t in g.times_ms)
    reached = [g.goal_moves for g in games if g.goal_moves is not None]
    return {
        "games": n,
        "goal": goal_of(variant),
        "win_rate": sum(g.status == "won" for g in games) / n if n else None,
        "terrace_cleared_rate": sum(g.terrace_left == 0 for g in games) / n if n and has_terrace else None,
        "mean_score": _mean([g.score for g in games]),
        "mean_moves": _mean([g.moves for g in games]),
        "goal_reached": len(reached),
        "mean_goal_moves": _mean(reached),
        "decisions": len(times),
        "decision_ms": {
            "p50": round(percentile(times, 50), 4),
            "p99": round(percentile(times, 99), 4),
            "mean": round(sum(times) / len(times), 4),
            "max": round(times[-1], 4),
        }
        if times
        else None,
        "errors": sum(g.error is not None for g in games),
        "finish": {reason: sum(g.finish == reason for g in games) for reason in FINISHES},
        "error_examples": [{"deal": g.deal, "error": g.error} for g in games if g.error][:ERROR_EXAMPLES],
    }


def _standing(game: GameResult) -> Standing:
    """The game as a race would place it (moves stand in for race time; no last-card-home time)."""
    return Standing.of(
        goal_time=game.goal_moves, score=game.score, terrace_left=game.terrace_left, last_home=None
    )


def compare(a: GameResult, b: GameResult) -> str:
    """``"a"``, ``"b"`` or ``"draw"``: who did better on the same deal, ranked as a race."""
    return better(_standing(a), _standing(b))


def head_to_head(a: Sequence[GameResult], b: Sequence[GameResult], per_deal: bool) -> dict[str, Any]:
    winners = [compare(x, y) for x, y in zip(a, b, strict=True)]
    report: dict[str, Any] = {
        "deals": len(winners),
        "a": winners.count("a"),
        "b": winners.count("b"),
        "draws": winners.count("draw"),
    }
    if per_deal:
        report["per_deal"] = [{"deal": x.deal, "winner": w} for x, w in zip(a, winners, strict=True)]
    return report
