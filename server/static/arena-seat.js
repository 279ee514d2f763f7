// Racing in an arena from the play page (/play?arena=ID): join it, watch its standings, and
// between races say how the last one went (place and points) and where you stand; leave it.
// The arena pairs you into race after race: each `started` comes to the play page as any race.
import { el } from "./ui.js";

const ordinal = (n) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

// `changed()` is called whenever what is shown changes; `say(text, kind)` tells the player.
export function arenaSeat(conn, store, changed, say) {
  const a = { id: null, details: null, me: null, last: null, over: false };
  let seen = null; // my row as last heard: a race counted is one more in `races`

  const heard = (details, meId) => {
    a.details = details;
    const row = details.standings.find((r) => r.player.id === meId) || null;
    if (row && seen && row.races > seen.races) {
      a.last = { place: row.places.at(-1), gained: row.points - seen.points };
    }
    seen = row;
    a.me = row;
    changed();
  };

  conn.on("arena", (m) => { if (m.re === undefined && a.id && m.arena.id === a.id && a.meId) heard(m.arena, a.meId); });
  conn.on("arena_over", (m) => { if (m.arena === a.id) { a.over = true; store.set("arena", null); changed(); } });

  return {
    get id() { return a.id; },
    async join(id, me, asked = true) {
      a.id = id;
      a.meId = me.id;
      const j = await conn.request("arena_join", { arena: id });
      if (j.type === "error") {
        a.id = null;
        store.set("arena", null);
        if (asked) say(`Cannot join arena ${id}: ${j.message}`, "error"); // (a remembered one that ended: quietly forgotten)
        return changed();
      }
      store.set("arena", id);
      const w = await conn.request("arena", { arena: id, watch: true });
      if (w.type === "arena") heard(w.arena, me.id);
    },
    async leave() {
      const id = a.id;
      await conn.request("arena_leave", { arena: id });
      await conn.request("arena_unwatch", { arena: id });
      Object.assign(a, { id: null, details: null, me: null, last: null });
      store.set("arena", null);
      say(`You left arena ${id}: your points stay on its standings.`);
    },
    // Where you stand, and between races how the last one went.
    panel(leave) {
      if (!a.id || !a.details) return "";
      const d = a.details, me = a.me;
      const count = d.standings.length;
      return el("section", { class: "arena-seat", id: "arena-seat", "aria-label": "your arena" },
        el("h2", {}, "Arena ", el("a", { href: `/arena/${d.id}`, text: d.name || d.id })),
        a.last ? el("p", { id: "arena-last", text: `Last race: ${ordinal(a.last.place)} place, ${a.last.gained >= 0 ? "+" : ""}${a.last.gained} point${Math.abs(a.last.gained) === 1 ? "" : "s"}.` }) : "",
        me ? el("p", { id: "arena-me", text: `You: ${me.points} point${me.points === 1 ? "" : "s"} from ${me.races} race${me.races === 1 ? "" : "s"} · rank ${me.rank} of ${count}.` }) : "",
        el("p", { class: "hint", id: "arena-next", text: a.over ? "The arena is over." : "Your next race starts as soon as the arena pairs you with players who are free." }),
        a.over ? "" : el("button", { type: "button", id: "arena-leave", text: "Leave the arena", onclick: leave }));
    },
  };
}
