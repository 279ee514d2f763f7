"""Won, lost and playing (docs/rulebook.md, "When a game is lost"), decided by the shuffle-move search."""

from __future__ import annotations

import copy
import random

import pytest

import terrace
import terrace.rules.game
from terrace.rules import family
from tests.terrace.positions import SLOW_MOVE, family_game, run, slow_search_position


def test_a_position_with_a_progress_move_is_playing() -> None:
    g = family_game("terrace", piles={1: ["9s"]}, stock=["2c"])
    assert g.status == "playing"


def test_no_moves_at_all_is_lost() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s"], 2: ["4s"]})
    assert g.legal_moves() == [] and g.status == "lost"


def test_shuttling_cards_forever_is_lost_even_with_legal_moves() -> None:
    # The 8h can hop between the 9s and the 9c for ever; nothing ever goes home.
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"]})
    assert g.legal_moves() == ["1-2"]
    assert g.status == "lost"


def test_progress_reachable_through_shuffles_is_still_playing() -> None:
    # Moving the 5c onto the 6h uncovers the Ah, which goes home.
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "5c"], 2: ["6h"]})
    assert g.status == "playing"


def test_neighbour_where_the_uncovering_shuffle_is_impossible_is_lost() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "5c"], 2: ["6s"]})
    assert g.status == "lost"


def test_deep_search_finds_progress_several_shuffles_away() -> None:
    # 5c must go to the 6h, then the 4d onto it, uncovering the Ah.
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    assert g.status == "playing"


def test_the_search_puts_every_card_back() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    before = g.view()
    assert g.status == "playing"
    before["status"] = "playing"
    assert g.view() == before


def test_search_that_passes_the_limit_counts_as_playing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terrace.rules.game, "SEARCH_LIMIT", 2)
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"], 3: ["9s"]})
    assert g.status == "playing"
    monkeypatch.setattr(terrace.rules.game, "SEARCH_LIMIT", 20_000)
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"], 3: ["9s"]})
    assert g.status == "lost"


# Nine piles whose tops take nothing from each other, so signora has no gap to use.
_NO_GAPS = {i + 1: [c] for i, c in enumerate(["9s", "9c", "9s", "9c", "Js", "Jc", "Js", "Jc", "7d"])}


def test_signora_is_lost_with_stock_left_when_the_waste_top_is_stuck_after_the_recycle() -> None:
    g = family_game(
        "signora", foundations={1: ["Kc"]}, piles=_NO_GAPS, waste=["4s"], stock=["Ac"], recycled=True
    )
    assert g.legal_moves() == [] and g.status == "lost"


def test_signora_after_recycle_is_playing_when_the_waste_top_can_pack() -> None:
    g = family_game(
        "signora", foundations={1: ["Kc"]}, piles=_NO_GAPS, waste=["8h"], stock=["Ac"], recycled=True
    )
    assert g.status == "playing"  # W-1 empties the waste, then S-W is legal


def _one_from_won() -> terrace.Game:
    full = {i + 1: run("K", s, 13) for i, s in enumerate("cdhscdh")}
    return family_game("signora", foundations=full | {8: run("K", "s", 12)}, piles={1: ["Qs"]})


def test_last_card_home_wins_and_ends_the_game() -> None:
    g = _one_from_won()
    g.play("1-F8")
    assert g.status == "won" and g.score == 104
    assert g.legal_moves() == []
    assert g.last_events[-1] == {"type": "game_over", "status": "won"}
    with pytest.raises(terrace.IllegalMove) as e:
        g.play("S-W")
    assert e.value.code == "game_over"


def test_events_report_cards_home_and_the_terrace_emptied() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, terrace_cards=["Ah"], stock=["2c"])
    g.play("T-F1")
    assert g.last_events == [{"type": "home", "card": "Ah", "to": "F1"}, {"type": "terrace_cleared"}]
    g.play("S-W")
    assert g.last_events == [{"type": "turned"}]


