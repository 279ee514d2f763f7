"""docs/rulebook.md agrees with the engine: its DEAL-V1 code and vectors, its numbers, its
versions; and the rule docs stand alone, pointing at no file outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import terrace
from terrace.rules.cards import NAME
from terrace.rules.deal import commitment, seed_of, shuffle
from terrace.rules.versions import RULES

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = (ROOT / "docs" / "rulebook.md").read_text()
PLAYERS = (ROOT / "docs" / "rules.md").read_text()


def _reference_shuffle() -> object:
    (block,) = re.findall(r"```python\n(.*?)```", RULEBOOK, re.S)
    space: dict[str, object] = {}
    exec(compile(block, "docs/rulebook.md", "exec"), space)
    return space["deal_v1"]


@pytest.mark.parametrize("deal", [1, 2, 979, b"", bytes(range(32)), b"\xff" * 32])
@pytest.mark.parametrize("variant", ["terrace", "louis"])
def test_rulebook_reference_code_deals_as_the_engine_does(deal: int | bytes, variant: str) -> None:
    deal_v1 = _reference_shuffle()
    deck = terrace.VARIANTS[variant].deck()
    assert deal_v1(deck, seed_of(deal)) == shuffle(deck, deal)  # type: ignore[operator]


def test_rulebook_test_vectors_are_the_engines() -> None:
    def first(variant: str, deal: int | bytes) -> str:
        return " ".join(NAME[c] for c in shuffle(terrace.VARIANTS[variant].deck(), deal)[:5])

    table = RULEBOOK.split("**Test vectors.**", 1)[1].split("\n\n## ", 1)[0]
    rows = re.findall(r"^\| (.*?) \| (.*?) \| `(.*?)` \|$", table, re.M)
    vectors = {(seed, cards): dealt for seed, cards, dealt in rows}
    assert vectors == {
        ("numbered deal 1 (`terrace-deal:1`)", "all 104 (Terrace family)"): first("terrace", 1),
        ("numbered deal 1 (`terrace-deal:1`)", "the 96 of Louis"): first("louis", 1),
        ("the 32 bytes `00 01 02 ... 1f`", "all 104"): first("terrace", bytes(range(32))),
    }
    assert f"`{commitment(bytes(range(32)))}`" in RULEBOOK


def test_rulebook_names_the_search_limit_and_every_rules_version() -> None:
    assert f"{terrace.SEARCH_LIMIT:,} distinct positions" in RULEBOOK
    assert f"**rules version {terrace.RULES_VERSION}**" in RULEBOOK
    for version in RULES:
        assert re.search(rf"^\| {version} \| ", RULEBOOK, re.M), version


def test_players_page_gives_each_variant_its_source_and_says_where_queen_of_italy_went() -> None:
    sources = PLAYERS.split("## Sources and choices", 1)[1]
    for variant in terrace.VARIANTS:
        assert re.search(rf"^### .*\(`{variant}`\)", sources, re.M), variant
    assert "| Queen of Italy | the mobile app | **`signora`** |" in sources


# Files outside the repository that the docs must not point at, spelt so this file does not.
OUTSIDE = ["RULES" + ".md", "DESIGN" + ".md", "../" + "shared"]
OURS = ["terrace", "docs", "tests/terrace", "bots/samples", "seeds", "benchmarks"]


@pytest.mark.parametrize("folder", OURS)
def test_rules_docs_and_code_point_inside_the_repository(folder: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and path.suffix in (".py", ".md", ".txt")
        for name in OUTSIDE
        if name in path.read_text()
    ]
    assert found == []
