// Small DOM helpers shared by the pages: elements, cards as text, times, player names.
const SUITS = { c: ["♣", "clubs"], d: ["♦", "diamonds"], h: ["♥", "hearts"], s: ["♠", "spades"] };
const RANKS = { A: "ace", T: "ten", J: "jack", Q: "queen", K: "king" };

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) e.append(c);
  return e;
}

export function cardLabel(name) {
  const [rank, suit] = [name.slice(0, -1), name.slice(-1)];
  return `${RANKS[rank] || rank} of ${SUITS[suit][1]}`;
}

// A card drawn with text and CSS: rank and suit symbol, red or black, with a spoken name.
export function card(name, extra = "") {
  const rank = name.slice(0, -1) === "T" ? "10" : name.slice(0, -1);
  const suit = name.slice(-1);
  const red = suit === "d" || suit === "h";
  return el("span", { class: `card ${red ? "red" : "black"} ${extra}`, role: "img", "aria-label": cardLabel(name), "data-card": name }, rank + SUITS[suit][0]);
}

export function back(count, label = "stock") {
  return el("span", { class: "card back", role: "img", "aria-label": `${label}: ${count} cards face down` }, String(count));
}

export function clock(ms) {
  if (ms === null || ms === undefined) return "";
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// A race time as the terminal shows it: minutes, seconds and tenths (a clock counting down shows whole seconds).
export function raceTime(ms) {
  const tenths = Math.floor(ms / 100);
  return `${Math.floor(tenths / 600)}:${String(Math.floor(tenths / 10) % 60).padStart(2, "0")}.${tenths % 10}`;
}

// Why a finished race does not count for ratings, or "" when it does: the terminal's words
// (client/layout.py rated_note).
export function ratedNote(results, unrated) {
  const players = results.map((r) => r.player || {});
  if (unrated === "same_address") return "Not rated: two of its accounts play from one address (or one install), and such a race counts on no board.";
  if (players.length < 2) return "Not rated: a race of one.";
  if (players.some((p) => p.guest !== false)) return "Not rated: ratings count only races of registered players (guests and house bots are not).";
  if (new Set(players.map((p) => p.kind)).size > 1) return "Not rated: ratings compare people with people and bots with bots, never a mix.";
  return "";
}

export function who(player) {
  return el("span", { class: "who" }, player.name, " ", el("span", { class: `kind ${player.kind}`, text: player.kind === "bot" ? "bot" : "person" }));
}

export function message(box, text, kind = "note") {
  box.replaceChildren(el("p", { class: kind, role: kind === "error" ? "alert" : "status", text }));
}

export const VARIANTS = ["terrace", "queen-of-italy", "signora", "louis"];
export const goalsOf = (variant) => (variant === "louis" ? ["clear"] : ["terrace", "clear"]);

export function select(name, options, value) {
  return el("select", { name, id: name }, options.map((o) => el("option", { value: o, selected: o === value, text: o })));
}

// Standings rows as a table with progress bars (terrace left, cards home): counts only, never cards.
export function standingsTable(rows, variant) {
  const family = variant !== "louis";
  return el("table", { class: "standings" },
    el("thead", {}, el("tr", {}, ["#", "player", family ? "terrace" : "", "home", "moves", "finish"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows.map((r) => el("tr", { class: r.connected === false ? "away" : "" },
      // a live race's rows carry `live`, the place if it ended now (ties shared), as the terminal shows it
      el("td", r.place == null && r.live != null ? { text: r.live, title: "place if the race ended now" } : { text: r.place ?? "" }),
      el("td", {}, who(r.player)),
      el("td", {}, family ? bar(11 - r.terrace_left, 11, `${r.terrace_left} left`) : ""),
      el("td", {}, bar(r.score, 104, String(r.score))),
      el("td", { class: "num", text: r.moves }),
      el("td", { text: r.finish ? `${r.finish}${r.time !== null && r.time !== undefined ? " " + raceTime(r.time) : ""}` : "" }),
    ))));
}

function bar(value, max, text) {
  return el("span", { class: "bar" },
    el("meter", { min: 0, max, value, "aria-label": text }),
    el("span", { class: "num", text }));
}
