"""The engine benchmark script keeps working (its figures live in docs/BENCHMARKS.md, not here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import engine as bench
from terrace.rules.game import MAX_MOVES


def test_deal_sets_read_ranges_and_files(tmp_path: Path) -> None:
    assert bench.load_deals("3-5") == [3, 4, 5]
    f = tmp_path / "set.txt"
    f.write_text("# a set\n7\n\n9  # odd\n")
    assert bench.load_deals(f) == [7, 9]
    assert len(bench.load_deals(bench.DEFAULT_DEALS)) == 1000


@pytest.mark.parametrize("bad", ["5-3", "nonsense-file.txt"])
def test_bad_deal_sets_are_refused(bad: str) -> None:
    with pytest.raises((ValueError, OSError)):
        bench.load_deals(bad)


def test_a_tiny_run_reports_every_variant(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--deals", "1-3", "--playouts", "2", "--greedy-deals", "3", "--playout-deals", "3", "--json"]
    assert bench.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["random"]) == set(report["greedy"]) == {"terrace", "queen-of-italy", "signora", "louis"}
    for r in report["random"].values():
        assert r["won"] + r["lost"] + r["capped"] == 2 and r["moves_per_s"] > 0
    for v, r in report["greedy"].items():
        assert r["games"] == 3 and 0 <= r["win_rate"] <= 1
        assert (r["terrace_cleared_rate"] is None) == (v == "louis")
    assert set(report["playouts"]) == {"terrace", "queen-of-italy", "signora", "louis"}
    for r in report["playouts"].values():
        assert r["playouts"] == 3 and r["same_ends"] and r["playouts_per_cpu_s"] > 0


def test_the_greedy_baseline_is_deterministic() -> None:
    a = [bench.greedy_game("terrace", d).moves for d in (1, 2)]
    b = [bench.greedy_game("terrace", d).moves for d in (1, 2)]
    assert a == b


@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora", "louis"])
def test_real_games_end_far_below_the_move_ceiling(variant: str) -> None:
    # The greedy yardstick plays each game until it is over or has nothing useful left
    # to do: the longest of 20 deals uses under a tenth of the moves one game may hold.
    games = [bench.greedy_game(variant, deal) for deal in range(1, 21)]
    assert max(len(g.moves) for g in games) < MAX_MOVES / 10
