"""The arena (``terrace-arena``): the figures it reports are the games the engine plays, deal by deal."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

import terrace
from bots.arena import cli as arena
from bots.arena.cli import main
from bots.arena.deals import load_deals
from bots.arena.figures import compare
from bots.arena.games import GameResult, arena_race_id, play_game, run_games
from bots.bot import Bot
from bots.samples.random_bot import RandomBot

ROOT = Path(__file__).resolve().parents[3]
HERE = "tests.bots.arena.test_arena"
SCRIPT_MOVES = 40  # the scripted bot resigns after this many moves


def first_move(legal: list[str]) -> str:
    return sorted(legal)[0]


class FirstBot(Bot):
    """Scripted: always the alphabetically first legal move; resigns after SCRIPT_MOVES moves."""

    name = "first"

    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        return None if view["moves"] >= SCRIPT_MOVES else first_move(legal)


class AsyncFirstBot(FirstBot):
    async def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:  # type: ignore[override]
        await asyncio.sleep(0)
        return super().choose(view, legal)


class ResignBot(Bot):
    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        return None


class IllegalBot(Bot):
    """Chooses the base, then writes nonsense."""

    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        return "2-F1" if view["moves"] == 0 else "zz"


class CrashBot(Bot):
    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        raise RuntimeError("boom")


class ChattyBot(FirstBot):
    def choose(self, view: dict[str, Any], legal: list[str]) -> str | None:
        print("thinking about", legal)  # must not land in the --json document
        return super().choose(view, legal)


class RecordingBot(ResignBot):
    seen: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def start(self, race: dict[str, Any]) -> None:
        self.seen.append(("start", race))

    def finish(self, result: dict[str, Any]) -> None:
        self.seen.append(("finish", result))


def by_hand(variant: str, deal: int, max_moves: int = 3000) -> terrace.Game:
    """What FirstBot's game must be, played on the engine directly."""
    g = terrace.new_game(variant, deal=deal)
    while g.status == "playing" and len(g.moves) < min(SCRIPT_MOVES, max_moves):
        g.play(first_move(g.legal_moves()))
    return g


