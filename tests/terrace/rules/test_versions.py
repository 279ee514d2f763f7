"""Rules versions (docs/rulebook.md, "Rules versions"): games keep the version they are played
under, version 1 keeps the Louis rules from before version 2, and nothing else changed."""

from __future__ import annotations

import random

import pytest

import terrace
from terrace.rules.versions import RULES, rules_of
from terrace.solve.imagine import imagine, unseen
from tests.terrace.cited import LOUIS_1, LOUIS_979, louis_line
from tests.terrace.positions import louis_game, moves_of, run

HEARTS_AROUND_7 = {"Ah": run("A", "h", 6), "Kh": run("K", "h", 6, up=False)}
FAMILY = ["terrace", "queen-of-italy", "signora"]


def test_current_rules_version_is_2_and_new_games_use_it() -> None:
    assert terrace.RULES_VERSION == 2 == max(RULES)
    assert sorted(RULES) == [1, 2]
    for variant in terrace.VARIANTS:
        assert terrace.new_game(variant, deal=1).rules_version == 2
        assert terrace.replay(variant, 1, []).rules_version == 2


@pytest.mark.parametrize("variant", list(terrace.VARIANTS))
def test_a_game_keeps_the_rules_version_it_was_made_with(variant: str) -> None:
    g = terrace.new_game(variant, deal=3, rules_version=1)
    assert g.rules_version == 1 and g.rules == RULES[1]
    assert g.copy().rules_version == 1
    assert terrace.replay(variant, 3, [], rules_version=1).rules_version == 1


@pytest.mark.parametrize("version", [0, 3, -1, "2", 2.0, True, None])
def test_an_unknown_rules_version_is_refused(version: object) -> None:
    with pytest.raises(ValueError, match="unknown rules version"):
        terrace.new_game("louis", deal=1, rules_version=version)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="this engine knows 1, 2"):
        rules_of(version)


def test_every_version_says_what_it_changed() -> None:
    assert all(r.summary.endswith(".") and r.version == v for v, r in RULES.items())


# ----- version 1: Louis before the book's reading -----------------------------------------------


def test_version_1_redeals_as_soon_as_the_stock_is_out_even_while_a_card_can_go_home() -> None:
    old = louis_game(heaps={"a": ["3h"], "b": ["2h"]}, rules_version=1)
    assert {"redeal", "b-Ah"} <= moves_of(old)
    assert old.play("redeal") == "redeal"
    new = louis_game(heaps={"a": ["3h"], "b": ["2h"]})
    assert "redeal" not in moves_of(new)


def test_version_1_releases_an_abeyance_card_that_fits_both_sides_to_either() -> None:
    for side in ("Ah", "Kh"):
        old = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"}, rules_version=1)
        assert {"Xh-Ah", "Xh-Kh"} <= moves_of(old)
        assert old.play(f"Xh-{side}") == f"Xh-{side}"
        assert old.view()["foundations"][side][-1] == "7h"
    new = louis_game(foundations=HEARTS_AROUND_7, abeyance={"Xh": "7h"})
    assert not any(m.startswith("Xh") for m in new.legal_moves())


def test_version_1_counts_an_abeyance_card_that_fits_both_sides_as_progress() -> None:
    for version, status in ((1, "playing"), (2, "lost")):
        g = louis_game(
            foundations=HEARTS_AROUND_7,
            abeyance={"Xh": "7h"},
            heaps={"a": ["9c"]},
            deal_no=3,
            rules_version=version,
        )
        assert g.status == status


def test_cited_positions_under_version_1_offer_what_version_2_refuses() -> None:
    g979 = louis_line(979, LOUIS_979, rules_version=1)
    assert {"redeal", "l-Kd"} <= moves_of(g979)
    g1 = louis_line(1, LOUIS_1, rules_version=1)
    assert {"Xc-Ac", "Xc-Kc"} <= moves_of(g1)


def _walk(variant: str, deal: int, steps: int, rng: random.Random) -> list[str]:
    """A random playout under the current rules, mostly progress moves."""
    g = terrace.new_game(variant, deal=deal)
    for _ in range(steps):
        legal = sorted(g.legal_moves())
        if not legal or g.status != "playing":
            break
        homes = [m for m in legal if m.partition("-")[2][:1] in "FAKX" or m[:2] == "S-" or m == "redeal"]
        g.play(rng.choice(homes if homes and rng.random() < 0.8 else legal))
    return g.moves


@pytest.mark.parametrize("deal", range(1, 7))
def test_version_2_louis_allows_only_moves_version_1_allowed(deal: int) -> None:
    moves = _walk("louis", deal, 500, random.Random(deal))
    old = terrace.new_game("louis", deal=deal, rules_version=1)
    new = terrace.new_game("louis", deal=deal)
    for move in moves:
        assert set(new.legal_moves()) <= set(old.legal_moves())
        old.play(move)
        new.play(move)
    assert old.view() | {"status": None} == new.view() | {"status": None}


@pytest.mark.parametrize("variant", FAMILY)
@pytest.mark.parametrize("deal", range(1, 5))
def test_terrace_family_plays_the_same_under_both_versions(variant: str, deal: int) -> None:
    moves = _walk(variant, deal, 400, random.Random(deal))
    old = terrace.new_game(variant, deal=deal, rules_version=1)
    new = terrace.new_game(variant, deal=deal)
    for move in moves:
        assert set(old.legal_moves()) == set(new.legal_moves())
        assert old.status == new.status
        assert old.play(move) == new.play(move)
    assert old.view() == new.view()


def test_imagine_builds_a_game_under_the_rules_version_it_is_given() -> None:
    view = louis_line(1, LOUIS_1, rules_version=1).view()  # the 8c waits in abeyance
    old = imagine(view, unseen(view), rules_version=1)
    assert old.rules_version == 1 and moves_of(old) == {"S-k", "Xc-Ac", "Xc-Kc"}
    new = imagine(view, unseen(view))
    assert new.rules_version == 2 and moves_of(new) == {"S-k"}
