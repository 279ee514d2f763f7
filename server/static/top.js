// Leaderboards: rating, fastest goal time (all time, day, week) and wins, per variant and pool,
// with pages and the rows around a player; live: a board a finished race changed is asked again.
import { el, goalsOf, message, raceTime, select, VARIANTS, who } from "./ui.js";

// What the number means (server/players/ratings.py: the ordinal mu - 3 sigma of an openskill rating).
const RATING_HINT = "A rating is a cautious estimate of skill: the estimate less three times its uncertainty. "
  + "It starts at 0, may go below 0 after early losses, and rises as rated races show what you can do. "
  + "Only races of registered players count, people with people and bots with bots.";
const COUNT = 10;

export function mount(main, _arg, conn) {
  const params = new URLSearchParams(location.search);
  const q = {
    board: params.get("board") || "rating", variant: params.get("variant") || "terrace",
    pool: params.get("pool") || "humans", period: params.get("period") || "all", goal: params.get("goal") || "",
    start: 0, around: "",
  };
  const form = el("form", { "aria-label": "which board", onsubmit: (e) => e.preventDefault() });
  const out = el("section", { "aria-live": "polite", id: "board" });
  main.replaceChildren(el("h1", { text: "Leaderboards" }), form, out);

  const drawForm = () => {
    const around = el("input", { name: "around", id: "around", value: q.around || localStorage.getItem("terrace.name") || "", size: 12, placeholder: "a name",
      onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); document.getElementById("around-go").click(); } } });
    form.replaceChildren(el("div", { class: "controls" },
      el("label", {}, "board ", select("board-kind", ["rating", "fastest", "wins"], q.board)),
      el("label", {}, "variant ", select("variant", VARIANTS, q.variant)),
      q.board === "rating" ? el("label", {}, "pool ", select("pool", ["humans", "bots"], q.pool)) : null,
      q.board === "fastest" ? el("label", {}, "goal ", select("goal", goalsOf(q.variant), q.goal || goalsOf(q.variant)[0])) : null,
      q.board === "fastest" ? el("label", {}, "period ", select("period", ["all", "day", "week"], q.period)) : null,
      el("span", { class: "around" }, el("label", { for: "around", text: "around " }), around,
        el("button", { type: "button", id: "around-go", text: "Around me", onclick: () => { q.around = around.value.trim(); q.start = 0; ask(); } }))));
    for (const s of form.querySelectorAll("select")) {
      s.addEventListener("change", () => {
        q[s.name === "board-kind" ? "board" : s.name] = s.value;
        if (s.name === "variant") q.goal = "";
        q.start = 0;
        q.around = "";
        drawForm();
        ask();
      });
    }
  };

  const request = () => {
    const r = { board: q.board, variant: q.variant, count: COUNT, start: q.start };
    if (q.board === "rating") r.pool = q.pool;
    if (q.board === "fastest") { r.period = q.period; r.goal = q.goal || goalsOf(q.variant)[0]; }
    if (q.around) { r.around = q.around; delete r.start; }
    return r;
  };

  const ask = async () => {
    const a = await conn.request("leaderboard", request());
    if (a.type === "error") return message(out, a.code === "not_on_board" ? `${q.around} is not on this board yet.` : a.message, "error");
    draw(a);
  };

  const draw = (a) => {
    const value = (r) => (a.board === "fastest" ? raceTime(r.value) : a.board === "rating" ? r.value.toFixed(1) : String(r.value));
    const head = a.board === "fastest" ? "goal time" : a.board === "rating" ? "rating" : "wins";
    const title = `${a.board} · ${a.variant}${a.pool ? " · " + a.pool : ""}${a.goal ? " · goal " + a.goal : ""}${a.period_key ? " · " + a.period_key : ""}`;
    const pager = el("div", { class: "pager" },
      el("button", { type: "button", id: "prev", disabled: a.start === 0 || q.around ? true : undefined, text: "← previous", onclick: () => { q.start = Math.max(0, q.start - COUNT); ask(); } }),
      el("span", { text: a.total ? ` rows ${a.start + 1}–${a.start + a.rows.length} of ${a.total} ` : " " }),
      el("button", { type: "button", id: "next", disabled: a.start + a.rows.length >= a.total || q.around ? true : undefined, text: "next →", onclick: () => { q.start += COUNT; ask(); } }));
    out.replaceChildren(el("h2", { text: title }),
      a.rows.length ? el("table", { class: "leaderboard" },
        el("thead", {}, el("tr", {}, ["rank", "player", head, ...(a.board === "rating" ? ["races"] : [])].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, a.rows.map((r) => el("tr", { class: r.player.name === q.around ? "me" : "" },
          el("td", { class: "num", text: r.rank }), el("td", {}, el("a", { href: `/player/${r.player.name}` }, who(r.player))), el("td", { class: "num", text: value(r) }),
          a.board === "rating" ? el("td", { class: "num races", text: r.races ?? "" }) : null))))
        : el("p", { class: "empty", text: "Nobody on this board yet (only registered players appear)." }),
      pager,
      a.board === "rating" ? el("p", { class: "hint", id: "rating-hint", text: RATING_HINT }) : "",
      a.board === "fastest" && a.variant ? el("p", { class: "hint", text: "Bots and people share this board; bots are marked bot." }) : "");
  };

  conn.on("leaderboard", (m) => {
    if (m.re === undefined && m.board === q.board && m.variant === q.variant) ask(); // a race changed it
  });
  drawForm();
  return {
    async connected() {
      await conn.request("subscribe", { topic: "leaderboards" });
      await ask();
    },
  };
}