def figures(games: list[GameResult]) -> list[dict[str, Any]]:
    """Everything but the times, which vary from run to run."""
    return [{k: v for k, v in g.to_dict().items() if k != "think_ms"} for g in games]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0) -> dict[str, Any]:
    assert main([*argv, "--json"]) == status
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def strip_times(doc: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads(json.dumps(doc))
    doc.pop("seconds"), doc.pop("command"), doc["args"].pop("jobs")
    for b in doc["bots"]:
        for s in b["variants"].values():
            s.pop("decision_ms")
        for g in b.get("games", []):
            g.pop("think_ms")
    return doc


# ----- one game ------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "deal"), [("terrace", 1), ("signora", 2), ("louis", 3)])
def test_a_scripted_bot_plays_exactly_the_engine_game(variant: str, deal: int) -> None:
    r = play_game(FirstBot, variant, deal, max_moves=3000)
    g = by_hand(variant, deal)
    assert (r.score, r.terrace_left, r.moves, r.status) == (g.score, g.terrace_left, len(g.moves), g.status)
    assert r.finish == (g.status if g.status != "playing" else "resigned")
    assert r.decisions == len(g.moves) + (r.finish == "resigned") and len(r.times_ms) == r.decisions
    assert r.error is None


def test_the_move_cap_ends_a_game_as_capped() -> None:
    r = play_game(FirstBot, "terrace", 1, max_moves=5)
    assert (r.finish, r.moves, r.decisions, r.status) == ("capped", 5, 5, "playing")
    assert r.score == by_hand("terrace", 1, max_moves=5).score


def test_a_bot_that_resigns() -> None:
    r = play_game(ResignBot, "terrace", 4, max_moves=100)
    assert (r.finish, r.moves, r.decisions, r.score, r.terrace_left, r.error) == (
        "resigned",
        0,
        1,
        0,
        11,
        None,
    )


def test_an_illegal_move_is_an_error_with_the_engine_reason() -> None:
    g = terrace.new_game("terrace", deal=5)
    g.play("2-F1")
    with pytest.raises(terrace.IllegalMove) as refused:
        g.play("zz")
    r = play_game(IllegalBot, "terrace", 5, max_moves=100)
    assert (r.finish, r.moves, r.score) == ("error", 1, g.score)
    assert r.error is not None and "'zz'" in r.error
    assert refused.value.code in r.error and refused.value.message in r.error


def test_an_exception_is_an_error_that_says_where() -> None:
    r = play_game(CrashBot, "louis", 1, max_moves=100)
    assert r.finish == "error" and r.moves == 0
    assert r.error is not None and r.error.startswith("choose: RuntimeError: boom (at test_arena.py:")


def test_async_choose_plays_the_same_game() -> None:
    sync, asynchronous = play_game(FirstBot, "terrace", 6, 3000), play_game(AsyncFirstBot, "terrace", 6, 3000)
    assert figures([sync]) == figures([asynchronous])


async def test_the_arena_runs_inside_a_running_event_loop() -> None:
    games = run_games([f"{HERE}:AsyncFirstBot"], ["terrace"], [6], jobs=1)  # in a thread: no nested loop
    assert figures(games) == figures([play_game(FirstBot, "terrace", 6, 3000)])


def test_start_and_finish_hooks_see_the_race() -> None:
    RecordingBot.seen.clear()
    play_game(RecordingBot, "terrace", 3, 100)
    play_game(RecordingBot, "louis", 3, 100)
    (s1, start), (f1, result), (_, louis), _ = RecordingBot.seen
    assert (s1, f1) == ("start", "finish")
    assert start == {"race": arena_race_id("terrace", 3), "variant": "terrace", "goal": "terrace"}
    # stable per deal, different between deals, and not the deal number (which would give the stock away)
    assert arena_race_id("terrace", 3) == arena_race_id("terrace", 3) != arena_race_id("terrace", 4)
    assert len(start["race"]) == len("arena-") + 12 and ":" not in start["race"]
    assert louis["goal"] == "clear"
    assert (
        result["finish"] == "resigned"
        and result["race"] == arena_race_id("terrace", 3)
        and result["moves"] == 0
    )


# ----- figures -------------------------------------------------------------------------------


def test_figures_are_deterministic_whatever_the_jobs() -> None:
    args = (["random", f"{HERE}:FirstBot"], ["terrace", "louis"], load_deals("1-6"))
    one = run_games(*args, max_moves=400, jobs=1)
    assert figures(one) == figures(run_games(*args, max_moves=400, jobs=1))
    assert figures(one) == figures(run_games(*args, max_moves=400, jobs=2))
    assert [(g.bot, g.variant, g.deal) for g in one] == [
        (b, v, d) for b in (0, 1) for v in ("terrace", "louis") for d in range(1, 7)
    ]


def test_the_report_is_the_games_summed(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(
        capsys,
        f"{HERE}:FirstBot",
        "--variant",
        "terrace,louis",
        "--deals",
        "1-4",
        "--per-deal",
        "--jobs",
        "1",
    )
    (bot,) = doc["bots"]
    assert bot["class"] == f"{HERE}:FirstBot" and bot["name"] == "first"
    for v, s in bot["variants"].items():
        games = [by_hand(v, d) for d in range(1, 5)]
        assert s["games"] == 4 and s["errors"] == 0
        assert s["win_rate"] == sum(g.status == "won" for g in games) / 4
        assert s["mean_score"] == sum(g.score for g in games) / 4
        assert s["mean_moves"] == sum(len(g.moves) for g in games) / 4
        if v == "louis":
            assert s["terrace_cleared_rate"] is None and s["goal"] == "clear"
        else:
            assert s["terrace_cleared_rate"] == sum(g.terrace_left == 0 for g in games) / 4
        assert sum(s["finish"].values()) == 4 and s["decisions"] == sum(
            g["decisions"] for g in bot["games"] if g["variant"] == v
        )
        assert s["decision_ms"]["p50"] <= s["decision_ms"]["p99"] <= s["decision_ms"]["max"]
    assert [(g["variant"], g["deal"]) for g in bot["games"]] == [
        (v, d) for v in ("terrace", "louis") for d in (1, 2, 3, 4)
    ]


def test_json_is_the_same_with_one_job_or_two(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random", "--vs", f"{HERE}:AsyncFirstBot", "--deals", "3-6,9", "--per-deal", "--max-moves", "300"]
    one = run_json(capsys, *argv, "--jobs", "1")
    two = run_json(capsys, *argv, "--jobs", "2")
    assert strip_times(one) == strip_times(two)
    assert one["args"]["deal_count"] == 5 and one["errors"] == 0 and one["schema"] == 1


def test_errors_are_counted_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, f"{HERE}:IllegalBot", "--deals", "1-3", "--jobs", "1", status=1)
    s = doc["bots"][0]["variants"]["terrace"]
    assert s["errors"] == s["finish"]["error"] == doc["errors"] == 3
    assert [e["deal"] for e in s["error_examples"]] == [1, 2, 3]
    assert all("bad_notation" in e["error"] for e in s["error_examples"])


def test_a_bots_prints_do_not_spoil_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"{HERE}:ChattyBot", "--deals", "1", "--jobs", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["bots"][0]["variants"]["terrace"]["games"] == 1
    assert "thinking about" in err


# ----- head to head --------------------------------------------------------------------------


def result(goal_moves: int | None = None, score: int = 0, terrace_left: int = 11) -> GameResult:
    return GameResult(0, "terrace", 1, "lost", "lost", score, terrace_left, 99, goal_moves, 0, 0.0, None)


def test_head_to_head_ranks_like_a_race() -> None:
    assert compare(result(goal_moves=300), result(score=90)) == "a"  # the goal beats any score
    assert compare(result(goal_moves=300), result(goal_moves=200)) == "b"  # sooner is better
    assert compare(result(score=40), result(score=50, terrace_left=9)) == "b"
    assert compare(result(score=50, terrace_left=3), result(score=50, terrace_left=4)) == "a"
    assert compare(result(score=50, terrace_left=3), result(score=50, terrace_left=3)) == "draw"
    assert compare(result(goal_moves=120, score=60), result(goal_moves=120, score=20)) == "draw"


def test_head_to_head_counts(capsys: pytest.CaptureFixture[str]) -> None:
    first, resign = f"{HERE}:FirstBot", f"{HERE}:ResignBot"
    doc = run_json(
        capsys, first, "--vs", resign, "--deals", "1-5", "--variant", "terrace,louis", "--per-deal"
    )
    h = doc["head_to_head"]
    assert h["terrace"] == {"deals": 5, "a": 5, "b": 0, "draws": 0, "per_deal": h["terrace"]["per_deal"]}
    assert [d["winner"] for d in h["terrace"]["per_deal"]] == ["a"] * 5
    assert h["louis"]["a"] + h["louis"]["b"] + h["louis"]["draws"] == 5
    a, b = (bot["games"] for bot in doc["bots"])
    expected = []
    for x, y in zip(a, b, strict=True):
        if x["variant"] == "louis":  # neither wins; then score, and Louis has no terrace
            expected.append("a" if x["score"] > y["score"] else "b" if x["score"] < y["score"] else "draw")
    assert [d["winner"] for d in h["louis"]["per_deal"]] == expected
    same = run_json(capsys, first, "--vs", first, "--deals", "1-5", "--jobs", "1")["head_to_head"]["terrace"]
    assert (same["a"], same["b"], same["draws"]) == (0, 0, 5)


def test_the_table_names_both_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["random", "--vs", f"{HERE}:ResignBot", "--deals", "1-3", "--variant", "louis", "--jobs", "1"])
        == 0
    )
    out, err = capsys.readouterr()
    assert "A: random vs B: tests.bots.arena.test_arena:ResignBot" in out and "head to head" in out
    assert "\x1b" not in out and err == ""


