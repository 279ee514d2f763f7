// One race. While it runs: its live standings (counts only: spectators never see a card, since
// every player has the same deal). Once finished: the record checked in this browser, and each
// player's board step by step, two side by side, with a slider and the arrow keys.
import { drawBoard } from "./board.js";
import { clock, el, message, standingsTable, who } from "./ui.js";
import { verify } from "./verify.js";
import { gameOf, hindsightPanel, markerAt, sliderMarks, watchHindsight } from "./hindsight.js";

export function mount(main, raceId, conn) {
  const head = el("div", { class: "racehead" });
  const body = el("section", { id: "race-body" });
  main.replaceChildren(el("h1", { text: `Race ${raceId}` }), head, body);
  let summary = null, rows = null, finished = false, timer = null;

  const live = () => {
    if (!summary) return;
    const ends = summary.starts_at ? summary.starts_at + summary.time_limit * 1000 : null;
    head.replaceChildren(el("p", {},
      `${summary.variant} · goal ${summary.goal} · ${summary.players.length}/${summary.seats} seats · `,
      summary.deals === "winnable" ? el("span", { class: "winnable-tag", text: "winnable deal · " }) : "",
      el("strong", { class: "state", text: summary.state }),
      summary.state === "running" && ends ? ` · ${clock(ends - Date.now())} left` : "",
      summary.state === "countdown" && summary.starts_at ? ` · starts in ${clock(summary.starts_at - Date.now() + 999)}` : "",
      summary.state === "open" ? el("a", { class: "button", href: `/play/${raceId}`, text: "Join" }) : ""));
    body.replaceChildren(rows ? standingsTable(rows, summary.variant)
      : el("ul", { class: "players" }, summary.players.map((p) => el("li", {}, who(p)))));
  };

  const showRecord = async () => {
    finished = true;
    clearInterval(timer);
    const a = await conn.request("record", { race: raceId });
    if (a.type === "error") return message(body, a.code === "no_race" ? "There is no race with this id." : a.message, "error");
    replay(head, body, a.race, conn);
  };

  conn.on("race", (m) => { if (m.race.id === raceId) { summary = m.race; if (!finished) live(); } });
  conn.on("standings", (m) => { if (m.race === raceId && !finished) { rows = m.rows; live(); } });
  conn.on("finished", (m) => { if (m.race === raceId && !finished) showRecord(); });

  return {
    async connected() {
      if (finished) return;
      const a = await conn.request("spectate", { race: raceId });
      if (a.type === "error") return showRecord(); // over (or unknown): its record says which
      summary = a.race;
      rows = a.standings.rows && a.standings.rows.length ? a.standings.rows : null;
      live();
      clearInterval(timer);
      timer = setInterval(live, 1000);
    },
  };
}

// What the record of a winnable-only race claims; verify() replays its `solution` to check it.
const WINNABLE = "Winnable-only race: the server's solver proved this deal winnable before dealing it. Its winning line is replayed in this browser below.";

