// Hindsight on a finished race: the server's `analysis` (each game looked at again with the stock
// known, which no player saw): where it was last winnable, the move that lost it, the win from there.
// The server makes it in its workers; while it does, it answers `analysing` and this page asks again.
import { el } from "./ui.js";

// Asks for the race's analysis until it is made; calls `ready(analysis)` once, or `failed(message)`;
// meanwhile `partial(analysis)` with the games made so far (the asker's own first), as they come.
export function watchHindsight(conn, raceId, ready, failed, partial = () => {}, first = null) {
  let told = 0;
  let stopped = false;
  const ask = async () => {
    if (stopped) return;
    const a = await conn.request("analysis", first ? { race: raceId, first } : { race: raceId });
    if (stopped) return;
    if (a.type === "analysis") return ready(a);
    if (a.type === "analysing") {
      if (a.players && a.players.length > told) { told = a.players.length; partial({ ...a, pending: true }); }
      return setTimeout(ask, (a.retry_after || 1) * 1000);
    }
    failed(a.message || "no analysis");
  };
  ask();
  return () => { stopped = true; };
}

export function gameOf(analysis, player) {
  if (!analysis) return null;
  return analysis.players.find((g) => g.player.id === player.id) || null;
}

// What to show beside a side's move counter at step `at` (moves played), or "".
// The marker on step `at` of a game, or null: a red ⚑ on the move that lost it, a green ✓
// on the last position proven winnable when which move lost it is undecided.
export function markerAt(game, at) {
  if (!game || at === 0) return null;
  if (game.losing_move !== null && at === game.losing_move + 1) return { cls: "lostmark", text: "⚑ this move lost it (hindsight)" };
  if (game.verdict === "unknown" && game.last_winnable !== null && at === game.last_winnable) return { cls: "winmark", text: "✓ last position proven winnable (hindsight)" };
  return null;
}

// The same words as terrace.solve.hindsight.sentence (the terminal's): only what was proven.
function sentence(g) {
  const lw = g.last_winnable, fl = g.first_lost;
  // the race's goal reached (the terrace cleared): the solver's "still winnable" is about the whole
  // game, which the race never asked for; nothing was lost
  if (g.reached && (g.verdict === "stopped_winnable" || g.verdict === "won")) return "reached the race's goal: no move lost it.";
  switch (g.verdict) {
    case "won": return "won.";
    case "lost_by_move": return `move ${g.losing_move + 1} lost it (proven): the game was winnable before it and not after.`;
    case "stopped_winnable": return "still winnable when the game ended: no move lost it.";
    case "lost_from_deal": return "the deal was lost from the start: no line wins it.";
    default:
      if (lw === null) return "undecided: no position of this game was proven winnable within the budget.";
      if (fl !== null) return `winnable after move ${lw} and lost after move ${fl}: one of moves ${lw + 1} to ${fl} lost it (which one is undecided within the budget).`;
      return `winnable after move ${lw}; nothing later was proven, so whether a later move lost the game is undecided within the budget.`;
  }
}

// The last position proven winnable worth a jump (not the deal, not the end of a game that won or
// reached the race's goal), or null. `g.reached` is set by the race page from the results.
export function lastWinnable(g) {
  return g.verdict !== "won" && !g.reached && g.last_winnable !== null && g.last_winnable > 0 ? g.last_winnable : null;
}

// Marks on the move slider: ✓ the last winnable position, ⚑ the move that lost it, per game.
// `most` is the slider's maximum; each mark is a button that jumps there.
export function sliderMarks(analysis, most, jump) {
  // players whose mark falls on the same step share one mark (one button on top of another would
  // hide it): its words name them all, and it jumps to the first of them
  const at = new Map();
  const add = (step, cls, sign, words, g) => {
    const key = `${cls} ${step}`;
    if (!at.has(key)) at.set(key, [step, cls, sign, words, g, []]);
    at.get(key)[5].push(g.player.name);
  };
  for (const g of analysis ? analysis.players : []) {
    const win = lastWinnable(g);
    if (win !== null) add(win, "winmark", "✓", `last position proven winnable, after move ${win}`, g);
    if (g.losing_move !== null) add(g.losing_move + 1, "lostmark", "⚑", `move ${g.losing_move + 1} lost it`, g);
  }
  const marks = [...at.values()].map(([step, cls, sign, words, g, names]) => [step, cls, sign, `${names.join(", ")}: ${words}`, g]);
  // the thumb's centre runs from half a thumb in to half a thumb short of the end (16 px thumbs)
  return el("div", { class: "marks", "aria-label": "marks on the moves" }, marks.map(([at, cls, sign, words, g]) => {
    const mark = el("button", { type: "button", class: `mark ${cls === "winmark" ? "mark-win" : "mark-lost"}`, "data-step": at, title: words, "aria-label": words, onclick: () => jump(at, g.player), text: sign });
    mark.style.left = `calc(8px + (100% - 16px) * ${most ? at / most : 0})`; // (a style attribute would break the pages' CSP)
    return mark;
  }));
}

// The panel: one line per game, buttons to the last winnable position and to the move that lost
// it, and the win the player missed. While the others are made (`pending`), the games done so far.
export function hindsightPanel(analysis, jump) {
  return el("section", { id: "hindsight", class: "hindsight" },
    el("h2", { text: "Where was it lost" }),
    el("p", { class: "hint", text: "Hindsight: the server's solver looked at each game again with the stock known, which no player saw. It claims only what it proved." }),
    analysis.pending ? el("p", { class: "hint", id: "hindsight-pending", text: "Still looking at the other games…" }) : "",
    el("ul", {}, analysis.players.map((g) => el("li", { "data-player": g.player.name },
      el("strong", { text: g.player.name }), `: ${sentence(g)} `,
      lastWinnable(g) !== null ? el("button", { type: "button", class: "jump-winnable", onclick: () => jump(lastWinnable(g), g.player), text: `show the last winnable position (after move ${lastWinnable(g)})` }) : "",
      " ",
      g.losing_move !== null ? el("button", { type: "button", class: "jump", onclick: () => jump(g.losing_move + 1, g.player), text: `show move ${g.losing_move + 1}` }) : "",
      g.continuation.length && g.last_winnable !== null
        ? el("details", {}, el("summary", { text: `${g.reached ? "the whole game (beyond the race's goal) won" : "a win"} from ${g.last_winnable === 0 ? "the deal" : `after move ${g.last_winnable}`} (${g.continuation.length} moves)` }),
          el("p", { class: "line", text: g.continuation.join(" ") }))
        : ""))));
}
