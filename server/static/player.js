// A registered player's page (a bot's, on the ladder): ratings with races played per pool and
// variant, the rating after each recent rated race as a line, and those races, each linked to
// its own page.
import { el, who } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// The rating after each race, oldest to newest, as a polyline with a dot per race.
function ratingLine(history) {
  const points = [...history].reverse();
  const w = 600, h = 160, pad = 12;
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values), hi = Math.max(...values);
  const x = (i) => pad + (points.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v) => (hi === lo ? h / 2 : h - pad - ((v - lo) * (h - 2 * pad)) / (hi - lo));
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img", id: "rating-line",
    "aria-label": `rating after each of the last ${points.length} rated races, from ${values[0].toFixed(1)} to ${values[values.length - 1].toFixed(1)}` });
  chart.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  points.forEach((p, i) => chart.append(svg("circle", { cx: x(i), cy: y(p.rating), r: 3, "data-race": p.race })));
  // the scale: the highest and lowest rating of the line, at its left edge
  for (const [v, yy] of [[hi, pad + 4], [lo, h - 2]]) {
    const label = svg("text", { x: 2, y: yy, class: "axis", "font-size": 11 });
    label.textContent = v.toFixed(1);
    chart.append(label);
    if (hi === lo) break;
  }
  return chart;
}

export function mount(main, name, conn) {
  const out = el("section", { id: "player", "aria-live": "polite" });
  main.replaceChildren(out);
  const draw = (a) => {
    const ratings = a.ratings.length
      ? el("table", { class: "leaderboard", id: "ratings" },
        el("thead", {}, el("tr", {}, ["pool", "variant", "rating", "rank", "races"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, a.ratings.map((r) => el("tr", {},
          el("td", {}, el("a", { href: `/top?board=rating&variant=${r.variant}&pool=${r.pool}`, text: r.pool })),
          el("td", { text: r.variant }), el("td", { class: "num", text: r.value.toFixed(1) }),
          el("td", { class: "num", text: r.rank ?? "" }), el("td", { class: "num", text: r.races })))))
      : el("p", { class: "empty", text: "No rated race yet." });
    const history = a.history.length
      ? [ratingLine(a.history),
        el("table", { class: "leaderboard", id: "history" },
          el("thead", {}, el("tr", {}, ["race", "variant", "place", "rating after"].map((h) => el("th", { scope: "col", text: h })))),
          el("tbody", {}, a.history.map((r) => el("tr", {},
            el("td", {}, el("a", { href: `/race/${r.race}`, text: r.race })),
            el("td", { text: `${r.variant} · ${r.pool}` }),
            el("td", { class: "num", text: `${r.place}/${r.players}` }),
            el("td", { class: "num", text: r.rating.toFixed(1) })))))]
      : [el("p", { class: "empty", text: "No rated race yet." })];
    out.replaceChildren(el("h1", {}, who(a.player)), el("h2", { text: "Ratings" }), ratings,
      el("h2", { text: "Recent rated races" }), ...history);
  };
  const ask = async () => {
    const a = await conn.request("player", { name });
    if (a.type === "error") return out.replaceChildren(el("h1", { text: name }), el("p", { class: "error", role: "alert", text: a.message }));
    draw(a);
  };
  conn.on("leaderboard", (m) => { if (m.re === undefined) ask(); }); // a rated race finished: maybe one of theirs
  return {
    async connected() {
      await conn.request("subscribe", { topic: "leaderboards" });
      await ask();
    },
  };
}
