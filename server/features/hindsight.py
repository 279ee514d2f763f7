"""Where was it lost: the ``analysis`` of a finished race, made in the worker pool and kept.

``analysis {race}`` on a finished race answers its analysis when it is made
(``analysis``), or starts making it and answers ``analysing`` with
``retry_after``: the client asks again (it polls; nothing is pushed). Each
player's game is analysed as :func:`terrace.solve.hindsight.analyse_game` does
it (the decider, stock known, within the server's ``analysis_nodes`` per question
and ``analysis_nodes * analysis_probes`` per game): one game's questions share a
table of positions proven lost, so a game is analysed whole in one call in the
server's worker processes, one game at a time, so the event loop never waits for
it, at most one worker is busy with it (the others stay free for the lost search
of live races and for winnable deals), and a server that stops waits for one
game's analysis at most (about ten seconds of one core). The
analysis is saved in the store beside the record (memory or Redis: any node
then answers it) and never made twice at once for one race.

The asker's own game is analysed first, and each game done is told in the ``analysing``
answers (``players``) while the others are made: a person sees their own game within
seconds. The worker's turns are fair by address (:class:`~server.features.fair.FairTurns`):
an address asking about many races gets one game a round, as one asking about one race
does, and an address has at most ``PER_ADDRESS`` races in making, so it cannot fill the
server's slots and keep another address's race out.

A record whose analysis fails (a move list that does not replay: a record changed in the
store by hand) is answered ``internal`` from then on, and logged once; nothing is kept.

Only a finished race is analysed: the handler asks the archive for the record
first, and a live race has none (``not_finished``), so nothing about a live
race's deal leaks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Executor
from typing import Any, cast

from server.config import Config
from server.features.fair import FairTurns
from server.handlers.dispatch import Handler
from server.players.accounts import Player
from server.store import Store, StoreDown
from server.transport.connection import Connection
from terrace.errors import ProtocolError
from terrace.solve.hindsight import analyse_game
from terrace.wire.messages import Analysing, AnalysisAnswer, AnalysisQuery, GameHindsight

log = logging.getLogger("terrace.server")

Message = Mapping[str, Any]

RETRY_AFTER = 1  # seconds a client waits before asking again while an analysis is made
BUSY_RETRY_AFTER = 5  # the same when other races' analyses are being made (one at a time)
RUNNING_AT_ONCE = 16  # races being analysed (one solve at a time among them) before others wait their turn
PER_ADDRESS = 2  # races one address may have in making at once (its others wait: come back later)


# The record of a finished race as the asker may see it (``not_finished``, ``no_race`` else).
Records = Callable[[str, Player | None], Awaitable[Message]]


class Analyses:
    ANONYMOUS = ("analysis",)

    def __init__(self, store: Store, executor: Executor, config: Config, records: Records) -> None:
        self.store = store
        self.records = records
        self.executor = executor
        self.nodes = config.analysis_nodes
        self.probes = config.analysis_probes
        self._running: dict[str, asyncio.Task[None]] = {}  # race id -> its analysis being made
        self._done: dict[str, dict[str, dict[str, Any]]] = {}  # race id -> player id -> game told so far
        self._by_address: dict[str, set[str]] = {}  # address -> races it has in making
        self._turns = FairTurns(1)  # one worker at most (the others serve live races), fair by address
        self._failed: set[str] = set()  # races whose analysis failed: never tried again
        self.stopping = False  # the server is stopping: an analysis cut short is no failure
        self.games = 0  # games analysed in the workers since the start

    def handlers(self) -> dict[str, Handler]:
        return {"analysis": self.on_analysis}

    async def on_analysis(self, conn: Connection, req: AnalysisQuery) -> AnalysisAnswer | Analysing:
        """Hindsight on a finished race; a live race is ``not_finished``; one's own attempt whose
        deal is still secret (a daily attempt before its day is revealed) ``not_revealed``."""
        record = await self.records(req.race, conn.player)
        if "seed" not in record:
            raise ProtocolError("not_revealed", what="This race's deal", when="")
        # whose game first: the asker's own, or the one a page names (it knows no hello)
        first = conn.player.id if conn.player else req.first
        return await self.answer(record, conn.address, first)

    async def answer(
        self, record: Mapping[str, Any], address: str = "", asker: str | None = None
    ) -> AnalysisAnswer | Analysing:
        """The race's analysis, or ``analysing`` while it is made (started here if it is not),
        with the games done so far; ``asker``'s own game is made first."""
        race_id = str(record["id"])
        kept = await self.store.analysis(race_id)
        if kept is not None:
            return cast(AnalysisAnswer, {"type": "analysis", "race": race_id, **kept})
        if race_id in self._failed:
            raise ProtocolError("internal")
        if race_id not in self._running:
            mine = self._by_address.setdefault(address, set())
            # bounded: asking about every race costs nothing more, and no address takes every slot
            if len(self._running) >= RUNNING_AT_ONCE or len(mine) >= PER_ADDRESS:
                return {"type": "analysing", "race": race_id, "retry_after": BUSY_RETRY_AFTER}
            task = asyncio.get_running_loop().create_task(self._make(record, address, asker))
            self._running[race_id] = task
            mine.add(race_id)
            task.add_done_callback(lambda _: self._finished(race_id, address))
        answer: Analysing = {"type": "analysing", "race": race_id, "retry_after": RETRY_AFTER}
        done = self._done.get(race_id)
        if done:  # the games made so far, in the record's order
            rows = [r for r in record["results"] if str(r["player"]["id"]) in done]
            answer["players"] = cast(list[GameHindsight], [done[str(r["player"]["id"])] for r in rows])
        return answer

    async def stop(self) -> None:
        """Cancel the analyses under way, before the server's workers stop (one left to run would
        ask a stopped pool for its next game, and fail); each is made again when next asked."""
        self.stopping = True
        running = list(self._running.values())
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    def _finished(self, race_id: str, address: str) -> None:
        self._running.pop(race_id, None)
        self._done.pop(race_id, None)
        mine = self._by_address.get(address)
        if mine is not None:
            mine.discard(race_id)
            if not mine:
                del self._by_address[address]

    async def _make(self, record: Message, address: str = "", asker: str | None = None) -> None:
        race_id = record["id"]
        try:
            games: dict[tuple[str, ...], dict[str, Any]] = {}  # players who made the same moves: once
            done = self._done.setdefault(race_id, {})
            rows = record["results"]
            for row in sorted(rows, key=lambda r: str(r["player"]["id"]) != asker):  # the asker's first
                moves = tuple(row["move_list"])
                if moves not in games:
                    games[moves] = await self._game(record, list(moves), address)
                    log.debug("race %s: the game of %s analysed", race_id, row["player"]["name"])
                done[str(row["player"]["id"])] = {"player": row["player"], **games[moves]}
            players = [{"player": row["player"], **games[tuple(row["move_list"])]} for row in rows]
            analysis = {
                "hindsight": True,  # found with the stock known, which no player saw
                "budget": {"nodes": self.nodes, "probes": self.probes},
                "players": players,
            }
            await self.store.save_analysis(race_id, analysis)
            log.info("race %s analysed", race_id)
        except StoreDown as exc:  # the next request makes it again
            log.warning("analysis of race %s not stored (%s)", race_id, exc)
        except Exception as exc:
            if self.stopping:  # its workers stopping under it (Ctrl-C reaches them too): asked again later
                log.info("analysis of race %s stopped with the server (%s)", race_id, type(exc).__name__)
                return
            log.exception("analysis of race %s failed", race_id)
            self._failed.add(race_id)

    async def _game(self, record: Message, moves: list[str], address: str = "") -> dict[str, Any]:
        seed = bytes.fromhex(record["seed"])
        version = record.get("rules_version", 1)
        loop = asyncio.get_running_loop()
        async with self._turns.turn(address):  # one game at a time, addresses in turn
            answer, why = await loop.run_in_executor(
                self.executor, _analyse, record["variant"], seed, moves, version, self.nodes, self.probes
            )
        if answer is None:
            raise RuntimeError(why)
        self.games += 1
        return answer


def _analyse(
    variant: str, seed: bytes, moves: list[str], version: int, nodes: int, probes: int
) -> tuple[dict[str, Any] | None, str]:
    """One game's analysis as protocol data, or None and why (in a worker process). Nothing is
    raised across the process boundary: an exception that does not pickle back breaks the pool."""
    try:
        found = analyse_game(variant, seed, moves, rules_version=version, nodes=nodes, probes=probes)
        return found.to_dict(), ""
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"
