"""DEAL-V1 (docs/rulebook.md, "Deals: DEAL-V1"): the exact shuffle, its test vectors, commitments."""

import hashlib

import pytest

import terrace
from terrace.rules.cards import NAME
from terrace.rules.deal import commitment, seed_of, shuffle
from terrace.rules.louis import FOUNDATION_CARDS


def test_terrace_family_vector_for_numbered_deal_1() -> None:
    assert [NAME[c] for c in shuffle(range(104), 1)[:5]] == ["Kc", "Ah", "Js", "4h", "Ah"]


def test_louis_vector_for_numbered_deal_1() -> None:
    rest = [c for c in range(104) if c not in FOUNDATION_CARDS]
    assert len(rest) == 96
    assert [NAME[c] for c in shuffle(rest, 1)[:5]] == ["9d", "5d", "Jh", "8s", "3d"]


def test_numbered_deal_is_the_seed_terrace_deal_n() -> None:
    assert seed_of(42) == b"terrace-deal:42"
    assert shuffle(range(104), 42) == shuffle(range(104), b"terrace-deal:42")


def test_shuffle_is_a_permutation_and_seed_dependent() -> None:
    a, b = shuffle(range(104), b"x" * 32), shuffle(range(104), b"y" * 32)
    assert sorted(a) == list(range(104)) and a != b


def test_shuffle_matches_an_independent_reading_of_the_spec() -> None:
    # Written straight from docs/rulebook.md, as another language would.
    seed = bytes(range(32))
    stream = b"".join(hashlib.sha256(seed + k.to_bytes(8, "big")).digest() for k in range(64))
    words = iter(int.from_bytes(stream[i : i + 8], "big") for i in range(0, len(stream), 8))
    a = list(range(104))
    for i in range(103, 0, -1):
        limit = (2**64 // (i + 1)) * (i + 1)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % (i + 1)
        a[i], a[j] = a[j], a[i]
    assert shuffle(range(104), seed) == a


def test_commitment_is_sha256_of_prefixed_seed() -> None:
    seed = b"\x01" * 32
    assert commitment(seed) == hashlib.sha256(b"terrace-commit:" + seed).hexdigest()


@pytest.mark.parametrize("bad", [-1, True, 1.5, "7", None])
def test_bad_deals_are_refused(bad: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        terrace.new_game("terrace", deal=bad)  # type: ignore[arg-type]


def test_unknown_variant_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="terrace, queen-of-italy, signora, louis"):
        terrace.new_game("klondike", deal=1)
