"""terrace.solve: a found win replays to a won game, "lost" is proven, a spent budget says "unknown"."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import terrace
from terrace.rules.family import FamilyGame
from terrace.solve import LOST, UNKNOWN, WON, check_line, first_choices, playout, solve
from terrace.solve.family import FamilyAdapter
from terrace.solve.search import search
from tests.terrace.positions import family_game, louis_game, run

VARIANTS = list(terrace.VARIANTS)


def louis_endgame(heaps: dict[str, list[str]]) -> terrace.Game:
    """Louis's last deal: every foundation complete but clubs (Ac up to 9c, Kc down to 4c)."""
    found = {f"A{s}": run("A", s, 13) for s in "dhs"} | {f"K{s}": run("K", s, 13, up=False) for s in "dhs"}
    found |= {"Ac": run("A", "c", 9), "Kc": run("K", "c", 10, up=False)}
    return louis_game(heaps=heaps, foundations=found, deal_no=3)


def all_wins(game: terrace.Game, depth: int = 12) -> list[tuple[str, ...]]:
    """Every winning line (no position twice on a line), by brute force over the legal moves."""
    out: list[tuple[str, ...]] = []

    def walk(g: terrace.Game, line: tuple[str, ...], keys: frozenset[str]) -> None:
        if g.status == "won":
            out.append(line)
            return
        if len(line) < depth:
            for move in sorted(g.legal_moves()):
                h = g.copy()
                h.play(move)
                if h.position_key() not in keys:
                    walk(h, (*line, move), keys | {h.position_key()})

    walk(game, (), frozenset({game.position_key()}))
    return out


def test_finds_the_only_winning_line_of_a_hand_built_position() -> None:
    # Tc must go home before Jc can, and Jc waits on Qc: only heap c onto heap d first
    # (3c on 2c's neighbour) opens the way; d onto c buries the 3c for good.
    g = louis_endgame({"d": ["Kc", "Tc", "Ac"], "b": ["Jc", "Qc"], "c": ["3c", "2c"]})
    assert sorted(g.legal_moves()) == ["c-d", "d-c"]
    only = all_wins(g)
    assert len(only) == 1
    s = solve(g, nodes=10_000)
    assert (s.verdict, s.moves) == (WON, only[0])
    assert g.moves == [] and g.status == "playing"  # the game itself is not changed


def full_foundations(suit_mode: bool) -> dict[int, list[str]]:
    """Eight complete foundations on base K: alternate colours, or one suit each."""
    ranks = ["K", "A", *"23456789TJQ"]
    pairs = (
        ["cc", "cc", "dd", "dd", "hh", "hh", "ss", "ss"] if suit_mode else ["ch", "hc"] * 2 + ["sd", "ds"] * 2
    )
    return {i + 1: [r + pair[j % 2] for j, r in enumerate(ranks)] for i, pair in enumerate(pairs)}


def test_proves_a_lost_position_lost() -> None:
    found = full_foundations(False)
    del found[1][-2:]  # F1 ends at Tc: it wants a red jack, then a black queen
    del found[2][-2:]  # F2 ends at Th: it wants Jc, then Qh
    g = family_game(
        "terrace",
        foundations=found,
        terrace_cards=["Jh", "Qc"],  # the red jack is under the black queen that needs it first
        piles={1: ["Qh"], 2: ["Jc"]},
    )
    assert g.legal_moves()  # Jc and Qh still move: the search has positions to walk
    s = solve(g, nodes=10_000)
    assert s.verdict == LOST and s.moves == ()


def test_wins_where_the_queen_must_take_the_other_foundation() -> None:
    found = full_foundations(False)
    del found[1][-2:]  # F1 ends at Tc: wants a red jack
    del found[5][-1:]  # F5 ends at Jd: wants a black queen
    g = family_game("terrace", foundations=found, terrace_cards=["Jh", "Qc"], stock=["Qs"])
    s = solve(g, nodes=10_000)
    assert s.verdict == WON
    assert "T-F5" in s.moves  # the terrace queen goes to F5, freeing the jack for F1


def test_a_spent_budget_says_unknown_never_lost() -> None:
    g = terrace.new_game("terrace", deal=20)  # deal 5, once used here, is now proven lost at once
    s = solve(g, nodes=200)
    assert s.verdict == UNKNOWN and s.moves == ()
    assert s.nodes <= 200


