// Replaying a record in the browser: a game dealt from the shuffled deck, canonical moves applied
// one by one, and the same view the server sends (docs/ENGINE.md, "Views"). The server judged every
// move; this replay checks the rules that decide where a card may go, so a record that was changed
// by hand shows where it stops making sense.
import { NAME } from "./deal.js";

const RANK = (c) => "A23456789TJQK".indexOf(c[0]) + 1;
const SUIT = (c) => c[1];
const RED = (c) => c[1] === "d" || c[1] === "h";
const up = (r) => (r % 13) + 1;
const down = (r) => r - 1 || 13;
const PILES = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
const FOUNDS = ["F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8"];
const HEAPS = [..."abcdefghiklm"];
const GATHER = [..."ghiklmabcdef"];

export function newGame(variant, deck) {
  return variant === "louis" ? new Louis(deck.map((c) => NAME[c])) : new Family(variant, deck.map((c) => NAME[c]));
}

class Family {
  constructor(variant, cards) {
    this.variant = variant;
    this.p = { T: cards.slice(0, 11), W: [], S: cards.slice(15).reverse() };
    PILES.forEach((k, i) => { this.p[k] = i < 4 ? [cards[11 + i]] : []; });
    FOUNDS.forEach((f) => { this.p[f] = []; });
    this.base = null;
    this.recycles = variant === "signora" ? 1 : 0;
    this.moves = 0;
  }

  terraceFree() {
    return this.variant === "signora" && !this.p.S.length && !this.p.W.length;
  }

  // Plays a canonical move; returns null, or a sentence saying why it cannot be played.
  play(move) {
    const [src, dst] = move.split("-");
    const p = this.p;
    if (!(src in p) || !(dst in p)) return `${move} names no place`;
    if (this.base === null) {
      if (dst !== "F1" || !["1", "2", "3", "4"].includes(src)) return `${move} is not a choice of base`;
      p.F1.push(p[src].pop());
      this.base = RANK(p.F1[0]);
      p[src].push(p.S.pop());
      for (const k of PILES.slice(4)) p[k].push(p.S.pop());
    } else if (src === "S") {
      if (dst !== "W" || !p.S.length) return `${move}: the stock cannot be turned`;
      if (this.recycles === 0 && this.variant === "signora" && p.W.length) return `${move}: the waste must be played first`;
      p.W.push(p.S.pop());
    } else if (dst === "S") {
      if (src !== "W" || this.recycles < 1 || p.S.length || !p.W.length) return `${move}: no recycle here`;
      p.S = p.W.reverse();
      p.W = [];
      this.recycles -= 1;
    } else {
      const why = this.refuse(src, dst);
      if (why) return `${move}: ${why}`;
      p[dst].push(p[src].pop());
      if (this.variant === "queen-of-italy" && PILES.includes(src) && !p[src].length && p.S.length) p[src].push(p.S.pop());
    }
    this.moves += 1;
    return null;
  }

  refuse(src, dst) {
    const p = this.p;
    if (!p[src].length || src.startsWith("F")) return `nothing to move from ${src}`;
    const card = p[src].at(-1);
    if (dst.startsWith("F")) {
      const f = p[dst];
      if (!f.length) return RANK(card) === this.base ? null : `${card} cannot start a foundation`;
      const top = f.at(-1);
      const match = this.variant === "signora" ? SUIT(card) === SUIT(top) : RED(card) !== RED(top);
      return f.length < 13 && RANK(card) === up(RANK(top)) && match ? null : `${card} cannot go on ${top}`;
    }
    if (!PILES.includes(dst)) return `${dst} takes no card`;
    if (src === "T" && !this.terraceFree()) return "terrace cards go only to foundations";
    if (!p[dst].length) {
      const ok = this.variant === "signora" || (src === "W" && (this.variant === "terrace" || !p.S.length));
      return ok ? null : `${card} cannot fill the gap ${dst}`;
    }
    const top = p[dst].at(-1);
    return RANK(card) === down(RANK(top)) && RED(card) !== RED(top) ? null : `${card} cannot go on ${top}`;
  }

