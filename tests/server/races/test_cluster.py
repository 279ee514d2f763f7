"""Two nodes on a real Redis Cluster (three masters, a replica each, ``appendfsync always``,
``--redis-replica-acks 1``): races are played, the master holding one race's keys is killed
mid-race, a replica takes over, and every move a player was answered ``moved`` for is in the
finished races' records. The store contract suite runs on a cluster too (``test_store.py``)."""

from __future__ import annotations

import asyncio
import functools
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from link.session import Session
from server.app import RaceServer
from tests.poll import eventually
from tests.server.redis_cluster import LocalCluster

Message = dict[str, Any]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _node(make_server: Callable[..., Awaitable[RaceServer]], cluster: LocalCluster) -> RaceServer:
    port = _free_port()
    return await make_server(
        port=port,
        public_url=f"ws://127.0.0.1:{port}/ws",
        redis_url=cluster.url,
        redis_mode="cluster",
        redis_replica_acks=1,
        countdown=0.0,
        grace=30.0,
    )


class Player:
    """One racer: its session, and every move the server acknowledged, in seq order."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.acknowledged: list[str] = []
        self.legal: list[str] = []
        self.race = ""

    async def moves(self, n: int) -> None:
        """Play ``n`` more moves (fewer if the game ends), sending a refused one again as is."""
        for _ in range(n):
            if not self.legal:
                return
            move, seq = self.legal[0], len(self.acknowledged) + 1
            sent = functools.partial(self._accepted, seq, move)
            answer = await eventually(sent, timeout=30, every=0.1, what=f"move {seq} acknowledged")
            self.acknowledged.append(answer["move"])
            self.legal = list(answer["legal"])

    async def _accepted(self, seq: int, move: str) -> Message | None:
        """The answer to the move, or None when it was refused for a failover under way."""
        answer = await self.session.request("move", race=self.race, seq=seq, move=move)
        if answer["type"] == "moved":
            return answer
        assert answer.get("code") == "store_down", answer
        return None


async def _race(a: RaceServer, b: RaceServer, n: int) -> list[Player]:
    first = Player(Session(a.url, name=f"first{n}"))
    second = Player(Session(b.url, name=f"second{n}"))  # joins from the other node: redirected
    await first.session.connect()
    await second.session.connect()
    created = await first.session.request("create", variant="terrace", seats=2, start="full", time_limit=600)
    race = created["race"]["id"]
    assert (await second.session.request("join", race=race))["type"] == "joined"
    for p in (first, second):
        started = await p.session.push("started", race=race, timeout=10)
        p.race, p.legal = race, list(started["legal"])
    return [first, second]


async def test_a_master_killed_mid_race_loses_no_acknowledged_move(
    make_server: Callable[..., Awaitable[RaceServer]], tmp_path: Path
) -> None:
    cluster = LocalCluster(tmp_path).start()
    try:
        a, b = await _node(make_server, cluster), await _node(make_server, cluster)
        races = [await _race(a, b, n) for n in range(3)]
        players = [p for pair in races for p in pair]
        await asyncio.gather(*(p.moves(4) for p in players))
        doomed = f"terrace:race:{{{races[0][0].race}}}:log"
        dead = cluster.kill_master_of(doomed)  # with its race's log, lease and meta
        playing = asyncio.gather(*(p.moves(6) for p in players))  # through the failover
        await eventually(
            lambda: asyncio.to_thread(cluster.failed_over, doomed), timeout=20, what="a failover"
        )
        # the promoted replica has no replica of its own, so its moves wait (store_down) until the
        # dead master comes back, as a replica of it: what an operator (or a supervisor) does
        await asyncio.to_thread(dead.start)
        await playing
        for p in players:
            assert (await p.session.request("resign", race=p.race))["type"] == "resigned"
        for first, second in races:
            record = await eventually(lambda s=first.session, r=first.race: _record(s, r), timeout=15)
            lists = {row["player"]["name"]: row["move_list"] for row in record["results"]}
            for p in (first, second):
                assert lists[p.session.player["name"]] == p.acknowledged
                assert len(p.acknowledged) >= 5
        for p in players:
            await p.session.close()
    finally:
        cluster.stop()


async def _record(session: Session, race: str) -> Message | None:
    answer = await session.request("record", race=race)
    return answer["race"] if answer["type"] == "record" else None
