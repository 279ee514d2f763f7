// What a move did, in words for a person: one sentence per engine event.
// It mirrors terrace/rules/news.py word for word (tests/web/test_news_js.py compares the two),
// so the pages, the terminal and practice say the same thing for the same move.

const RANK_WORDS = { A: "an ace", 8: "an 8", T: "a 10", J: "a jack", Q: "a queen", K: "a king" };

export function sentence(event) {
  switch (event.type) {
    case "base": {
      const rank = String(event.rank);
      const shown = rank === "T" ? "10" : rank;
      return `Base ${shown}: every foundation starts with ${RANK_WORDS[rank] || `a ${rank}`}.`;
    }
    case "terrace_cleared": return "Terrace cleared!";
    case "recycled": return "Waste turned over: on this last pass, play each card before you turn the next.";
    case "gap_filled": return `Pile ${event.pile} filled from the stock.`;
    case "redealt": return `Deal ${event.deal} begins.`;
    case "game_over":
      return event.status === "won" ? "Every card is home: the game is won!" : "No card can go home any more: the game is lost.";
    default: return "";
  }
}

// A move's events as one line ("" when none says anything).
export function news(events) {
  return (events || []).map(sentence).filter(Boolean).join(" ");
}
