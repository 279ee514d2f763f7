"""DEAL-V1 and SHA-256 as the pages compute them, against the published test vectors and Python."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from server.app import RaceServer
from terrace.race.audit import deck_of
from terrace.rules.cards import NAME
from terrace.rules.deal import commitment, shuffle

from .conftest import http_url

pytestmark = pytest.mark.asyncio(loop_scope="module")

RUN = """async ([variant, seedHex]) => {
  const d = await import("/static/deal.js");
  const seed = d.unhex(seedHex);
  const deck = await d.shuffle(d.deckOf(variant), seed);
  const text = new TextEncoder().encode("terrace-commit:");
  const joined = new Uint8Array([...text, ...seed]);
  return {
    deck: deck.map((c) => d.NAME[c]),
    commitment: await d.commitment(seed),
    plain: d.hex(d.sha256js(joined)),
    webcrypto: d.hasWebCrypto(),
  };
}"""


async def test_the_pages_deal_and_hash_as_the_server_does(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server))
    for seed in (bytes(range(32)), b"terrace-deal:1", random.Random(7).randbytes(32)):
        for variant in ("terrace", "louis"):
            got = await page.evaluate(RUN, [variant, seed.hex()])
            assert got["deck"] == [NAME[c] for c in shuffle(deck_of(variant), seed)]
            assert got["commitment"] == got["plain"] == commitment(seed)
            assert got["webcrypto"] is True
    vector = await page.evaluate(RUN, ["terrace", bytes(range(32)).hex()])
    assert vector["deck"][:5] == ["Th", "4d", "9d", "2s", "Td"]
    assert vector["commitment"] == "4287d1ba51577c16ea6ac2dae8ad9bd75e7a44cc5a6243409b97bbd75f80097e"
    numbered = await page.evaluate(RUN, ["terrace", b"terrace-deal:1".hex()])
    assert numbered["deck"][:5] == ["Kc", "Ah", "Js", "4h", "Ah"]
    louis = await page.evaluate(RUN, ["louis", b"terrace-deal:1".hex()])
    assert louis["deck"][:5] == ["9d", "5d", "Jh", "8s", "3d"]


async def test_the_plain_javascript_sha256_matches_at_every_padding_length(
    server: RaceServer, page: Any
) -> None:
    """Pages served over http:// to another host have no WebCrypto: they hash in plain JS."""
    await page.goto(http_url(server))
    digests = await page.evaluate(
        """async () => {
          const d = await import("/static/deal.js");
          return Array.from({ length: 130 }, (_, n) => d.hex(d.sha256js(Uint8Array.from({ length: n }, (_, i) => i))));
        }"""
    )
    assert digests == [hashlib.sha256(bytes(range(n))).hexdigest() for n in range(130)]
