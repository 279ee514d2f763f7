// DEAL-V1 in the browser: SHA-256 (WebCrypto, or plain JS where the page is not a secure
// context), the shuffle, the deck of each variant and card names (PROTOCOL.md, "Verifying a race").
const SUITS = "cdhs";
const RANKS = "A23456789TJQK";
export const NAME = Array.from({ length: 104 }, (_, id) => RANKS[id % 13] + SUITS[Math.floor(id / 13) % 4]);
const LOUIS_OUT = new Set([0, 13, 26, 39, 12, 25, 38, 51]); // pack 0's aces and kings

export const hasWebCrypto = () => !!(globalThis.crypto && crypto.subtle);

export async function sha256(bytes) {
  if (hasWebCrypto()) return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return sha256js(bytes);
}

export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export function unhex(text) {
  if (typeof text !== "string" || !/^([0-9a-fA-F]{2})+$/.test(text)) return null;
  return Uint8Array.from(text.match(/../g), (h) => parseInt(h, 16));
}

const concat = (a, b) => { const out = new Uint8Array(a.length + b.length); out.set(a); out.set(b, a.length); return out; };

export async function commitment(seed) {
  return hex(await sha256(concat(new TextEncoder().encode("terrace-commit:"), seed)));
}

export function deckOf(variant) {
  const ids = [...Array(104).keys()];
  return variant === "louis" ? ids.filter((c) => !LOUIS_OUT.has(c)) : ids;
}

// The shuffled deck: Fisher-Yates drawing from SHA-256(seed || k) blocks, 8 bytes at a time.
export async function shuffle(cards, seed) {
  const a = cards.slice();
  let block = new Uint8Array(0), at = 0, k = 0n;
  const next = async () => {
    if (at + 8 > block.length) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, k++);
      block = await sha256(concat(seed, counter));
      at = 0;
    }
    const x = new DataView(block.buffer, at, 8).getBigUint64(0);
    at += 8;
    return x;
  };
  for (let i = a.length - 1; i > 0; i--) {
    const n = BigInt(i + 1), limit = ((1n << 64n) / n) * n;
    let x = await next();
    while (x >= limit) x = await next();
    const j = Number(x % n);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

// Plain SHA-256 for pages served over http:// to another host, where WebCrypto is absent.
const K = Uint32Array.from("428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2".split(" "), (h) => parseInt(h, 16));

function sha256js(bytes) {
  const len = bytes.length, total = Math.ceil((len + 9) / 64) * 64;
  const m = new Uint8Array(total);
  m.set(bytes);
  m[len] = 0x80;
  new DataView(m.buffer).setUint32(total - 4, len * 8);
  new DataView(m.buffer).setUint32(total - 8, Math.floor(len / 0x20000000));
  const h = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64), dv = new DataView(m.buffer);
  const r = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = r(w[i - 15], 7) ^ r(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = r(w[i - 2], 17) ^ r(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (r(e, 6) ^ r(e, 11) ^ r(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((r(a, 2) ^ r(a, 13) ^ r(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((v, i) => { h[i] = (h[i] + v) | 0; });
  }
  const out = new Uint8Array(32);
  h.forEach((v, i) => new DataView(out.buffer).setUint32(i * 4, v));
  return out;
}
export { sha256js };
