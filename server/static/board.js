// A player's board drawn from a view (the server's or a replayed one), as text and CSS cards.
// Every place is a button when the board is played, so a keyboard can pick sources and targets.
import { back, card, cardLabel, el } from "./ui.js";
import { louisLegend, placeWords } from "./words.js";

// opts: {pick(place), drop(from, to), selected, targets: Set of places}; without pick the board is only shown.
export function drawBoard(view, opts = {}) {
  opts = { ...opts, variant: view.variant };
  return view.variant === "louis" ? louis(view, opts) : family(view, opts);
}

// `names` are the place's cards (bottom to top), `cards` what is drawn of them. Hover and screen
// readers say what the place is in words (the core's, as the terminal's help), then what is on it.
function place(name, label, names, cards, opts, cls = "") {
  const top = names.length ? cardLabel(names.at(-1)) : "empty";
  const words = placeWords(opts.variant, name);
  const attrs = {
    class: `place ${cls}${opts.selected === name ? " selected" : ""}${opts.targets && opts.targets.has(name) ? " target" : ""}`,
    "data-place": name,
    title: `${words}${label.includes("just dealt") ? " (just dealt)" : ""}`,
    "aria-label": `${label}: ${names.length ? `${names.length} card${names.length > 1 ? "s" : ""}, top ${top}` : "empty"}. ${words}`,
  };
  if (opts.pick) {
    // a card may also be dragged from its place and dropped on another
    return el("button", {
      ...attrs, type: "button", draggable: names.length ? "true" : undefined, onclick: () => opts.pick(name),
      ondragstart: (e) => e.dataTransfer.setData("text/plain", name),
      ondragover: (e) => e.preventDefault(),
      ondrop: (e) => { e.preventDefault(); const from = e.dataTransfer.getData("text/plain"); if (from && from !== name) opts.drop(from, name); },
    }, el("span", { class: "label", "aria-hidden": "true", text: name }), ...cards);
  }
  return el("div", { ...attrs, role: "group" }, el("span", { class: "label", "aria-hidden": "true", text: name }), ...cards);
}

// The stock shows its count only: its cards are the secret of the deal.
function stock(v, label, opts) {
  const words = placeWords(v.variant, "S");
  const attrs = { class: "place stock", "data-place": "S", title: words, "aria-label": `${label}: ${v.stock} cards face down. ${words}` };
  const inside = [el("span", { class: "label", "aria-hidden": "true", text: "S" }), v.stock ? back(v.stock) : ""];
  return opts.pick ? el("button", { ...attrs, type: "button", onclick: () => opts.pick("S") }, ...inside) : el("div", { ...attrs, role: "group" }, ...inside);
}

const tops = (cards, n) => cards.slice(-n).map((c, i, a) => card(c, i === a.length - 1 ? "top" : ""));

function family(v, opts) {
  return el("div", { class: "board family" },
    el("div", { class: "row" },
      place("T", "terrace", v.terrace, v.terrace.map((c, i) => card(c, i === v.terrace.length - 1 ? "top" : "")), opts, "terrace")),
    el("div", { class: "row" },
      stock(v, "stock", opts),
      place("W", "waste", v.waste, tops(v.waste, 3), opts, "waste fan"),
    ),
    el("div", { class: "row foundations" }, Object.entries(v.foundations).map(([f, cs]) => place(f, `foundation ${f}`, cs, tops(cs, 1), opts, "found"))),
    el("div", { class: "row piles" }, Object.entries(v.piles).map(([k, cs]) => place(k, `pile ${k}`, cs, cs.map((c) => card(c)), opts, "column"))),
    el("p", { class: "facts", text: `base ${v.base || "not chosen"} · ${v.score} home · terrace ${v.terrace_left} left · stock ${v.stock}${v.variant === "signora" ? ` · recycles ${v.recycles_left}` : ""} · ${v.moves} move${v.moves === 1 ? "" : "s"}` }),
  );
}

// Louis's places are explained below its board, in the core's words (its heaps, the two kinds of
// foundation, abeyance, the deals).
function louis(v, opts) {
  const found = Object.entries(v.foundations);
  return el("div", { class: "board louis" },
    el("div", { class: "row foundations" }, found.slice(0, 4).map(([f, cs]) => place(f, `ace foundation ${f}`, cs, tops(cs, 1), opts, "found"))),
    el("div", { class: "row foundations" }, found.slice(4).map(([f, cs]) => place(f, `king foundation ${f}`, cs, tops(cs, 1), opts, "found"))),
    el("div", { class: "row" },
      Object.entries(v.abeyance).map(([x, c]) => place(x, `abeyance ${x}`, c ? [c] : [], c ? [card(c)] : [], opts, "found")),
      stock(v, `stock, next heap ${v.next_heap || "none"}`, opts)),
    el("div", { class: "row piles heaps" }, Object.entries(v.heaps).map(([h, cs]) => place(h, `heap ${h}${v.live === h ? " (just dealt)" : ""}`, cs, cs.map((c) => card(c)), opts, `column${v.live === h ? " live" : ""}`))),
    el("ul", { class: "legend", "aria-label": "what the places are" }, louisLegend.map((l) => el("li", { text: l }))),
    el("p", { class: "facts", text: `deal ${v.deal} of 3 · ${v.phase} · next heap ${v.next_heap || "–"} · ${v.score} home · stock ${v.stock} · ${v.moves} move${v.moves === 1 ? "" : "s"}` }),
  );
}
