"""docs/BENCHMARKS.md's tables of the offline benchmarks: the engine, the bots, the solver,
winnable deals, the daily deal, hindsight and replay, each from its results file."""

from __future__ import annotations

from benchmarks.tables_format import (
    VARIANTS,
    Results,
    head,
    n0,
    n1,
    n2,
    n3,
    pct,
    row,
    sig,
    sources,
)


def engine_random(results: Results) -> list[str]:
    out = results["engine"]["output"]
    lines = head(
        "variant", "playouts/s", "moves/s", "moves per CPU s", "mean moves a game", right=(1, 2, 3, 4)
    )
    for v, r in out["random"].items():
        lines.append(
            row(
                v,
                n0(r["playouts_per_s"]),
                n0(r["moves_per_s"]),
                n0(r["moves_per_cpu_s"]),
                n0(r["mean_moves"]),
            )
        )
    return lines + sources(results, ["engine"])


def engine_greedy(results: Results) -> list[str]:
    out = results["engine"]["output"]
    lines = head("variant", "games", "mean score", "terrace cleared", "win rate", right=(1, 2, 3, 4))
    for v, r in out["greedy"].items():
        lines.append(
            row(v, n0(r["games"]), n1(r["avg_score"]), pct(r["terrace_cleared_rate"]), pct(r["win_rate"]))
        )
    return lines + sources(results, ["engine"])


def engine_playouts(results: Results) -> list[str]:
    out = results["engine"]["output"]
    lines = head(
        "variant", "reference dive /CPU s", "playout /CPU s", "playout / dive", "same ends", "won",
        right=(1, 2, 3, 5),
    )  # fmt: skip
    for v, r in out["playouts"].items():
        ratio = r["playouts_per_cpu_s"] / r["reference_per_cpu_s"]
        same = "yes" if r["same_ends"] else "**no**"
        lines.append(
            row(v, n0(r["reference_per_cpu_s"]), n0(r["playouts_per_cpu_s"]), f"{ratio:.2f}x", same,
                f"{r['won']} of {r['playouts']}")
        )  # fmt: skip
    return lines + sources(results, ["engine"])


def engine_lost_search(results: Results) -> list[str]:
    s = results["engine"]["output"]["lost_search"]
    lines = head("positions searched", "status", "CPU s (median of 5)", right=(0, 2))
    lines.append(row(n0(s["positions"]), s["status"], n3(s["seconds_median"])))
    return lines + sources(results, ["engine"])


# ----- bots, the solver ---------------------------------------------------------------------

BOT_FILES = (
    "bots-random", "bots-greedy", "bots-planner", "bots-planner-louis",
    "bots-sampler-terrace", "bots-sampler-queen-of-italy", "bots-sampler-signora", "bots-sampler-louis",
)  # fmt: skip


def bots(results: Results) -> list[str]:
    lines = head(
        "bot", "variant", "deals", "win", "cleared", "mean score", "mean moves", "decision p50 / p99 ms",
        "from", right=(3, 4, 5, 6, 7),
    )  # fmt: skip
    for name in BOT_FILES:
        kept = results[name]
        deals = kept["output"]["args"]["deals"]
        for bot in kept["output"]["bots"]:
            for v in VARIANTS:
                r = bot["variants"].get(v)
                if r is None:
                    continue
                d = r.get("decision_ms")
                times = "–" if d is None else f"{sig(d['p50'])} / {sig(d['p99'])}"
                when = kept["date"].split()[0] + (" (kept)" if kept.get("kept") else "")
                lines.append(
                    row(bot["name"], v, deals, pct(r["win_rate"]), pct(r["terrace_cleared_rate"]),
                        n1(r["mean_score"]), n0(r["mean_moves"]), times, f"`{name}`, {when}")
                )  # fmt: skip
    return lines + sources(results, BOT_FILES)


def solver(results: Results, name: str = "solver") -> list[str]:
    """The solver's figures of one results file: ``solver`` (every variant) or ``solver-signora``."""
    out = results[name]["output"]
    lines = head(
        "variant", "deals", "proven winnable", "proven lost", "undecided", "median s per decided deal",
        "positions/s (CPU)", right=(1, 2, 3, 4, 5, 6),
    )  # fmt: skip
    for v, r in out["variants"].items():
        lines.append(
            row(v, r["deals"], pct(r["won"]), pct(r["lost"]), pct(r["unknown"]),
                n2(r["median_decided_seconds"]), n0(r["nodes_per_second"]))
        )  # fmt: skip
    return lines + sources(results, [name])


