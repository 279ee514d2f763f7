// What the pages teach and how they say moves and cards: the texts are the core's
// (terrace/rules/teach.py, served as /static/teach.js, the lines the terminal's help prints);
// here they become elements, and moves and refusals are said with the board's card symbols.
// cardsInText mirrors terrace.rules.teach.cards_in_text (tests/web/test_teach_page.py compares them).
import { TEACH } from "./teach.js";
import { el } from "./ui.js";

const CARD = new RegExp(TEACH.card_pattern, "g");

// A card as the board draws it: "Th" -> "10♥".
export function cardText(name) {
  const m = new RegExp(`^${TEACH.card_pattern}$`).exec(name);
  if (!m) return name;
  return (m[1] === "T" || m[1] === "10" ? "10" : m[1]) + TEACH.suits[m[2]];
}

// Every card in a sentence (a refusal) as the board draws it; in Louis a foundation named like
// its first card ("to Ah") stays as typed.
export function cardsInText(sentence, variant = "terrace") {
  return sentence.replace(CARD, (whole, rank, _suit, offset) => {
    const before = sentence.slice(0, offset).trimEnd().toLowerCase();
    const place = [" on", " to", "-", "at"].some((w) => before.endsWith(w)) && "AK".includes(rank);
    return place && variant === "louis" ? whole : cardText(whole);
  });
}

export const louisLegend = TEACH.louis_legend;
export const placeWords = (variant, place) => (TEACH.places[variant] || TEACH.places.terrace)[place] || place;

// The card on top of a place in a view, or null.
export function topOf(view, place) {
  if (place === "T") return view.terrace && view.terrace.length ? view.terrace.at(-1) : null;
  if (place === "W") return view.waste && view.waste.length ? view.waste.at(-1) : null;
  for (const key of ["piles", "heaps", "abeyance"]) {
    const p = view[key] || {};
    if (place in p) return Array.isArray(p[place]) ? p[place].at(-1) || null : p[place] || null;
  }
  return null;
}

// Where a move goes, in a word or two: "F2", "pile 3", "heap c", "A♥ foundation", "abeyance ♥".
function target(place, variant) {
  if (/^\d$/.test(place)) return `pile ${place}`;
  if (variant === "louis" && /^[AKX][cdhs]$/.test(place)) {
    const suit = TEACH.suits[place[1]];
    return place[0] === "X" ? `abeyance ${suit}` : `${place[0]}${suit} foundation`;
  }
  if (variant === "louis" && /^[a-m]$/.test(place)) return `heap ${place}`;
  return place;
}

// A legal move said with cards: {short: "7♥ → F2", long: "7♥ from pile 3 to F2", sourced:
// "7♥ (pile 3) → F2"}; `sourced` tells apart two moves of equal cards (two decks are in play).
export function moveWords(move, view, variant) {
  if (move === "redeal") return { short: "redeal", long: "gather the heaps and deal them again" };
  const [src, dst] = move.split("-");
  if (dst === undefined) return { short: move, long: move };
  if (src === "S") {
    return dst === "W" ? { short: "turn the stock", long: "turn the next stock card onto the waste" }
      : { short: `deal → heap ${dst}`, long: `deal the next card onto heap ${dst}` };
  }
  if (move === "W-S") return { short: "turn the waste over", long: "turn the waste over for the second pass" };
  const top = topOf(view, src);
  const from = { T: "the terrace", W: "the waste" }[src] || target(src, variant);
  const card = top ? cardText(top) : from;
  const to = target(dst, variant);
  return { short: `${card} → ${to}`, long: `${top ? `${card} from ${from}` : from} to ${to}`, sourced: `${card} (${from.replace(/^the /, "")}) → ${to}` };
}

// The goal and the rules in a few lines, and a "?" that opens the rest: the first move,
// the notation, and in Louis what its heaps, foundations and abeyance are.
export function teachBox(variant, goal, id = "teach") {
  if (!TEACH.rule_lines[variant]) variant = "terrace"; // a link's unknown variant teaches the default game, never breaks the page
  const lines = TEACH.rule_lines[variant][goal] || TEACH.rule_lines[variant].clear;
  const family = variant !== "louis";
  const more = el("div", { id: `${id}-more`, class: "teach-more", hidden: true },
    family ? el("p", { text: TEACH.first_move }) : el("ul", { class: "legend" }, TEACH.louis_legend.map((l) => el("li", { text: l }))),
    el("p", { class: "notation", text: TEACH.notation[family ? "family" : "louis"].join(" ") }),
    el("p", { class: "hint", text: "Click a card, then where it goes (or drag it); the legal moves are listed as buttons, and you may type a move too. With a mouse, hover a place to see what it is." }));
  const toggle = el("button", { type: "button", class: "help-toggle", id: `${id}-toggle`, "aria-expanded": "false", "aria-controls": `${id}-more`, title: "more about the rules", "aria-label": "more about the rules", text: "?",
    onclick: () => { more.hidden = !more.hidden; toggle.setAttribute("aria-expanded", String(!more.hidden)); } });
  return el("section", { class: "teach", id, "aria-label": "how to play" },
    el("h2", {}, `How to play ${variant}`, " ", toggle),
    el("ul", { class: "rules" }, lines.map((l, i) => el("li", { class: i === 0 ? "goal" : "", text: l }))),
    more);
}
