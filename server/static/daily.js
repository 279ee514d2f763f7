// The daily deal: a variant's deal of the day, its commitment and tomorrow's, and its board (goal
// time, then cards home), live: a board a finished attempt changed is asked again. A past day
// shows its revealed seed (checked against its commitment here, with WebCrypto) and best lines.
import { el, message, raceTime, select, VARIANTS, who } from "./ui.js";

async function sha256hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// The commitment every race uses: SHA-256 of "terrace-commit:" followed by the seed's bytes.
async function commitmentOf(seedHex) {
  const prefix = new TextEncoder().encode("terrace-commit:");
  const seed = Uint8Array.from(seedHex.match(/../g), (h) => parseInt(h, 16));
  const joined = new Uint8Array(prefix.length + seed.length);
  joined.set(prefix);
  joined.set(seed, prefix.length);
  return sha256hex(joined);
}

function shiftDay(day, by) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + by);
  return d.toISOString().slice(0, 10);
}

export function mount(main, _arg, conn) {
  const params = new URLSearchParams(location.search);
  const q = { variant: params.get("variant") || "terrace", pool: params.get("pool") || "humans", day: params.get("day") || "" };
  const form = el("form", { "aria-label": "which daily deal", onsubmit: (e) => e.preventDefault() });
  const out = el("section", { "aria-live": "polite", id: "daily" });
  main.replaceChildren(el("h1", { text: "Daily deal" }),
    el("p", {}, "Everyone races the same deal, alone, at any time of the (UTC) day: one rated attempt each, with ",
      el("code", { text: "terrace daily" }), " or a bot. Its seed is committed to a day ahead and told when the day ends."),
    form, out);
  let today = "";
  let dayOver;

  const drawForm = () => {
    form.replaceChildren(el("div", { class: "controls" },
      el("label", {}, "variant ", select("variant", VARIANTS, q.variant)),
      el("label", {}, "pool ", select("pool", ["humans", "bots"], q.pool)),
      el("button", { type: "button", id: "earlier", text: "← day before", onclick: () => { q.day = shiftDay(q.day || today, -1); ask(); } }),
      el("button", { type: "button", id: "later", disabled: !q.day || q.day >= today ? true : undefined, text: "day after →", onclick: () => { q.day = shiftDay(q.day, 1); if (q.day >= today) q.day = ""; ask(); } })));
    for (const s of form.querySelectorAll("select")) {
      s.addEventListener("change", () => { q[s.name] = s.value; ask(); });
    }
  };

  const ask = async () => {
    const r = { variant: q.variant, pool: q.pool };
    if (q.day) r.day = q.day;
    const a = await conn.request("daily", r);
    if (a.type === "error") return message(out, a.message, "error");
    today = a.today;
    clearTimeout(dayOver);
    if (!q.day) dayOver = setTimeout(ask, Math.max(1000, a.ends_at - Date.now() + 1000)); // a new day
    drawForm();
    await draw(a);
  };

  const board = (rows) => rows.length
    ? el("table", { class: "leaderboard", id: "daily-board" },
      el("thead", {}, el("tr", {}, ["rank", "player", "goal time", "cards home"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((r) => el("tr", {},
        el("td", { class: "num", text: r.rank }), el("td", {}, who(r.player)),
        el("td", { class: "num", text: r.goal ? raceTime(r.time) : "–" }),
        el("td", { class: "num", text: r.goal ? "" : String(r.score) })))))
    : el("p", { class: "empty", text: "Nobody on this board yet (registered players' rated attempts appear when they finish)." });

  const draw = async (a) => {
    const over = "seed" in a;
    const facts = el("dl", { class: "facts" },
      el("dt", { text: "day" }), el("dd", { id: "day", text: `${a.day} (UTC)${over ? " · over" : " · today"}` }),
      el("dt", { text: "goal" }), el("dd", { text: `${a.goal} · ${Math.round(a.time_limit / 60)} min from your first view` }),
      el("dt", { text: "commitment" }), el("dd", {}, el("code", { id: "commitment", text: a.commitment })),
      el("dt", { text: "next day's commitment" }), el("dd", {}, el("code", { id: "next-commitment", text: a.next_commitment })));
    const parts = [el("h2", { text: `${a.variant} · ${a.day} · ${a.pool} · ${a.total} attempt${a.total === 1 ? "" : "s"}` }),
      // the play page asks before it spends the day's one rated attempt
      over ? "" : el("p", {}, el("a", { class: "button primary", id: "daily-play", href: `/play?daily=${encodeURIComponent(a.variant)}`, text: "Race today's deal" }),
        " (with an account: one rated attempt a day, asked before it starts)"),
      facts, board(a.board)];
    if (over) {
      const ok = (await commitmentOf(a.seed)) === a.commitment;
      facts.append(el("dt", { text: "seed (revealed)" }), el("dd", {}, el("code", { id: "seed", text: a.seed }),
        el("span", { id: "seed-check", class: ok ? "ok" : "bad", text: ok ? " ✓ matches the commitment" : " ✗ does not match the commitment" })));
      if (a.best.length) {
        parts.push(el("h3", { text: "Best lines" }), el("ol", { id: "best" }, a.best.map((b) => el("li", {},
          who(b.player), ` ${b.goal ? raceTime(b.time) : b.score + " cards home"}: `,
          el("a", { href: `/race/${b.race}`, text: `race ${b.race}` }), ` (${b.move_list.length} moves)`))));
      }
    }
    out.replaceChildren(...parts);
  };

  conn.on("daily_board", (m) => {
    if (m.variant === q.variant && m.pool === q.pool && (q.day === "" || q.day === m.day)) ask();
  });
  drawForm();
  return {
    async connected() {
      await conn.request("subscribe", { topic: "daily" });
      await ask();
    },
  };
}