def solver_signora(results: Results) -> list[str]:
    """The solver's signora figures with the signora beam (its own results file)."""
    return solver(results, "solver-signora")


def reductions(results: Results) -> list[str]:
    out = results["reductions"]["output"]
    lines = head(
        "reduction (added to those above)", "positions asked", "positions searched", "decided", "CPU s",
        right=(1, 2, 3, 4),
    )  # fmt: skip
    before = None
    for r in out["steps"]:
        gained = "" if before is None else f" (+{r['decided'] - before})"
        before = r["decided"]
        lines.append(
            row(r["reduction"], r["positions_asked"], n0(r["positions_searched"]), f"{r['decided']}{gained}",
                n1(r["cpu_s"]))
        )  # fmt: skip
    return lines + sources(results, ["reductions"])


# ----- winnable deals, the daily deal, hindsight, replay -------------------------------------


def winnable_create(results: Results) -> list[str]:
    out = results["winnable"]["output"]
    lines = head("variant", "races", "refused", "p50 s", "p99 s", "max s", "mean s", right=(1, 2, 3, 4, 5, 6))
    for v, r in out["variants"].items():
        lines.append(
            row(v, r["races"], r["refused"], n2(r["p50_s"]), n2(r["p99_s"]), n2(r["max_s"]), n2(r["mean_s"]))
        )
    return lines + sources(results, ["winnable"])


def winnable_signora(results: Results) -> list[str]:
    """Signora's winnable creates: how many were served within the bound, and how fast."""
    out = results["winnable-signora"]["output"]
    lines = head(
        "variant", "creates", "drawn within the bound", "refused", "p50 s", "p99 s", "max s", "mean s",
        right=(1, 2, 3, 4, 5, 6, 7),
    )  # fmt: skip
    for v, r in out["variants"].items():
        drawn = r["races"] - r["refused"]
        lines.append(
            row(v, r["races"], f"{drawn} ({pct(drawn / r['races'])})", r["refused"], n2(r["p50_s"]),
                n2(r["p99_s"]), n2(r["max_s"]), n2(r["mean_s"]))
        )  # fmt: skip
    return lines + sources(results, ["winnable-signora"])


def winnable_queue(results: Results) -> list[str]:
    out = results["winnable-queue"]["output"]
    lines = head("queue", "races", "p50 s", "p99 s", "max s", "mean s", right=(1, 2, 3, 4, 5))
    for v, r in out["variants"].items():
        lines.append(row(v, r["races"], n3(r["p50_s"]), n3(r["p99_s"]), n3(r["max_s"]), n3(r["mean_s"])))
    return lines + sources(results, ["winnable-queue"])


def daily(results: Results) -> list[str]:
    lines = head(
        "variant",
        "days",
        "candidates p50",
        "candidates max",
        "seconds p50",
        "seconds max",
        right=(1, 2, 3, 4, 5),
    )
    for name in ("daily", "daily-signora"):
        for v, r in results[name]["output"]["variants"].items():
            lines.append(
                row(v, r["days"], f"{r['candidates_median']:g}", r["candidates_max"], n2(r["seconds_median"]),
                    n2(r["seconds_max"]))
            )  # fmt: skip
    return lines + sources(results, ["daily", "daily-signora"])


def hindsight(results: Results) -> list[str]:
    o = results["hindsight"]["output"]
    v = o["verdicts"]
    lines = head(
        "games", "won", "losing move proven", "stopped still winnable", "undecided",
        "median moves the losing move may be among", "CPU a game p50 / max", "wall a game p50 / p99",
        right=range(8),
    )  # fmt: skip
    lines.append(
        row(o["games"], v.get("won", 0), v.get("lost_by_move", 0) + v.get("lost_from_deal", 0),
            v.get("stopped_winnable", 0), v.get("unknown", 0), n0(o["undecided_moves_median"]),
            f"{n1(o['cpu_p50_s'])} s / {n1(o['cpu_max_s'])} s", f"{n1(o['wall_p50_s'])} s / {n1(o['wall_p99_s'])} s")
    )  # fmt: skip
    return lines + sources(results, ["hindsight"])


def replay(results: Results) -> list[str]:
    lines = head("seats", "moves in the log", "replay (median of 3)", "a move", right=(0, 1, 2, 3))
    for name in ("replay", "replay-eight-seats"):
        o = results[name]["output"]
        lines.append(row(o["seats"], n0(o["moves"]), f"{n2(o['replay_s'])} s", f"{n0(o['per_move_us'])} us"))
    return lines + sources(results, ["replay", "replay-eight-seats"])