# ----- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nosuchmodule:Bot"], "cannot import nosuchmodule"),
        (["random:"], "expected MODULE:CLASS"),
        (["bots.samples.random_bot:NoSuchBot"], "has no class NoSuchBot"),
        (["random", "--vs", "nope"], "bot 'nope'"),
        (["random", "--deals", "5-3"], "empty deal range"),
        (["random", "--deals", "no-such-file.txt"], "not a range like 1-100 nor a readable file"),
        (["random", "--variant", "klondike"], "unknown variant 'klondike'"),
        (["random", "--variant", "terrace,klondike"], "unknown variant 'klondike'"),
        (["random", "--jobs", "0"], "--jobs must be at least 1"),
        (["random", "--max-moves", "0"], "--max-moves must be at least 1"),
    ],
)
def test_usage_errors_exit_2_with_one_clear_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("terrace-arena: error: ")
    assert message in err and "Traceback" not in err


def test_argparse_errors_and_help_return_instead_of_exiting(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["random", "--jobs", "many"]) == 2
    assert main(["--help"]) == 0
    assert "exit status" in capsys.readouterr().out


def test_variants_read_lists_and_all() -> None:
    assert arena._variants(["louis,terrace", "louis"]) == ["louis", "terrace"]
    assert arena._variants(["all"]) == list(terrace.VARIANTS)
    assert arena._variants(None) == ["terrace"]