  view() {
    const p = this.p, copy = (k) => p[k].slice();
    const score = FOUNDS.reduce((n, f) => n + p[f].length, 0);
    return {
      variant: this.variant, phase: this.base === null ? "choose-base" : "play",
      base: this.base === null ? null : "A23456789TJQK"[this.base - 1],
      terrace: copy("T"), foundations: Object.fromEntries(FOUNDS.map((f) => [f, copy(f)])),
      piles: Object.fromEntries(PILES.map((k) => [k, copy(k)])), waste: copy("W"), stock: p.S.length,
      recycles_left: this.recycles, terrace_free: this.terraceFree(), score, terrace_left: p.T.length, moves: this.moves,
    };
  }
}

class Louis {
  constructor(cards) {
    this.variant = "louis";
    this.p = { S: cards.slice().reverse() };
    for (const s of "cdhs") {
      this.p["A" + s] = ["A" + s];
      this.p["K" + s] = ["K" + s];
      this.p["X" + s] = [];
    }
    HEAPS.forEach((h) => { this.p[h] = []; });
    this.deal = 1;
    this.first = true;
    this.last = null;
    this.live = null;
    this.moves = 0;
  }

  target() {
    if (this.last === null) return "a";
    const i = HEAPS.indexOf(this.last);
    return this.first && !this.p[this.last].length ? this.last : HEAPS[(i + 1) % 12];
  }

  fits(card, f) {
    const pile = this.p[f], top = pile.at(-1);
    if (SUIT(card) !== f[1] || pile.length >= 13) return false;
    return f[0] === "A" ? RANK(card) === RANK(top) + 1 : RANK(card) === RANK(top) - 1;
  }

  play(move) {
    const p = this.p;
    if (move === "redeal") {
      if (p.S.length || this.deal >= 3) return "redeal: no redeal here";
      const gathered = GATHER.flatMap((h) => p[h]);
      HEAPS.forEach((h) => { p[h] = []; });
      p.S = gathered.reverse();
      Object.assign(this, { deal: this.deal + 1, first: true, last: null, live: null });
    } else {
      const [src, dst] = move.split("-");
      if (!(src in p) || !(dst in p)) return `${move} names no place`;
      if (src === "S") {
        if (!p.S.length || dst !== this.target()) return `${move}: the next card goes to heap ${this.target()}`;
        if (this.first && this.last === "m" && dst === "a") this.first = false;
        p[dst].push(p.S.pop());
        this.last = dst;
        this.live = p.S.length ? dst : null;
      } else {
        if (!p[src].length || "AK".includes(src[0]) && src.length === 2) return `${move}: nothing to move from ${src}`;
        const card = p[src].at(-1);
        if ("AK".includes(dst[0]) && dst.length === 2) {
          const cell = p["X" + SUIT(card)];
          if (!this.fits(card, dst) && HEAPS.includes(src) && cell.length && this.fits(cell[0], dst)) p[dst].push(cell.pop());
          if (!this.fits(card, dst)) return `${move}: ${card} cannot go on ${p[dst].at(-1)}`;
        } else if (dst[0] === "X" && (p[dst].length || dst[1] !== SUIT(card))) return `${move}: the abeyance cell cannot take ${card}`;
        p[dst].push(p[src].pop());
        if (src === this.live) this.live = null;
      }
    }
    this.moves += 1;
    return null;
  }

  view() {
    const p = this.p, found = [..."cdhs"].flatMap((s) => ["A" + s]).concat([..."cdhs"].map((s) => "K" + s));
    return {
      variant: "louis", phase: p.S.length ? "deal" : "play", deal: this.deal, deals_left: 3 - this.deal,
      foundations: Object.fromEntries(found.map((f) => [f, p[f].slice()])),
      abeyance: Object.fromEntries([..."cdhs"].map((s) => ["X" + s, p["X" + s][0] ?? null])),
      heaps: Object.fromEntries(HEAPS.map((h) => [h, p[h].slice()])), stock: p.S.length,
      next_heap: p.S.length ? this.target() : null, live: this.live,
      score: found.reduce((n, f) => n + p[f].length, 0), terrace_left: 0, moves: this.moves,
    };
  }
}
