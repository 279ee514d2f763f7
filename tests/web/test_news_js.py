"""The pages say what a move did in the words of the core: news.js against terrace.rules.news."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import RaceServer
from terrace.rules.news import KINDS, news, sentence
from tests.terrace.rules.test_news import SAID

from .conftest import http_url

pytestmark = pytest.mark.asyncio(loop_scope="module")

RUN = """async (events) => {
  const n = await import("/static/news.js");
  return { each: events.map(n.sentence), all: n.news(events), none: n.news([]) };
}"""


async def test_the_pages_say_each_event_as_the_core_does_on_every_kind(server: RaceServer, page: Any) -> None:
    await page.goto(http_url(server))
    events = [event for event, _ in SAID]
    assert {e["type"] for e in events} >= set(KINDS)
    got = await page.evaluate(RUN, events)
    assert got["each"] == [sentence(e) for e in events]
    assert got["all"] == news(events) and got["none"] == ""
