// The lobby: races open, counting down and running with their live standings (a snapshot on
// subscribe, then pushes), and the recently finished ones with their winners. Never a card.
import { clock, el, goalsOf, raceTime, standingsTable, VARIANTS, who } from "./ui.js";

export function mount(main, _arg, conn) {
  const races = new Map(), standings = new Map();
  let finished = [];
  const live = el("section", { "aria-labelledby": "live-h" });
  const done = el("section", { "aria-labelledby": "done-h" });
  main.replaceChildren(
    el("h1", { text: "Races" }),
    el("section", { class: "quick", "aria-label": "race now" },
      el("p", { text: "Race the house bots (or whoever is waiting) at once:" }),
      el("div", { class: "buttons" }, VARIANTS.map((v) => el("a", { class: "button", href: `/play?variant=${v}&goal=${goalsOf(v)[0]}&queue=1`, text: v })))),
    el("h2", { id: "live-h", text: "Open and running" }), live,
    el("h2", { id: "done-h", text: "Recently finished" }), done);

  const render = () => {
    const list = [...races.values()].filter((r) => !["finished", "cancelled"].includes(r.state));
    live.replaceChildren(...(list.length ? list.map((r) => raceCard(r, standings.get(r.id))) : [el("p", { text: "No race is open or running: start one from Play." })]));
    done.replaceChildren(finished.length ? finishedTable(finished) : el("p", { text: "None yet." }));
  };
  setInterval(() => { if (races.size) render(); }, 1000); // the clocks
  conn.on("race", (m) => {
    if (["finished", "cancelled"].includes(m.race.state)) races.delete(m.race.id);
    else races.set(m.race.id, m.race);
    render();
  });
  conn.on("standings", (m) => { standings.set(m.race, m.rows); render(); });
  conn.on("finished", (m) => {
    finished = [{ id: m.race, variant: m.variant, goal: m.goal, results: m.results }, ...finished].slice(0, 20);
    races.delete(m.race);
    standings.delete(m.race);
    render();
  });

  return {
    async connected() {
      const sub = await conn.request("subscribe", { topic: "lobby" });
      races.clear();
      for (const r of sub.races || []) races.set(r.id, r);
      for (const s of sub.standings || []) standings.set(s.race, s.rows);
      const list = await conn.request("races");
      finished = list.finished || [];
      render();
    },
  };
}

function raceCard(r, rows) {
  const left = r.starts_at && r.state === "running" ? clock(r.starts_at + r.time_limit * 1000 - Date.now()) : "";
  const join = r.state === "open" && r.players.length < r.seats
    ? el("a", { class: "button", href: `/play/${r.id}`, text: "Join" }) : null;
  return el("article", { class: `race ${r.state}`, "data-race": r.id },
    el("h3", {},
      el("a", { href: `/race/${r.id}`, text: `${r.variant} ${r.id}` }),
      el("span", { class: "meta", text: ` goal ${r.goal} · ${r.players.length}/${r.seats} seats · ` }),
      r.deals === "winnable" ? el("span", { class: "winnable-tag", title: "the server's solver proved this deal winnable", text: "winnable deal · " }) : null,
      el("span", { class: "state", text: r.state }),
      left ? el("span", { class: "meta", text: ` · ${left} left` }) : null, " ", join),
    rows ? standingsTable(rows, r.variant)
      : el("ul", { class: "players" }, r.players.map((p) => el("li", {}, who(p)))));
}

// What won the race: the goal and its time, or (nobody reached it) the cards home that placed
// first; never "stuck 1:17.8", which reads as a loss and gives the time play stopped, not a finish.
function wonWith(row) {
  if (row.finish === "goal" && row.time !== null) return `goal in ${raceTime(row.time)}`;
  return `${row.score} card${row.score === 1 ? "" : "s"} home`;
}

function finishedTable(list) {
  return el("table", { class: "finished" },
    el("thead", {}, el("tr", {}, ["race", "variant", "goal", "winner", "won with", "players"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, list.map((f) => {
      const first = f.results.find((r) => r.place === 1);
      return el("tr", { "data-race": f.id },
        el("td", {}, el("a", { href: `/race/${f.id}`, text: f.id })),
        el("td", { text: f.variant }), el("td", { text: f.goal }),
        el("td", {}, first ? who(first.player) : "–"),
        el("td", { text: first ? wonWith(first) : "" }),
        el("td", { class: "num", text: f.results.length }));
    })));
}
