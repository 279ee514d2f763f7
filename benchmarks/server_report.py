"""The server benchmark's report: the table, the ratios against their targets, the stalls line."""

from __future__ import annotations

import statistics
import sys
from typing import Any

SHOWN_BOUNDS = ("0.001", "0.01", "0.1")  # terrace_move_seconds bounds shown in the table


def _med(values: list[float]) -> float:
    return statistics.median(values)


def ratios(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-round ratios and their medians."""
    each: dict[str, list[float]] = {
        "game_echo": [],
        "game_echo_p99": [],
        "redis_memory": [],
        "cpu_echo_game": [],
    }
    for r in rounds:
        each["game_echo"].append(r["memory"]["per_s"] / r["echo"]["per_s"])
        game_us, echo_us = cpu_us_per_answer(r["memory"]), cpu_us_per_answer(r["echo"])
        if game_us and echo_us:
            each["cpu_echo_game"].append(echo_us / game_us)
        each["game_echo_p99"].append(r["memory"]["p99_ms"] / r["echo"]["p99_ms"])
        if "redis" in r:
            each["redis_memory"].append(r["redis"]["per_s"] / r["memory"]["per_s"])
    return {k: {"each": [round(x, 3) for x in v], "median": _med(v) if v else None} for k, v in each.items()}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def cpu_us_per_answer(r: dict[str, Any]) -> float | None:
    """Server CPU microseconds per answer: what an answer costs, whatever share of the cores the
    server got (on a loaded machine the throughput says more about the neighbours)."""
    if r["server_cpu"] is None or not r["per_s_mean"]:
        return None
    return float(r["server_cpu"] / r["per_s_mean"] * 1e6)


def _row(name: str, players: int, r: dict[str, Any]) -> str:
    load = "/".join(f"{x:.1f}" for x in r["load_average"])
    us = cpu_us_per_answer(r)
    return (
        f"{name:<26}{players:>8}{r['per_s']:>11,.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}"
        f"{r['max_ms']:>9.1f}{r['request_bytes']:>10,}{r['answer_bytes']:>10,}"
        f"{_pct(r['server_cpu']):>9}{'-' if us is None else f'{us:.0f}':>8}{_pct(r['client_cpu']):>9}{load:>12}"
    )


def _check(ok: bool | None) -> str:
    return "-" if ok is None else ("met" if ok else "NOT MET")


def print_table(report: dict[str, Any]) -> None:
    a = report["args"]
    print(f"machine: {report['machine']}")
    print(f"command: {report['command']}")
    print(
        f"setup:   {a['players']} players, {a['variant']} races of {a['seats']} seats, {a['subprotocol']}, "
        f"views {a['views']}, event loop {a['event_loop']} (game and echo servers), "
        f"countdown {a['countdown']:g} s, standings every {a['standings_interval']:g} s; "
        f"{a['seconds']:g} s windows after {a['warmup']:g} s warm-up; {a['repeat']} round(s)"
    )
    if a["profile_server"]:
        print(
            f"         round 1's game server ran under cProfile ({a['profile_server']}): its figures are slower"
        )
    print()
    head = (
        f"{'scenario':<26}{'players':>8}{'answers/s':>11}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'req B':>10}{'answer B':>10}{'srv CPU':>9}{'us/ans':>8}{'cli CPU':>9}{'load avg':>12}"
    )
    print(head)
    for i, r in enumerate(report["rounds"]):
        print(_row(f"{i + 1}. game, memory store", a["players"], r["memory"]))
        print(_row(f"{i + 1}. echo, same frames", a["players"], r["echo"]))
        if "redis" in r:
            print(_row(f"{i + 1}. game, Redis (AOF)", a["players"], r["redis"]))
    print()
    if report["rounds"]:
        print_rounds(report)
    print_long(report)
    print(
        "(answers/s: median of per-second rates; CPU: share of one core; us/ans: server CPU microseconds "
        "per answer; load avg: 1-minute, before/after)"
    )
    print(f"\ntotal time: {report['seconds']:.1f} s")


def print_rounds(report: dict[str, Any]) -> None:
    q = report["ratios"]
    ge, p99, rm = q["game_echo"], q["game_echo_p99"], q["redis_memory"]
    med_p99 = _med([r["memory"]["p99_ms"] for r in report["rounds"]])
    print(
        f"game / echo throughput:   {ge['median']:.2f}x (rounds: {ge['each']})   target >= 0.6x: "
        f"{_check(ge['median'] >= 0.6)}"
    )
    if q["cpu_echo_game"]["median"] is not None:
        print(
            f"echo / game CPU per answer: {q['cpu_echo_game']['median']:.2f}x "
            f"(rounds: {q['cpu_echo_game']['each']}): the throughput ratio with equal shares of the cores"
        )
    print(
        f"game p99 (median):        {med_p99:.2f} ms ({p99['median']:.2f}x the echo's)   target < 10 ms: "
        f"{_check(med_p99 < 10)}"
    )
    if rm["median"] is not None:
        print(
            f"Redis / memory:           {rm['median']:.2f}x (rounds: {rm['each']})   target >= 0.7x: "
            f"{_check(rm['median'] >= 0.7)}"
        )
        for i, r in enumerate(report["rounds"]):
            c = r["redis"]["log_check"]
            print(
                f"  round {i + 1} log check: {c['moves_acknowledged']:,} moves acknowledged, "
                f"{c['moves_in_log']:,} in the append-only file, {c['acknowledged_not_in_log']} missing; "
                f"{c['resigns_acknowledged']} resignations, {c['resigns_acknowledged_not_in_log']} missing"
            )
    r0 = report["rounds"][0]["memory"]
    h = r0["server_handling"]
    if h["mean_ms"] is not None:
        print(
            f"\nround 1 game: server-side move handling (terrace_move_seconds) mean {h['mean_ms']:.3f} ms, "
            + ", ".join(
                f"{h['share_over_seconds'][le]:.1%} over {float(le) * 1000:g} ms"
                for le in SHOWN_BOUNDS
                if le in h["share_over_seconds"]
            )
        )
    print(f"             stalls: {stalls_line(r0)}")
    ev = r0["events"]
    finishes = ", ".join(f"{k.split()[1]} {v}" for k, v in ev.items() if k.startswith("finish "))
    print(
        f"             {r0['answers']:,} moves answered; {ev.get('races created', 0)} races created; "
        f"finishes: {finishes or 'none'}; {ev.get('pushes', 0):,} pushes read"
    )
    errors = [
        e
        for r in report["rounds"]
        for s in r.values()
        if isinstance(s, dict)
        for e in s.get("server_log_errors", [])
    ]
    if errors:
        print(f"WARNING: {len(errors)} error lines in the game servers' logs, the first: {errors[0]}")


def stalls_line(r: dict[str, Any]) -> str:
    """What held the server's loop and the clients' loop over a scenario's window."""
    st, cl = r["server_stalls"], r["client_stalls"]
    gcs = ", ".join(
        f"gen{g} {st[f'gc{g}']['count']}"
        + (
            f" (mean {st[f'gc{g}']['mean_ms']:.1f} ms, {st[f'gc{g}']['over_10ms']} over 10 ms)"
            if st[f"gc{g}"]["count"]
            else ""
        )
        for g in range(3)
    )
    return (
        f"server collections {gcs}; server loop late over 10 ms in {st['lag_over_10ms']} of "
        f"{st['lag_samples']} samples; clients' loop lag p99 {cl['loop_lag_p99_ms']:.1f} ms "
        f"(max {cl['loop_lag_max_ms']:.0f}), their longest collection {cl['gc_max_ms']:.1f} ms "
        f"({cl['gc_full']} full)"
    )


def print_long(report: dict[str, Any]) -> None:
    a = report["args"]
    if "idle" in report:
        d = report["idle"]
        g = d["game"]
        print(
            f"idle: {d['connections']:,} connections said hello in {d['open_seconds']:.1f} s "
            f"({d['closed_by_server']} closed by the server); server RSS {d['rss_mib_empty']:.0f} MiB empty, "
            f"{d['rss_mib_idle']:.0f} MiB with them ({d['kib_per_connection']:.1f} KiB each), "
            f"{d['rss_mib_racing']:.0f} MiB racing   target < 300 MiB: {_check(d['rss_mib_racing'] < 300)}"
        )
        print(
            f"      {a['idle_players']} players racing meanwhile (a move every 50-150 ms each): {g['per_s']:,.0f} moves/s, p50 {g['p50_ms']:.2f} ms, "
            f"p99 {g['p99_ms']:.2f} ms   target p99 < 10 ms: {_check(g['p99_ms'] < 10)}  "
            f"(load {d['load_average'][0]:.1f}/{d['load_average'][1]:.1f})"
        )
    if "human" in report:
        h = report["human"]
        print(
            f"human pace: {a['human']:,} players, a move every 1-2 s each: {h['per_s']:,.0f} moves/s, "
            f"p50 {h['p50_ms']:.2f} ms, p99 {h['p99_ms']:.2f} ms, server CPU {_pct(h['server_cpu'])} "
            f"of a core (clients {_pct(h['client_cpu'])}, {h['events'].get('pushes', 0) / a['human_seconds']:,.0f} "
            f"pushes/s read)   target p99 < 20 ms: {_check(h['p99_ms'] < 20)}  "
            f"(load {h['load_average'][0]:.1f}/{h['load_average'][1]:.1f})"
        )
        sh = h["server_handling"]
        if sh["mean_ms"] is not None:
            over = sh["share_over_seconds"]
            print(
                f"            server-side handling of those moves: mean {sh['mean_ms']:.3f} ms, "
                f"{over.get('0.01', 0):.2%} over 10 ms, {over.get('0.1', 0):.2%} over 100 ms "
                "(the long lost searches, run in worker processes)"
            )
        print(f"            stalls: {stalls_line(h)}")
    if "nodes" in report:
        n = report["nodes"]
        print(
            f"nodes: one node on Redis {n['one']['per_s']:,.0f} moves/s (p99 {n['one']['p99_ms']:.1f} ms), "
            f"two nodes sharing it {n['two']['per_s']:,.0f} moves/s (p99 {n['two']['p99_ms']:.1f} ms): "
            f"{n['ratio']:.2f}x, server CPU {_pct(n['two']['server_cpu'])} of a core over both"
        )


def print_profile(path: str, top: int = 25) -> None:
    import pstats

    print(f"\ngame server profile ({path}), top {top} by own time:", file=sys.stderr)
    pstats.Stats(path, stream=sys.stderr).sort_stats("tottime").print_stats(top)