def test_deal_sets(tmp_path: Path) -> None:
    assert load_deals("3-5") == [3, 4, 5]
    assert load_deals("7") == [7]
    assert load_deals("1-2, 9 ,4-5") == [1, 2, 9, 4, 5]
    f = tmp_path / "set.txt"
    f.write_text("# a set\n7\n\n9  # odd\n")
    assert load_deals(f) == load_deals(str(f)) == [7, 9]
    for bad in ("5-3", "1-2,5-3", str(tmp_path / "missing.txt")):
        with pytest.raises((ValueError, OSError)):
            load_deals(bad)


def test_the_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "terrace-arena"
    assert script.exists(), f"{script} is not installed: pip install -e . installs it"
    mine = tmp_path / "mybot.py"  # a bot file in the current directory, as a bot author has it
    mine.write_text(
        "from bots.samples.random_bot import RandomBot\n\nclass Mine(RandomBot):\n    name = 'mine'\n"
    )
    r = subprocess.run(
        [
            str(script),
            "mybot:Mine",
            "--vs",
            "random",
            "--deals",
            "1-4",
            "--variant",
            "terrace,louis",
            "--json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    doc = json.loads(r.stdout)
    mine_doc, random_doc = doc["bots"]
    assert mine_doc["name"] == "mine" and mine_doc["class"] == "mybot:Mine"
    for v in ("terrace", "louis"):  # same class, same seeds: the same games
        assert mine_doc["variants"][v]["mean_score"] == random_doc["variants"][v]["mean_score"]
        assert doc["head_to_head"][v]["draws"] == 4
    text = subprocess.run(
        [str(script), "random", "--deals", "2", "--jobs", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert text.returncode == 0 and text.stderr == "" and "\x1b" not in text.stdout
    assert "random — 1 deals (2)" in text.stdout


def test_random_bot_is_seeded_by_the_race() -> None:
    a, b = play_game(RandomBot, "signora", 8, 3000), play_game(RandomBot, "signora", 8, 3000)
    assert figures([a]) == figures([b])


def test_worker_processes_count_every_game_as_it_ends_for_the_progress_bar() -> None:
    counted: list[int] = []
    games = run_games(["greedy"], ["terrace"], list(range(1, 13)), jobs=2, progress=counted.append)
    assert len(games) == 12
    assert counted == [1] * 12  # game by game, not a chunk at a time


def test_on_a_terminal_the_arena_shows_a_progress_bar_with_an_estimate() -> None:
    import pexpect

    arena_bin = str(Path(sys.executable).parent / "terrace-arena")
    child = pexpect.spawn(
        arena_bin,
        ["greedy", "--deals", "1-40", "--jobs", "2"],
        encoding="utf-8",
        dimensions=(24, 100),
        timeout=120,
    )
    child.expect(pexpect.EOF)
    child.close()
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", str(child.before))  # the terminal's view, without colours
    frames = re.split(r"[\r\n]+", shown)  # each redraw of the bar
    done = [m.groups() for f in frames if (m := re.search(r"^arena .* (\d+)/40 (\d+:\d\d:\d\d)", f))]
    assert done, shown[:500]
    assert int(done[0][0]) < 40  # it showed before the end
    assert child.exitstatus == 0