def test_a_lost_game_still_accepts_its_shuffle_moves() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"]})
    assert g.status == "lost"
    g.play("1-2")
    assert g.status == "lost" and g.last_events[-1] == {"type": "game_over", "status": "lost"}


def test_a_revisited_position_reuses_its_long_search() -> None:
    # After SLOW_MOVE the search runs to its limit; moving the 6h away and back revisits it.
    g = slow_search_position()
    g.play(SLOW_MOVE)
    assert g.status == "playing" and g.searched == terrace.rules.game.SEARCH_LIMIT
    g.play("9-7")
    assert g.status == "playing"
    g.play("7-9")
    assert g.quick_status() == "playing"
    assert g.searched <= terrace.rules.game.QUICK_SEARCH  # only the short try ran


def test_a_short_search_is_redone_rather_than_remembered() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"]})
    assert g.status == "lost" and 0 < g.searched <= terrace.rules.game.QUICK_SEARCH
    assert g._memo == {}


def test_a_remembered_result_is_not_reused_for_a_different_position() -> None:
    g = slow_search_position()
    g.play(SLOW_MOVE)
    assert g.status == "playing"
    h = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"]})
    h.share_searches(g)  # only an identical position may hit the shared results
    assert h.status == "lost"


def test_a_pickled_game_leaves_its_remembered_results_behind() -> None:
    import pickle

    g = slow_search_position()
    g.play(SLOW_MOVE)
    assert g.status == "playing" and g._memo
    copy = pickle.loads(pickle.dumps(g))
    assert copy._memo == {} and copy.view() == g.view()


def test_quick_status_decides_a_short_search_within_its_budget() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["Ah", "4d"], 2: ["7s", "5c"], 3: ["6h"]})
    assert g.quick_status(budget=0) is None  # no budget: only the search can tell
    assert g.quick_status(budget=50) == "playing"
    assert 0 < g.searched <= 50


def test_quick_status_leaves_a_search_past_its_budget_undecided() -> None:
    # the 8h can visit three nines: deciding "lost" takes more than two positions
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"], 3: ["9s"]})
    assert g.quick_status(budget=2) is None
    assert g.status == "lost"  # the full search still decides it


def test_quick_status_within_budget_finds_a_lost_game() -> None:
    g = family_game("terrace", foundations={1: ["Kc"]}, piles={1: ["9s", "8h"], 2: ["9c"]})
    assert g.quick_status(budget=50) == "lost"


def test_games_sharing_searches_search_a_long_position_once() -> None:
    g, h = slow_search_position(), slow_search_position()
    h.share_searches(g)
    g.play(SLOW_MOVE)
    h.play(SLOW_MOVE)
    assert g.position_key() == h.position_key()
    assert g.status == "playing" and g.searched == terrace.rules.game.SEARCH_LIMIT
    assert h.quick_status() == "playing" and h.searched <= terrace.rules.game.QUICK_SEARCH


# ----- the engine's own search moves -----------------------------------------------------------


def _reference_search(g: terrace.Game, legal: list[tuple[int, int]], limit: int) -> tuple[bool | None, int]:
    """The lost search as it was written before the engines had their own search moves (every
    move of every position generated, then checked for progress; the walk as it was): the
    reference the search must agree with, position for position. (result, positions seen)"""
    places = g._places
    loose, fixed = g._search_places()
    below = bytearray([254] * 104)
    for i in loose:
        for depth, card in enumerate(places[i]):
            below[card] = places[i][depth - 1] if depth else 255
    marker = {place: 200 + n for n, place in enumerate(fixed)}
    for place, mark in marker.items():
        for card in places[place]:
            below[card] = mark

    def relocate(src: int, dst: int) -> None:
        card = places[src].pop()
        pile = places[dst]
        below[card] = marker.get(dst) or (pile[-1] if pile else 255)
        pile.append(card)

    seen = {bytes(below)}
    path: list[tuple[int, int]] = []
    stack = [iter(legal)]
    result: bool | None = False
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if path:
                src, dst = path.pop()
                relocate(dst, src)
            continue
        relocate(*move)
        key = bytes(below)
        if key in seen:
            relocate(move[1], move[0])
            continue
        seen.add(key)
        path.append(move)
        moves = g._generate()
        if g._any_progress(moves):
            result = True
            break
        if len(seen) >= limit:
            result = None
            break
        stack.append(iter(moves))
    while path:
        src, dst = path.pop()
        relocate(dst, src)
    return result, len(seen)


