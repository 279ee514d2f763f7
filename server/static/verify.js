// Checking a finished race in this browser: the commitment, the deal and its first view, a
// winnable-only race's winning line, and every player's moves replayed to the recorded score.
// Returns each check with a sentence, and the replayed views for stepping through the race.
import { commitment, deckOf, hasWebCrypto, shuffle, unhex } from "./deal.js";
import { newGame } from "./replay.js";

const SAME_FIRST_VIEW = {
  louis: ["foundations", "abeyance", "heaps", "stock"],
  family: ["terrace", "foundations", "piles", "waste", "stock"],
};

// The placing rule: goal finishers by time; then more cards home, fewer terrace cards left, and
// the earlier last card home; equal players share a place and the next places skip (1, 2, 2, 4).
function misplaced(rows) {
  const key = (r) => (r.finish === "goal" ? [0, r.time, 0, 0, 0] : [1, 0, -r.score, r.terrace_left, r.last_home ?? 2 ** 62]);
  const before = (a, b) => { for (let i = 0; i < 5; i++) if (a[i] !== b[i]) return a[i] < b[i]; return false; };
  return rows.flatMap((r) => {
    const place = 1 + rows.filter((o) => before(key(o), key(r))).length;
    return place === r.place ? [] : [`${r.player.name} is placed ${r.place}, the rule says ${place}`];
  });
}

// A winnable-only race's `solution`, the solver's line replayed from the deal: the proof, needing no
// trust in the server, that the deal was winnable. Returns [ok, sentence].
function solutionCheck(variant, deck, line) {
  if (!Array.isArray(line) || !line.every((m) => typeof m === "string")) return [false, "solution: not a list of moves"];
  const game = newGame(variant, deck);
  for (const [i, move] of line.entries()) {
    const why = game.play(move);
    if (why) return [false, `solution: the line stops at move ${i + 1} (${why})`];
  }
  const home = game.view().score;
  return home === 104
    ? [true, `solution: the deal is winnable: the ${line.length}-move line wins it (all 104 cards home)`]
    : [false, `solution: the ${line.length} moves end with ${home} cards home, not a won game`];
}

export async function verify(record) {
  const checks = [];
  const add = (ok, text) => checks.push({ ok, text });
  const seed = unhex(record.seed);
  if (!seed || seed.length !== 32) {
    add(false, "seed: the record's seed is not 32 bytes of hex");
    return { ok: false, checks, games: [] };
  }
  const made = await commitment(seed);
  const how = hasWebCrypto() ? "WebCrypto SHA-256" : "SHA-256 in JavaScript";
  add(made === record.commitment, made === record.commitment
    ? `commitment: ${how} of the seed is the published ${record.commitment.slice(0, 16)}…`
    : `commitment: the seed hashes to ${made.slice(0, 16)}…, not the published ${String(record.commitment).slice(0, 16)}…`);
  const deck = await shuffle(deckOf(record.variant), seed);
  if ("first_view" in record) {
    const dealt = newGame(record.variant, deck).view();
    const fields = SAME_FIRST_VIEW[record.variant === "louis" ? "louis" : "family"];
    const differ = fields.filter((k) => JSON.stringify(dealt[k]) !== JSON.stringify((record.first_view || {})[k]));
    add(!differ.length, differ.length
      ? `first view: the deal differs from the recorded first view in ${differ.join(", ")}`
      : "first view: DEAL-V1 deals exactly the recorded first view");
  } else {
    add(true, "first view: not kept in this record (an older server); the moves below are replayed from the deal");
  }
  if ("solution" in record) add(...solutionCheck(record.variant, deck, record.solution));
  const games = [];
  for (const row of record.results) {
    const game = newGame(record.variant, deck);
    const views = [game.view()];
    let stopped = null;
    for (const [i, move] of (row.move_list || []).entries()) {
      const why = game.play(move);
      if (why) { stopped = `move ${i + 1} (${why})`; break; }
      views.push(game.view());
    }
    const last = views.at(-1), name = row.player.name;
    if (stopped) add(false, `${name}: replay stops at ${stopped}`);
    else if (last.score !== row.score || last.terrace_left !== row.terrace_left || last.moves !== row.moves) {
      add(false, `${name}: the replay ends with ${last.score} home, ${last.terrace_left} terrace left, ${last.moves} moves; the record says ${row.score}, ${row.terrace_left}, ${row.moves}`);
    } else add(true, `${name}: ${row.moves} move${row.moves === 1 ? "" : "s"} replayed to ${row.score} home, ${row.terrace_left} terrace left`);
    games.push({ player: row.player, row, moves: row.move_list || [], views });
  }
  const wrong = misplaced(record.results);
  add(!wrong.length, wrong.length ? `places: ${wrong.join("; ")}` : "places: every place follows from goal times, scores, terrace left and last cards home");
  return { ok: checks.every((c) => c.ok), checks, games };
}
