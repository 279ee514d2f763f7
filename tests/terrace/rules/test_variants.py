"""The variant table and the readable forms of a game."""

from __future__ import annotations

import json

import terrace


def test_four_variants_with_their_goals() -> None:
    assert list(terrace.VARIANTS) == ["terrace", "queen-of-italy", "signora", "louis"]
    assert terrace.VARIANTS["louis"].goals == ("clear",)
    assert all(v.goals == ("terrace", "clear") for k, v in terrace.VARIANTS.items() if k != "louis")


def test_variants_differ_only_in_their_switches() -> None:
    v = terrace.VARIANTS
    assert (v["terrace"].foundation_match, v["signora"].foundation_match) == ("colour", "suit")
    assert v["queen-of-italy"].autofill_gaps and not v["terrace"].autofill_gaps
    assert (v["signora"].gap_fill, v["signora"].recycles, v["signora"].terrace_freed_late) == ("any", 1, True)
    assert v["louis"].deals == 3


def test_variant_description_is_plain_data() -> None:
    d = terrace.VARIANTS["signora"].to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["id"] == "signora" and d["goals"] == ["terrace", "clear"] and d["summary"]


def test_str_draws_the_family_board() -> None:
    g = terrace.new_game("terrace", deal=1)
    g.play("2-F1")
    text = str(g)
    assert "terrace: Kc Ah Js 4h Ah 4h 5d 7s Qc Tc 8c" in text
    assert "F1:Ts" in text and " 2: As" in text and "stock: 83" in text
    assert g.last_events == [{"type": "base", "card": "Ts", "rank": "T"}]


def test_str_draws_the_louis_board() -> None:
    g = terrace.new_game("louis", deal=1)
    g.play("deal")
    assert g.last_events == [{"type": "dealt", "heap": "a"}]
    text = str(g)
    assert " a: 9d" in text and "next heap: b" in text and "Ac:Ac" in text
