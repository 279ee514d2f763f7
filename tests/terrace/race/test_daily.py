"""The daily deal's sans-I/O rules: UTC days, seeds from a secret (the same for everyone who holds
it, proven winnable), and the board's order."""

from __future__ import annotations

import pytest

import terrace
from terrace.errors import ProtocolError
from terrace.race.daily import (
    NOT_REACHED,
    DailyDeal,
    board_row,
    board_value,
    candidate,
    day_end,
    day_of,
    draw,
    parse_day,
    shift,
)
from terrace.rules.deal import commitment
from terrace.wire.protocol import as_message, check_request

SECRET = bytes(range(32))


def test_days_are_utc_and_end_at_midnight() -> None:
    assert day_of(1_795_000_000) == "2026-11-18"
    assert day_of(day_end("2026-11-18") - 0.001) == "2026-11-18"
    assert day_of(day_end("2026-11-18")) == "2026-11-19"
    assert shift("2026-12-31", 1) == "2027-01-01" and shift("2026-03-01", -1) == "2026-02-28"


@pytest.mark.parametrize("text", ["2026-11-18", "2024-02-29"])
def test_a_day_is_read_only_as_yyyy_mm_dd(text: str) -> None:
    assert parse_day(text) == text


@pytest.mark.parametrize("text", ["2026-11-31", "2025-02-29", "18-11-2026", "2026-1-18", "20261118", "today"])
def test_anything_else_is_no_day(text: str) -> None:
    assert parse_day(text) is None


def test_candidates_depend_on_secret_variant_day_and_counter() -> None:
    base = candidate(SECRET, "terrace", "2026-11-18", 0)
    assert base == candidate(SECRET, "terrace", "2026-11-18", 0) and len(base) == 32
    others = {
        candidate(bytes(32), "terrace", "2026-11-18", 0),
        candidate(SECRET, "signora", "2026-11-18", 0),
        candidate(SECRET, "terrace", "2026-11-19", 0),
        candidate(SECRET, "terrace", "2026-11-18", 1),
    }
    assert base not in others and len(others) == 4


def test_the_days_deal_is_the_first_candidate_proven_winnable_and_its_line_wins() -> None:
    deal = draw(SECRET, "terrace", "2026-11-18", terrace.RULES_VERSION)
    assert deal.seed == candidate(SECRET, "terrace", "2026-11-18", deal.counter)
    assert terrace.replay("terrace", deal.seed, deal.solution).status == "won"
    assert deal.commitment == commitment(deal.seed)
    assert draw(SECRET, "terrace", "2026-11-18", terrace.RULES_VERSION) == deal  # every node draws it alike
    assert DailyDeal.of(deal.stored()) == deal


def test_the_board_ranks_goal_times_then_cards_home_then_the_last_card_home() -> None:
    order = [
        board_value(61_000, 0, None),
        board_value(90_000, 0, None),
        board_value(None, 40, 100_000),
        board_value(None, 40, 200_000),
        board_value(None, 39, 5_000),
        board_value(None, 0, None),
    ]
    assert order == sorted(order) and len(set(order)) == len(order)
    assert board_row(1, {"name": "a"}, order[0]) == {
        "rank": 1,
        "player": {"name": "a"},
        "time": 61_000,
        "score": None,
        "goal": True,
    }
    assert board_row(3, {"name": "b"}, order[2])["score"] == 40 and order[2] >= NOT_REACHED
    assert board_row(6, {"name": "c"}, order[5])["score"] == 0


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "daily"}, "variant"),
        ({"type": "daily", "variant": "patience"}, "variant"),
        # the day's form (YYYY-MM-DD) is the daily deal's to check (tests/server/test_daily.py)
        ({"type": "daily", "variant": "terrace", "day": "2026-11-01" * 4}, "day"),
        ({"type": "daily", "variant": "terrace", "day": 20261101}, "day"),
        ({"type": "daily", "variant": "terrace", "pool": "everyone"}, "pool"),
        ({"type": "daily_play", "variant": "terrace", "ghosts": 9}, "ghosts"),
        ({"type": "daily_play", "variant": "terrace", "practice": 1}, "practice"),
    ],
)
def test_daily_requests_check_their_fields(message: dict[str, object], field: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        check_request(message)
    assert refused.value.code == "bad_field" and refused.value.fields["field"] == field


def test_a_well_formed_daily_play_keeps_its_fields() -> None:
    asked = {"type": "daily_play", "variant": "louis", "day": "2026-11-18", "practice": True, "ghosts": 0}
    assert as_message(check_request(asked)) == asked
