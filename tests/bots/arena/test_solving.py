"""terrace-arena solve: the solver's figures over numbered deals, on a process pool or inline."""

from __future__ import annotations

import json

import pytest

import terrace
from bots.arena.cli import main
from bots.arena.solving import figures, solve_deals
from terrace.solve import decided
from terrace.solve.decide import DEAL_SHARES


def test_solve_prints_figures_per_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--deals", "1-4", "--variant", "terrace", "--nodes", "3000"]) == 0
    out = capsys.readouterr().out
    assert "4 deals, at most 3000 positions each, stock known" in out
    [row] = [line for line in out.splitlines() if line.startswith("terrace ")]
    assert row.split()[1].endswith("%")
    assert "unknown: the budget ran out first" in out  # the columns explained


def test_the_arenas_help_names_the_solve_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "terrace-arena solve [--deals D]" in capsys.readouterr().out


def test_solve_json_matches_the_solver_deal_by_deal(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--deals", "1-4", "--variant", "louis", "--nodes", "2000", "--json", "--jobs", "2"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    verdicts = [
        decided(terrace.new_game("louis", d), nodes=2000, shares=DEAL_SHARES).verdict for d in range(1, 5)
    ]
    louis = report["variants"]["louis"]
    assert louis["deals"] == 4
    assert louis["won"] == verdicts.count("won") / 4
    assert louis["lost"] + louis["unknown"] == (4 - verdicts.count("won")) / 4


def test_pool_and_inline_agree() -> None:
    inline = solve_deals(["queen-of-italy"], [1, 2, 3], 1500, None, 1)
    pooled = solve_deals(["queen-of-italy"], [1, 2, 3], 1500, None, 2)
    assert [(r.verdict, r.nodes, r.moves) for r in inline] == [(r.verdict, r.nodes, r.moves) for r in pooled]
    assert figures(inline)["deals"] == 3


@pytest.mark.parametrize(
    "argv",
    [["--variant", "chess"], ["--nodes", "0"], ["--deals", "5-1"], ["--seconds", "-1"]],
)
def test_solve_refuses_bad_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", *argv]) == 2
    assert "terrace-arena solve: error:" in capsys.readouterr().err


def test_solve_with_a_cpu_clock_reports_it(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--deals", "1-2", "--variant", "terrace", "--seconds", "0.5", "--clock", "cpu", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["clock"] == "cpu" and report["seconds"] == 0.5
    assert report["variants"]["terrace"]["deals"] == 2
