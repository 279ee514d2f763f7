"""docs/BENCHMARKS.md's tables of the server's benchmarks: the server benchmark's rounds and long
scenarios, instructions per move, the soak, the swarm and arenas, each from its results file."""

from __future__ import annotations

from typing import Any

from benchmarks.tables_format import (
    Results,
    head,
    met,
    n0,
    n1,
    n2,
    pct,
    row,
    sources,
)


def listed(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _us(r: dict[str, Any]) -> float | None:
    """Server CPU microseconds an answer (as the server benchmark's report counts it)."""
    return (
        None
        if r.get("server_cpu") is None or not r["per_s_mean"]
        else r["server_cpu"] / r["per_s_mean"] * 1e6
    )


def _server_rows(rounds: list[dict[str, Any]]) -> list[str]:
    lines = head(
        "round", "scenario", "answers/s", "p50 ms", "p99 ms", "max ms", "server CPU", "CPU us an answer",
        right=(2, 3, 4, 5, 6, 7),
    )  # fmt: skip
    names = {
        "memory": "game, memory store",
        "echo": "bare echo, same frame sizes",
        "redis": "game, Redis (AOF)",
    }
    for i, r in enumerate(rounds, 1):
        for key, what in names.items():
            if key in r:
                s = r[key]
                lines.append(
                    row(i, what, n0(s["per_s"]), n2(s["p50_ms"]), n1(s["p99_ms"]), n0(s["max_ms"]),
                        pct(s["server_cpu"], 0), n0(_us(s)))
                )  # fmt: skip
    return lines


def _targets(out: dict[str, Any]) -> list[str]:
    q, rounds = out["ratios"], out["rounds"]
    p99 = sorted(r["memory"]["p99_ms"] for r in rounds)[len(rounds) // 2]
    lines = ["", *head("target", "measured", "")]
    ge = q["game_echo"]["median"]
    lines.append(
        row(
            "game / echo throughput >= 0.6x",
            f"{ge:.2f}x (rounds {listed(q['game_echo']['each'])})",
            met(ge >= 0.6),
        )
    )
    lines.append(row("game p99 < 10 ms", f"{p99:.1f} ms", met(p99 < 10)))
    if q["redis_memory"]["median"] is not None:
        rm = q["redis_memory"]["median"]
        missing = sum(r["redis"]["log_check"]["acknowledged_not_in_log"] for r in rounds)
        acked = sum(r["redis"]["log_check"]["moves_acknowledged"] for r in rounds)
        lines.append(
            row(
                "Redis / memory >= 0.7x",
                f"{rm:.2f}x (rounds {listed(q['redis_memory']['each'])})",
                met(rm >= 0.7),
            )
        )
        lines.append(
            row(
                "every acknowledged move in Redis's log",
                f"{acked:,} acknowledged, {missing} missing",
                met(missing == 0),
            )
        )
    return lines


def server(results: Results) -> list[str]:
    out = results["server"]["output"]
    return _server_rows(out["rounds"]) + _targets(out) + sources(results, ["server"])


def server_quiet(results: Results) -> list[str]:
    """The kept quiet-machine run: medians of its three rounds, and its targets."""
    out = results["server-quiet"]["output"]
    lines = head("scenario (medians of 3 rounds)", "answers/s", "p50 ms", "p99 ms", "server CPU", "CPU us an answer",
                 right=(1, 2, 3, 4, 5))  # fmt: skip
    names = {
        "memory": "game, memory store",
        "echo": "bare echo, same frame sizes",
        "redis": "game, Redis (AOF)",
    }
    for key, what in names.items():
        m = out["medians"][key]
        lines.append(
            row(
                what,
                n0(m["per_s"]),
                n1(m["p50_ms"]),
                n1(m["p99_ms"]),
                pct(m["server_cpu"], 0),
                n0(m["us_per_answer"]),
            )
        )
    q, check = out["ratios"], out["log_check"]
    ge, rm, p99 = q["game_echo"]["median"], q["redis_memory"]["median"], out["medians"]["memory"]["p99_ms"]
    lines += ["", *head("target", "measured", "")]
    lines.append(
        row(
            "game / echo throughput >= 0.6x",
            f"{ge:.2f}x (rounds {listed(q['game_echo']['each'])})",
            met(ge >= 0.6),
        )
    )
    lines.append(row("game p99 < 10 ms", f"{p99:.1f} ms (rounds {listed(out['p99_rounds'])})", met(p99 < 10)))
    lines.append(
        row(
            "Redis / memory >= 0.7x",
            f"{rm:.2f}x (rounds {listed(q['redis_memory']['each'])})",
            met(rm >= 0.7),
        )
    )
    acked = ", ".join(f"{n:,}" for n in check["moves_acknowledged"])
    missing = check["acknowledged_not_in_log"]
    lines.append(
        row(
            "every acknowledged move in Redis's log",
            f"{acked} acknowledged, {missing} missing",
            met(missing == 0),
        )
    )
    return lines + sources(results, ["server-quiet"])


def server_long(results: Results) -> list[str]:
    """The long scenarios of the kept quiet-machine runs, against their targets."""
    lines = head("scenario", "measured", "target", "")
    for name in ("server-quiet", "server-idle"):
        o = results[name]["output"]
        d = o["idle"]
        lines.append(
            row(f"{d['connections']:,} idle connections (`{name}`)",
                f"server RSS {n0(d['rss_mib_empty'])} MiB empty, {n0(d['rss_mib_idle'])} MiB with them "
                f"({n1(d['kib_per_connection'])} KiB each), {n0(d['rss_mib_racing'])} MiB racing",
                "< 300 MiB", met(d["rss_mib_racing"] < 300))
        )  # fmt: skip
        if (g := d["game"]) is not None:
            lines.append(
                row(f"{o['args']['idle_players']} players racing among them, a move every 50-150 ms (`{name}`)",
                    f"{n0(g['per_s'])} moves/s, p50 {n2(g['p50_ms'])} ms, p99 {n2(g['p99_ms'])} ms",
                    "p99 < 10 ms", met(g["p99_ms"] < 10))
            )  # fmt: skip
    o = results["server-quiet"]["output"]
    h, n = o["human"], o["nodes"]
    lines.append(
        row(f"{o['args']['human']:,} players, a move every 1-2 s each",
            f"{n0(h['per_s'])} moves/s, p50 {n2(h['p50_ms'])} ms, p99 {n2(h['p99_ms'])} ms, server CPU "
            f"{pct(h['server_cpu'], 0)} of a core", "p99 < 20 ms", met(h["p99_ms"] < 20))
    )  # fmt: skip
    lines.append(
        row("two nodes sharing one Redis, against one node alone",
            f"{n0(n['two']['per_s'])} against {n0(n['one']['per_s'])} moves/s: {n['ratio']:.2f}x "
            f"({pct(n['two_server_cpu'], 0)} of a core over both)", "reported", "")
    )  # fmt: skip
    return lines + sources(results, ["server-quiet", "server-idle"])


INSTRUCTION_FILES = ("instructions", "instructions-redis", "instructions-uvloop", "instructions-echo")


def instructions(results: Results) -> list[str]:
    """One row per server counted (game on each store and loop, the bare echo), and the ratios the
    issue's targets read, of the figures less the idle server's (its timers)."""
    lines = head("server", "window", "moves counted", "moves/s under callgrind", "instructions a move",
                 "less the idle server's", "idle server, a second", "estimated cycles a move",
                 right=(2, 3, 4, 5, 6, 7))  # fmt: skip
    for name in INSTRUCTION_FILES:
        o = results[name]["output"]
        lines.append(
            row(o["what"], f"{o['players']} players, {o['window']}", n0(o["moves"]), n0(o["moves_per_s"]),
                n0(o["instructions_per_move"]), n0(o.get("instructions_per_move_net")),
                n0(o.get("idle_instructions_per_s")), n0(o["estimated_cycles_per_move"]))
        )  # fmt: skip

    def net(name: str) -> float:
        o = results[name]["output"]
        return float(o.get("instructions_per_move_net") or o["instructions_per_move"])

    game, redis, echo = net("instructions"), net("instructions-redis"), net("instructions-echo")
    lines += [
        "",
        f"Echo / game by instructions: **{echo / game:.2f}x** (target >= 0.6x); "
        f"Redis store / memory store: **{redis / game:.2f}x** (target <= 1.3x); "
        f"uvloop / asyncio: {net('instructions-uvloop') / game:.2f}x.",
    ]
    return lines + sources(results, INSTRUCTION_FILES)


def soak(results: Results) -> list[str]:
    o = results["soak"]["output"]
    lines = head("", "figure")
    for what, figure in o["rows"]:
        lines.append(row(what, figure))
    return lines + sources(results, ["soak"])


def swarm(results: Results) -> list[str]:
    o = results["swarm"]["output"]
    lat = o["latency_ms"]
    lines = head("players", "races", "moves", "moves/s", "answer p50 / p99 / max ms", "errors", "connections held",
                 right=(0, 1, 2, 3, 4, 5, 6))  # fmt: skip
    errors = sum(o["errors"].values())
    lines.append(
        row(o["players"], o["races"], n0(o["moves"]), n0(o["moves_per_s"]),
            f"{n1(lat['p50'])} / {n1(lat['p99'])} / {n0(lat['max'])}", errors, o["connections_peak"])
    )  # fmt: skip
    return lines + sources(results, ["swarm"])


def arena(results: Results) -> list[str]:
    lines = head(
        "nodes (store)", "races", "races a bot (fewest / most)", "re-pair gap median / p95 / max ms",
        "record verified", right=(1, 2, 3),
    )  # fmt: skip
    for name in ("arena", "arena-two-nodes"):
        o = results[name]["output"]
        b, g = o["races_per_bot"], o["repair_gap_ms"]
        lines.append(
            row(f"{o['nodes']} ({o['store']})", n0(o["races"]), f"{b['min']} / {b['max']}",
                f"{n0(g['median'])} / {n0(g['p95'])} / {n0(g['max'])}", "yes" if o["verified"] else "**no**")
        )  # fmt: skip
    return lines + sources(results, ["arena", "arena-two-nodes"])