def _both_searches(g: terrace.Game, limit: int) -> tuple[tuple[bool | None, int], tuple[bool | None, int]]:
    """(result, positions seen) of the lost search from ``g``, and of the reference search; each
    puts every card back."""
    legal = g._legal_pairs()
    before = copy.deepcopy(g._places)
    search = g._progress_reachable(legal, limit), g.searched
    assert g._places == before
    reference = _reference_search(g, list(legal), limit)
    assert g._places == before
    return search, reference


def _positions_without_progress(variant: str, wanted: int) -> list[terrace.Game]:
    """Random positions (cards dealt at random to the places, a few on each foundation, a base
    rank, a stock or none, recycled or not) where no legal move is a progress move: the lost
    search's roots."""
    rng = random.Random(variant)
    found: list[terrace.Game] = []
    while len(found) < wanted:
        g = terrace.new_game(variant, 1)
        cards = list(range(104))
        rng.shuffle(cards)
        places: list[list[int]] = [[] for _ in family.PLACE_NAMES]
        sizes = {family.T: rng.randint(0, 4), family.W: rng.randint(0, 3), family.S: rng.choice([0, 0, 3])}
        sizes |= {f: rng.randint(0, 3) for f in family.FOUNDATIONS}
        sizes |= {i: rng.choice([0, 1, 2, 3, 5]) for i in family.PILES}
        for place, n in sizes.items():
            places[place], cards = cards[:n], cards[n:]
        g._places = places
        g._base = rng.randint(1, 13)
        g._recycles_left = rng.choice([0, g.variant.recycles])
        g._legal = g._status = None
        pairs = g._legal_pairs()
        if pairs and not g._any_progress(pairs):
            found.append(g)
    return found


@pytest.mark.parametrize("variant", ["terrace", "queen-of-italy", "signora"])
def test_the_lost_search_agrees_with_the_reference_position_for_position(variant: str) -> None:
    """The lost search (the family engine's own search moves: foundations and stock worked out
    once, a card into one gap only; a seen position found without moving the card) gives the
    same result after the same number of positions as the reference: its answers are unchanged,
    only faster."""
    for g in _positions_without_progress(variant, 300):
        search, reference = _both_searches(g, 3_000)
        assert search == reference, g


def test_the_lost_search_agrees_with_the_reference_on_the_longest_known_search() -> None:
    g = slow_search_position()
    g.play(SLOW_MOVE)
    search, reference = _both_searches(g, terrace.rules.game.SEARCH_LIMIT)
    assert search == reference == (None, terrace.rules.game.SEARCH_LIMIT)


def test_louis_search_agrees_with_the_reference() -> None:
    """Louis keeps the generic search moves; the walk is the same as the reference's, on the
    roots random games of 200 deals come to (some hundred)."""
    roots = 0
    for deal in range(200):
        rng = random.Random(deal)
        g = terrace.new_game("louis", deal)
        for _ in range(300):
            legal = g._legal_pairs()
            if not legal:
                break
            if not g._any_progress(legal):  # a root of the lost search
                search, reference = _both_searches(g, 2_000)
                assert search == reference, (deal, g)
                roots += 1
            g.play(rng.choice(g.legal_moves()))
    assert roots >= 100
