"""A race on a known deal, played over the wire: a fixed 32-byte seed, with the moves of
``tests/terrace/solve/games.py`` (winnable until move index 189, which lost it).

The server deals random seeds; the test hands its registry this deal the way a winnable-only
race gets its drawn deal (:class:`server.races.winnable.Drawn`), then everything else is the real
protocol: the player joins, the race starts, every move is sent and checked by the server.
"""

from __future__ import annotations

from server.app import RaceServer
from server.races.winnable import Drawn
from terrace import RULES_VERSION, new_game
from terrace.race import RaceRules
from terrace.solve import solve
from tests.terrace.solve.games import LOST_AT_189, SEED

from .wire import Client


async def race_lost_at_189(server: RaceServer, player: Client, *others: Client) -> str:
    """A race on ``SEED`` that ``player`` (welcomed) plays to its end (stuck after 209 moves);
    ``others`` (welcomed) take the other seats and resign at once."""
    line = list(solve(new_game("terrace", SEED, rules_version=RULES_VERSION)).moves)
    rules = RaceRules("terrace", "terrace", 1 + len(others), 900, "all", "full")
    driver = server.registry.new(rules, None, Drawn(SEED, line))
    driver.apply(driver.race.opened())
    race = driver.id
    for c in (player, *others):
        assert (await c.request("join", race=race))["type"] == "joined"
    for c in (player, *others):
        await c.wait(lambda m: m.get("type") == "started" and m["race"] == race)
    for c in others:
        assert (await c.request("resign", race=race))["type"] == "resigned"
    for seq, move in enumerate(LOST_AT_189, 1):
        answer = await player.request("move", race=race, seq=seq, move=move)
        assert answer["type"] == "moved", answer
    assert answer.get("finish") == "stuck", answer
    await player.wait(lambda m: m.get("type") == "finished" and m["race"] == race)
    return race
