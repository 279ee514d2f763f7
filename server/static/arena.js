// Arenas: the list (upcoming, running, finished) and one arena's page: a countdown to its start
// or its end, the scoring rule, live standings (pushed as its races end) and its races, each
// linked to its own page where it can be checked. Join races in it from the play page
// (/play?arena=ID); Leave here too, as the player the play page remembers.
import { clock, el, message, who } from "./ui.js";

const remembered = (k) => localStorage.getItem("terrace." + k);

const RULE = "A race earns one point per player you beat (players in the race minus your place), " +
  "doubled once you have won your two previous arena races in a row. " +
  "A race played faster than a person plays, by a voided account, or beside another person of your address earns nothing.";

export function mount(main, id, conn) {
  return id ? one(main, id, conn) : list(main, conn);
}

// The server's clock minus ours: countdowns use the server's time.
let skew = 0;
const now = () => Date.now() + skew;

function countdown(a) {
  const t = now();
  if (t < a.starts_ms) return `starts in ${clock(a.starts_ms - t)}`;
  if (t < a.ends_ms) return `ends in ${clock(a.ends_ms - t)}`;
  return "finished";
}

function stateOf(a) {
  const t = now();
  return t < a.starts_ms ? "upcoming" : t < a.ends_ms ? "running" : "finished";
}

function list(main, conn) {
  const out = el("section", { "aria-live": "polite", id: "arenas" });
  main.replaceChildren(el("h1", { text: "Arenas" }),
    el("p", { text: "Timed tournaments: join one and you are paired into race after race until it ends. " + RULE }), out);
  let answer = null;
  const table = (arenas) => el("table", { class: "arenas" },
    el("thead", {}, el("tr", {}, ["arena", "variant", "pool", "when", "players", "races"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, arenas.map((a) => el("tr", { "data-arena": a.id },
      el("td", {}, el("a", { href: `/arena/${a.id}`, text: a.name || a.id })),
      el("td", { text: a.variant }), el("td", { text: a.pool }),
      el("td", { class: "when", text: countdown(a) }),
      el("td", { class: "num", text: a.players }), el("td", { class: "num", text: a.races })))));
  const draw = () => {
    if (!answer) return;
    const parts = [];
    for (const [state, title] of [["running", "Running"], ["upcoming", "Upcoming"], ["finished", "Finished"]]) {
      parts.push(el("h2", { text: title }));
      parts.push(answer[state].length ? table(answer[state]) : el("p", { class: "empty", text: `No ${state} arena.` }));
    }
    out.replaceChildren(...parts);
  };
  const ask = async () => {
    const a = await conn.request("arenas");
    if (a.type !== "arenas") return;
    skew = a.now - Date.now();
    answer = a;
    draw();
  };
  setInterval(draw, 1000);
  setInterval(ask, 10000);
  return { connected: ask };
}

function one(main, id, conn) {
  const head = el("section", { id: "arena-head", "aria-label": "arena" });
  const when = el("p", { id: "countdown", role: "timer", "aria-live": "off" });
  const table = el("section", { id: "arena-standings", "aria-live": "polite", "aria-label": "standings" });
  const races = el("section", { id: "arena-races", "aria-label": "races" });
  const seat = el("div", { id: "arena-seat-box" });
  const said = el("div", { "aria-live": "polite" });
  main.replaceChildren(head, when, seat, said, el("p", { class: "rule", text: RULE }), table, races);
  let arena = null;

  const tick = () => { if (arena) when.textContent = countdown(arena); };
  // Join: the play page joins and races; Leave: said as the player this browser races as
  const drawSeat = () => {
    const mine = remembered("arena") === id;
    if (stateOf(arena) === "finished") return seat.replaceChildren();
    seat.replaceChildren(el("p", { class: "buttons" },
      mine ? el("a", { class: "button primary", id: "arena-back", href: `/play?arena=${id}`, text: "Back to your races" })
        : el("a", { class: "button primary", id: "arena-join", href: `/play?arena=${id}`, text: "Join" }),
      mine ? el("button", { type: "button", id: "arena-leave", text: "Leave", onclick: leave }) : "",
      el("span", { class: "hint", text: mine ? " You are in this arena." : ` Race in it from this browser (${arena.pool === "bots" ? "bots join with: terrace-bot run BOT --arena " + id : "as a guest or with your account"}).` })));
  };
  const leave = async () => {
    const session = remembered("session"), token = remembered("token");
    const hello = await conn.request("hello", session ? { session } : token ? { token } : { name: remembered("name") || "" });
    const left = hello.type === "welcome" ? await conn.request("arena_leave", { arena: id }) : hello;
    if (left.type === "error" && left.code !== "not_in_arena") return message(said, left.message, "error");
    localStorage.removeItem("terrace.arena");
    message(said, "You left the arena: your points stay on its standings.");
    drawSeat();
  };
  const draw = () => {
    head.replaceChildren(el("h1", { text: `Arena ${arena.name || arena.id}` }),
      el("p", { id: "arena-meta", text: `${arena.variant} · goal ${arena.goal} · pool ${arena.pool} · ${stateOf(arena)} · ${arena.players} player${arena.players === 1 ? "" : "s"} (${arena.joined} joined)` }));
    tick();
    drawSeat();
    const rows = arena.standings;
    table.replaceChildren(el("h2", { text: stateOf(arena) === "finished" ? "Final standings" : "Standings" }),
      rows.length ? el("table", { class: "leaderboard arena-standings" },
        el("thead", {}, el("tr", {}, ["rank", "player", "points", "races", "wins", "streak"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, rows.map((r) => el("tr", {},
          el("td", { class: "num", text: r.rank }), el("td", {}, who(r.player)),
          el("td", r.held ? { class: "num points", text: `${r.points} (${r.held} held)`, title: "races played faster than a person plays, by a voided account, or beside another person of the same address earn nothing" }
            : { class: "num points", text: r.points }),
          el("td", { class: "num", text: r.races }),
          el("td", { class: "num", text: r.wins }),
          el("td", { class: "num", text: r.streak >= 2 ? `${r.streak} (double)` : String(r.streak) })))))
        : el("p", { class: "empty", text: "Nobody has joined yet: press Join to race in it from this browser, or run a bot in it with: terrace-bot run BOT --arena " + arena.id }));
    const ids = arena.race_ids;
    races.replaceChildren(el("h2", { text: `Races (${ids.length})` }),
      ids.length ? el("ol", { class: "arena-races" }, ids.map((r) => el("li", {}, el("a", { href: `/race/${r}`, text: r }))))
        : el("p", { class: "empty", text: "No race has ended yet." }),
      el("p", { class: "note", text: "Each race can be checked on its own page, or with: terrace verify RACE; the whole arena with: terrace arena verify " + arena.id }));
  };

  conn.on("arena", (m) => {
    if (m.re !== undefined || m.arena.id !== id) return;
    skew = m.now - Date.now();
    arena = m.arena;
    draw();
  });
  setInterval(() => {
    const before = arena && stateOf(arena);
    tick();
    if (arena && stateOf(arena) !== before) draw();
  }, 250);
  return {
    async connected() {
      const a = await conn.request("arena", { arena: id, watch: true });
      if (a.type === "error") {
        head.replaceChildren(el("h1", { text: "Arena" }), el("p", { class: "error", role: "alert", text: a.message }));
        return;
      }
      skew = a.now - Date.now();
      arena = a.arena;
      draw();
    },
  };
}