async function replay(head, body, record, conn) {
  const results = record.results;
  head.replaceChildren(
    el("p", {}, `${record.variant} · goal ${record.goal} · finished · ${results.length} player${results.length > 1 ? "s" : ""}`),
    "solution" in record ? el("p", { id: "winnable", class: "winnable", text: WINNABLE }) : "",
    standingsTable(results, record.variant));
  const panel = el("section", { id: "verify", class: "verify", "aria-live": "polite" }, el("p", { text: "checking the deal in this browser…" }));
  body.replaceChildren(panel);
  const checked = await verify(record);
  panel.replaceChildren(
    el("p", { id: "verdict", class: checked.ok ? "ok" : "bad", text: checked.ok ? "✓ deal verified in this browser" : "✗ mismatch: this record does not check out" }),
    el("ul", {}, checked.checks.map((c) => el("li", { class: c.ok ? "ok" : "bad", text: `${c.ok ? "✓" : "✗"} ${c.text}` }))));
  if (!checked.games.length) return;

  let step = 0, analysis = null;
  const most = Math.max(...checked.games.map((g) => g.views.length - 1));
  const sides = [0, Math.min(1, checked.games.length - 1)];
  const slider = el("input", { type: "range", id: "step", min: 0, max: most, value: 0, "aria-label": "move number" });
  const boards = el("div", { class: "sides" });
  const track = el("div", { class: "track" }, slider);
  const draw = () => {
    slider.value = step;
    track.replaceChildren(slider, sliderMarks(analysis, most, toPlayer));
    boards.replaceChildren(...sides.map((g, i) => side(checked.games, g, step, (n) => { sides[i] = n; draw(); }, analysis)));
    counter.textContent = `move ${step} of ${most}`;
  };
  const counter = el("span", { id: "counter", "aria-live": "polite" });
  const go = (n) => { step = Math.max(0, Math.min(most, n)); draw(); };
  slider.addEventListener("input", () => go(Number(slider.value)));
  const controls = el("div", { class: "stepper" },
    el("button", { type: "button", "aria-label": "first move", onclick: () => go(0), text: "« first" }),
    el("button", { type: "button", id: "back", "aria-label": "previous move", onclick: () => go(step - 1), text: "◀" }),
    track,
    el("button", { type: "button", id: "forward", "aria-label": "next move", onclick: () => go(step + 1), text: "▶" }),
    el("button", { type: "button", "aria-label": "last move", onclick: () => go(most), text: "last »" }),
    counter);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.target !== slider) return;
    const to = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: most }[e.key];
    if (to !== undefined && e.target !== slider) { e.preventDefault(); go(to); }
  });
  const lost = el("section", { id: "hindsight", class: "hindsight", "aria-live": "polite" }, el("p", { class: "hint", text: "asking the server where each game was lost (hindsight)…" }));
  body.append(el("h2", { text: "The race, move by move" }), el("p", { class: "hint", text: "← → step through the moves, Home and End jump; pick a player for each side." }), controls, boards, lost);
  // a jump: the player whose move it was takes the first side unless a side shows them already
  function toPlayer(n, player) {
    const i = checked.games.findIndex((x) => x.player.id === player.id);
    if (i >= 0 && !sides.includes(i)) sides[0] = i;
    go(n);
    const board = [...boards.querySelectorAll(".side")].find((s) => s.dataset.player === player.name);
    reveal(board && board.querySelector(".lostmark, .winmark"));
  }
  draw();
  let shown = lost;
  const show = (a) => {
    analysis = a;
    const next = hindsightPanel(a, toPlayer);
    shown.replaceWith(next);
    shown = next;
    draw();
  };
  // this browser's player (the play page remembers who raced here): their game is analysed first
  const me = localStorage.getItem("terrace.me");
  const mine = results.some((r) => r.player.id === me) ? me : null;
  watchHindsight(conn, record.id, show, (why) => shown.replaceChildren(el("p", { class: "hint", text: `No hindsight: ${why}` })), show, mine);
}

// The hindsight panel lies below the boards, a screen or more on a phone: after its jump, bring the
// marked board into view, its ⚑ at the top, unless the marker is already on screen.
function reveal(mark) {
  if (!mark) return;
  const r = mark.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) mark.closest(".side").scrollIntoView({ block: "start" });
}

function side(games, g, step, choose, analysis) {
  const game = games[g];
  const at = Math.min(step, game.views.length - 1);
  const picker = el("select", { "aria-label": "player shown", onchange: (e) => choose(Number(e.target.value)) },
    games.map((x, i) => el("option", { value: i, selected: i === g, text: `${x.row.place ?? "–"}. ${x.player.name}` })));
  const last = at > 0 ? game.moves[at - 1] : "deal";
  const mark = markerAt(gameOf(analysis, game.player), at);
  return el("div", { class: "side", "data-player": game.player.name },
    el("div", { class: "sidehead" }, picker, el("span", { class: "lastmove", text: ` ${at}/${game.views.length - 1}: ${last}${at === game.views.length - 1 ? ` · ${game.row.finish}` : ""}` }),
      mark ? el("span", { class: mark.cls, role: "note", text: ` ${mark.text}` }) : ""),
    drawBoard(game.views[at]));
}
