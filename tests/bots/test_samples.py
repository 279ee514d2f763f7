"""The sample bots: greedy's priorities, whole legal games of every variant, and a planner that
never reads hidden state and plays the same moves for the same views."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import terrace
from bots.bot import Bot
from bots.samples.greedy import GreedyBot
from bots.samples.planner import PlannerBot
from bots.samples.sampler import FIRST_ROUND, LAST_ROUND, WIN, SamplerBot
from terrace.solve import solve
from tests.terrace.positions import family_game
from tests.terrace.solve.games import LOST_AT_189, SEED
from tests.terrace.solve.test_solver import endgame, full_foundations

VARIANTS = ("terrace", "queen-of-italy", "signora", "louis")


def start(bot: Bot, variant: str, race: str = "t") -> Bot:
    bot.start({"race": race, "variant": variant, "goal": "terrace"})
    return bot


def play_out(bot: Bot, game: terrace.Game, cap: int = 3000) -> list[str]:
    """Drive the engine offline with ``bot``; every move it makes must be legal."""
    moves = []
    while game.status == "playing" and len(moves) < cap:
        legal = game.legal_moves()
        move = bot.choose(json.loads(json.dumps(game.view())), legal)
        if move is None:
            break
        assert move in legal
        moves.append(game.play(move))
    return moves


def test_greedy_prefers_the_terrace_top_and_foundations() -> None:
    view: dict[str, Any] = terrace.new_game("terrace", deal=1).view()
    view.update(phase="play", base="5", waste=["9d"])
    bot = GreedyBot()
    assert bot.choose(view, ["W-3", "S-W", "4-F2", "T-F1", "W-F3"]) == "T-F1"
    assert GreedyBot().choose(view, ["W-3", "S-W", "4-F2", "W-F3"]) == "W-F3"
    assert GreedyBot().choose(view, ["W-3", "S-W", "4-F2"]) == "4-F2"


def test_greedy_turns_the_stock_when_nothing_else() -> None:
    g = terrace.new_game("terrace", deal=2)
    g.play("1-F1")
    view = g.view()
    assert GreedyBot().choose(view, ["S-W"]) == "S-W"
    signora = {**view, "variant": "signora", "stock": 0}
    assert GreedyBot().choose(signora, ["W-S"]) == "W-S"
    assert GreedyBot().choose(view, []) is None


def test_greedy_never_undoes_its_last_move() -> None:
    for variant in ("terrace", "signora", "louis"):
        for deal in range(1, 4):
            game = terrace.new_game(variant, deal=deal)
            moves = play_out(start(GreedyBot(), variant), game)
            for a, b in itertools.pairwise(moves):
                x, _, y = a.partition("-")
                assert b != f"{y}-{x}" or a.startswith(("S", "W-S")), (variant, deal, a, b)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("factory", [GreedyBot, PlannerBot, SamplerBot])
def test_sample_bots_play_whole_games_legally(variant: str, factory: type[Bot]) -> None:
    for deal in (1, 2):
        game = terrace.new_game(variant, deal=deal)
        moves = play_out(start(factory(), variant), game)
        assert moves
        assert game.score >= (8 if variant == "louis" else 1)


@pytest.mark.parametrize("factory", [PlannerBot, SamplerBot])
def test_planner_is_deterministic(factory: type[Bot]) -> None:
    runs = [play_out(start(factory(), "terrace", "same"), terrace.new_game("terrace", deal=7)) for _ in "ab"]
    assert runs[0] == runs[1]


def permuted_twin(game: terrace.Game, seed: int) -> terrace.Game:
    """A copy of ``game`` with the same view but its stock in another order (hidden state differs)."""
    twin = game.copy()
    stock = twin._places[2][:]
    random.Random(seed).shuffle(stock)
    twin._places[2] = stock
    return twin


@pytest.mark.parametrize("factory", [PlannerBot, SamplerBot])
@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora"])
def test_planner_never_reads_hidden_state(variant: str, factory: type[Bot]) -> None:
    game = terrace.new_game(variant, deal=3)
    for at in range(40):  # from the start, then a few moves in
        twin = permuted_twin(game, at)
        assert twin.view() == game.view() and twin._places[2] != game._places[2]
        a, b = start(factory(), variant, "r"), start(factory(), variant, "r")
        view = json.loads(json.dumps(game.view()))
        move_a = a.choose(view, game.legal_moves())
        move_b = b.choose(json.loads(json.dumps(twin.view())), twin.legal_moves())
        assert move_a == move_b
        if move_a is None or move_a.startswith("S-"):
            break  # the next view differs between the twins
        game.play(move_a)


def test_planner_works_on_a_view_without_its_game() -> None:
    game = terrace.new_game("terrace", deal=5)
    game.play("1-F1")
    view, legal = json.loads(json.dumps(game.view())), game.legal_moves()
    del game
    move = start(PlannerBot(), "terrace").choose(view, legal)
    assert move in legal


def test_sampler_never_walks_back_into_a_position_it_left() -> None:
    # signora deal 1: a lone card may go to a gap and back for ever; the sampler must not
    game = terrace.new_game("signora", deal=1)
    bot = start(SamplerBot(), "signora")
    seen = []
    for _ in range(80):
        view = json.loads(json.dumps(game.view()))
        seen.append(
            json.dumps({k: v for k, v in view.items() if k not in ("moves", "status")}, sort_keys=True)
        )
        move = bot.choose(view, game.legal_moves())
        if move is None or game.status != "playing":
            break
        game.play(move)
    assert len(seen) == len(set(seen))


def test_sampler_knows_the_order_of_louis_second_deal() -> None:
    bot = start(SamplerBot(), "louis")
    game = terrace.new_game("louis", deal=1)
    while game._deal_no == 1 and game.status == "playing":
        game.play(bot.choose(json.loads(json.dumps(game.view())), game.legal_moves()) or "")
    assert game._deal_no == 2  # it gathered the heaps: the second deal is cards it saw, in a known order
    for _ in range(10):  # a few cards into the second deal
        (order,) = bot.orders(game.view(), 3)
        assert order == [terrace.NAME[c] for c in game._places[24][::-1]]
        game.play(bot.choose(json.loads(json.dumps(game.view())), game.legal_moves()) or "")


@settings(max_examples=120, deadline=None)  # cheap endgames; about one in twenty is lost
@given(
    st.sampled_from(["terrace", "queen-of-italy", "signora"]),
    st.integers(0, 10**6),
    st.integers(2, 9),
    st.sampled_from([PlannerBot, SamplerBot]),
)
def test_solver_verdicts_agree_with_the_bots_play(
    variant: str, seed: int, k: int, factory: type[Bot]
) -> None:
    # "won" replays to a won game; a bot (which cannot do better than a won line exists)
    # never wins what the solver called "lost".
    game = endgame(variant, random.Random(seed), k)
    s = solve(game, nodes=20_000)
    if s.verdict == "won":
        replay = game.copy()
        for move in s.moves:
            replay.play(move)
        assert replay.status == "won"
    bot = start(factory(), variant, race=f"prop-{seed}")
    play_out(bot, game, cap=300)
    if s.verdict == "lost":
        assert game.status != "won"


def test_sampler_plays_the_solvers_line_once_nothing_is_hidden() -> None:
    found = full_foundations(False)
    del found[1][-2:]  # F1 ends at Tc: it wants a red jack, then a black queen
    del found[5][-1:]  # F5 ends at Jd: it wants a black queen
    game = family_game("terrace", foundations=found, terrace_cards=["Jh", "Qc"], piles={1: ["Qs"]})
    line = solve(game, nodes=5_000).moves
    assert line and game.view()["stock"] == 0  # the stock is empty: nothing is hidden
    bot = start(SamplerBot(), "terrace")
    assert bot.choose(game.view(), game.legal_moves()) == line[0]
    assert bot.line == list(line[1:])  # the rest of the solver's line, to play as it is
    game.play(line[0])
    assert play_out(bot, game) == list(line[1:])
    assert game.status == "won"


def test_sampler_asks_no_more_once_the_decider_proved_its_game_lost() -> None:
    # move 190 of the recorded game: the stock is empty (nothing hidden) and no line wins
    game = terrace.replay("terrace", SEED, LOST_AT_189[:190])
    assert game.view()["stock"] == 0
    bot = start(SamplerBot(), "terrace")
    assert bot.solved(game.view(), game.legal_moves()) is None
    assert bot.solved_at == 105 and len(bot.table) > 0  # proven lost: the table keeps the proof
    proven = len(bot.table)
    game.play(sorted(game.legal_moves())[0])
    assert bot.solved(game.view(), game.legal_moves()) is None
    assert len(bot.table) == proven  # not asked again
    # a position still winnable, in a new game: asked as before (the table starts afresh)
    bot.start({"race": "another", "variant": "terrace", "goal": "clear"})
    assert len(bot.table) == 0


class Scripted(SamplerBot):
    """The sampler with its playouts' values scripted (move -> one value per guess, in order),
    to watch how it shares its guesses out between candidates."""

    def __init__(self, script: dict[str, list[float]]) -> None:
        super().__init__()
        self.script = script
        self.calls: Counter[str] = Counter()

    def value(self, game: Any, move: str, steps: int) -> float:
        i = self.calls[move]
        self.calls[move] += 1
        return self.script[move][i]


def compare(script: dict[str, list[float]]) -> tuple[str, Counter[str]]:
    game = terrace.new_game("terrace", deal=2)
    game.play("1-F1")  # the stock still hidden: guesses are needed
    view = json.loads(json.dumps(game.view()))
    bot = start(Scripted(script), "terrace")
    own = bot.imagine(view, terrace.solve.imagine.unseen(view))
    return bot.compare(list(script), view, own), bot.calls


def test_sampler_stops_at_once_when_the_playouts_cannot_tell_the_moves_apart() -> None:
    same = [70.0, 80.0, WIN, 60.0]
    move, calls = compare({"a": same, "b": same, "c": same})
    assert move == "a"  # the solver's first choice
    assert calls == {"a": FIRST_ROUND, "b": FIRST_ROUND, "c": FIRST_ROUND}


def test_sampler_plays_a_move_far_ahead_without_more_guesses() -> None:
    move, calls = compare({"a": [70.0] * 4, "b": [WIN, WIN, WIN, 70.0], "c": [60.0] * 4, "d": [50.0] * 4})
    assert move == "b"
    assert set(calls.values()) == {FIRST_ROUND}


def test_sampler_gives_a_close_choice_more_guesses_between_the_best_two() -> None:
    rest = [0.0] * LAST_ROUND
    move, calls = compare(
        {
            "a": [WIN, 70.0, 70.0, 70.0, *rest],  # ahead after the first round by one win
            "b": [70.0, 70.0, 70.0, 71.0, WIN, WIN, *rest[2:]],  # ahead over both
            "c": [60.0] * 4,
            "d": [50.0] * 4,
        }
    )
    assert move == "b"
    assert calls == {
        "a": FIRST_ROUND + LAST_ROUND,
        "b": FIRST_ROUND + LAST_ROUND,
        "c": FIRST_ROUND,
        "d": FIRST_ROUND,
    }
