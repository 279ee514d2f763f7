// The pages' entry point: one connection, and the page the path names (loaded only when asked for).
import { Conn } from "./net.js";

const PAGES = [
  [/^\/$/, "./lobby.js"],
  [/^\/top$/, "./top.js"],
  [/^\/daily$/, "./daily.js"],
  [/^\/race\/([\w-]+)$/, "./race.js"],
  [/^\/play(?:\/([\w-]+))?$/, "./play.js"],
  [/^\/arena(?:\/([\w-]+))?$/, "./arena.js"],
  [/^\/player\/([\w-]+)$/, "./player.js"],
];

async function main() {
  const main = document.getElementById("main");
  for (const [pattern, module] of PAGES) {
    const m = location.pathname.match(pattern);
    if (!m) continue;
    // a race's or an arena's own page (/play/ID, /arena/ID) belongs to its section of the bar
    const section = location.pathname.replace(/^\/(play|arena)\/.*$/, "/$1");
    for (const a of document.querySelectorAll("nav a")) if (a.getAttribute("href") === section) a.setAttribute("aria-current", "page");
    const page = await import(module);
    // the page hooks its pushes once; `connected` runs on every (re)connection
    const conn = new Conn(() => view.connected());
    const view = page.mount(main, m[1], conn);
    return;
  }
  main.textContent = "No such page.";
}

main();
