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

// The rating after each race, oldest to newest, as a chart: a line with a dot per race, a y axis
// with the ratings (low, middle, high: a flat line or one race gets a band around its value, so
// it still reads as a chart) and an x axis numbering the races. It spans its box's width.
export function ratingLine(history) {
  const points = [...history].reverse();
  const w = 640, h = 200, left = 52, right = 16, top = 12, bottom = 36;
  const values = points.map((p) => p.rating);
  let lo = Math.min(...values), hi = Math.max(...values);
  if (hi - lo < 2) { const mid = (hi + lo) / 2; lo = mid - 1; hi = mid + 1; }
  const margin = (hi - lo) * 0.1; // no dot on an axis
  lo -= margin; hi += margin;
  const n = points.length, inset = 16;
  const x = (i) => left + inset + (n === 1 ? (w - left - right - 2 * inset) / 2 : (i * (w - left - right - 2 * inset)) / (n - 1));
  const y = (v) => h - bottom - ((v - lo) * (h - top - bottom)) / (hi - lo);
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", id: "rating-line",
    "aria-label": `rating after each of the last ${n} rated race${n === 1 ? "" : "s"}, from ${values[0].toFixed(1)} to ${values[n - 1].toFixed(1)}` });
  // axes: the y axis at the left with three ratings and grid lines, the x axis below with the races
  chart.append(svg("line", { x1: left, y1: top, x2: left, y2: h - bottom, class: "axis-line", stroke: "currentColor" }));
  chart.append(svg("line", { x1: left, y1: h - bottom, x2: w - right, y2: h - bottom, class: "axis-line", stroke: "currentColor" }));
  for (const v of [lo, (lo + hi) / 2, hi]) {
    chart.append(svg("line", { x1: left, y1: y(v), x2: w - right, y2: y(v), class: "grid", stroke: "currentColor", "stroke-opacity": 0.15 }));
    const label = svg("text", { x: left - 6, y: y(v) + 4, class: "axis y-tick", "font-size": 12, "text-anchor": "end" });
    label.textContent = v.toFixed(1);
    chart.append(label);
  }
  const every = Math.ceil(n / 10); // at most some ten race numbers along the bottom
  points.forEach((_, i) => {
    if (i % every && i !== n - 1) return;
    const label = svg("text", { x: x(i), y: h - bottom + 16, class: "axis x-tick", "font-size": 12, "text-anchor": "middle" });
    label.textContent = String(i + 1);
    chart.append(label);
  });
  const caption = svg("text", { x: (left + w - right) / 2, y: h - 4, class: "axis", "font-size": 12, "text-anchor": "middle" });
  caption.textContent = "rated races, oldest to newest";
  chart.append(caption);
  if (n > 1) chart.append(svg("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(p.rating), r: 4, "data-race": p.race });
    const tip = svg("title", {});
    tip.textContent = `race ${i + 1}: ${p.rating.toFixed(1)}`;
    dot.append(tip);
    chart.append(dot);
  });
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