def test_a_tiny_time_budget_says_unknown() -> None:
    s = solve(terrace.new_game("queen-of-italy", deal=20), nodes=10**7, seconds=0.001)
    assert s.verdict == UNKNOWN


def test_same_budget_same_answer() -> None:
    a = solve(terrace.new_game("terrace", deal=2), nodes=4_000)
    b = solve(terrace.new_game("terrace", deal=2), nodes=4_000)
    assert (a.verdict, a.moves, a.nodes) == (b.verdict, b.moves, b.nodes)


def test_a_won_game_needs_no_moves() -> None:
    g = family_game("terrace", foundations=full_foundations(False))
    assert solve(g, nodes=1).verdict == WON


def test_check_line_refuses_a_tampered_line() -> None:
    g = louis_endgame({"d": ["Kc", "Tc", "Ac"], "b": ["Jc", "Qc"], "c": ["3c", "2c"]})
    line = list(solve(g, nodes=10_000).moves)
    assert check_line(g, line)
    assert not check_line(g, ["d-c", *line[1:]])  # illegal on the way
    assert not check_line(g, line[:-1])  # legal but short of a win


@given(st.sampled_from(VARIANTS), st.integers(1, 100_000), st.integers(50, 3_000))
def test_every_line_found_replays_from_the_deal_to_a_won_game(variant: str, deal: int, nodes: int) -> None:
    s = solve(terrace.new_game(variant, deal=deal), nodes=nodes)
    assert s.verdict in (WON, LOST, UNKNOWN)
    if s.verdict == WON:
        assert terrace.replay(variant, deal, s.moves).status == "won"
    else:
        assert s.moves == ()


def endgame(variant: str, rng: random.Random, k: int) -> FamilyGame:
    """Complete foundations with ``k`` top cards scattered over terrace, waste, stock and piles."""
    found = full_foundations(terrace.VARIANTS[variant].foundation_match == "suit")
    loose: list[str] = []
    taken = rng.sample(sorted(found), 3)  # long chains on few foundations: orders that block
    for _ in range(k):
        loose.append(found[rng.choice(taken)].pop())
    rng.shuffle(loose)
    places: dict[str, list[str]] = {}
    for card in loose:
        places.setdefault(rng.choice(["T", "T", "T", "W", "W", "S", "S", *"123456789"]), []).append(card)
    return family_game(
        variant,
        foundations=found,
        terrace_cards=places.pop("T", []),
        waste=places.pop("W", []),
        stock=places.pop("S", []),
        piles={int(p): cards for p, cards in places.items()},
    )


@settings(max_examples=200)  # cheap: small endgames
@given(st.sampled_from(["terrace", "queen-of-italy", "signora"]), st.integers(0, 10**6), st.integers(2, 12))
def test_safe_moves_never_change_the_answer(variant: str, seed: int, k: int) -> None:
    g = endgame(variant, random.Random(seed), k)
    pruned = solve(g, nodes=50_000)
    full = search(g, FamilyAdapter(g, safe=False), 200_000)
    if UNKNOWN not in (pruned.verdict, full.verdict):
        assert pruned.verdict == full.verdict


def test_first_choices_depend_only_on_what_the_player_sees() -> None:
    game = terrace.new_game("queen-of-italy", deal=9)
    for move in ("2-F1", "S-W", "S-W"):
        game.play(move)
        twin = game.copy()
        rng = random.Random(len(game.moves))
        rng.shuffle(twin._places[2])  # the same view, another stock order
        assert twin.view() == game.view()
        assert first_choices(twin) == first_choices(game)
        assert set(first_choices(game)) <= set(game.legal_moves())


def test_a_playout_finishes_an_easy_endgame_and_leaves_the_game_alone() -> None:
    g = louis_endgame({"d": ["Kc", "Tc", "Ac"], "b": ["Jc", "Qc"], "c": ["3c", "2c"]})
    assert playout(g).status == "won"  # its first choice, c-d, is the winning one here
    assert g.moves == [] and g.status == "playing"
    won = family_game("terrace", foundations=full_foundations(False))
    assert playout(won)._won()
