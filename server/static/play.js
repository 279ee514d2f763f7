// Racing from the browser: a guest name or an account token; queue (house bots or others) or a
// private race with a link to share; the board with click-click moves, typed notation, legal
// targets from the server's list, refusals with the server's reason, the clock and standings.
// The goal and rules stand beside the board (the core's lines, as the terminal's help), moves are
// said with cards (7♥ → F2). A race's link names the race and seats nobody until Join is pressed.
// The session is kept in localStorage, so a reload (or a dropped connection) resumes the race;
// while the connection is down the board stays, and a move made then is said not to be played.
import { drawBoard } from "./board.js";
import { news } from "./news.js";
import { clock, el, goalsOf, message, ratedNote, select, standingsTable, VARIANTS, who } from "./ui.js";
import { cardsInText, moveWords, teachBox } from "./words.js";
import { arenaSeat, ordinal } from "./arena-seat.js";

const UNRATED = "Unrated: two of this race's accounts play from one address (or one install), so it counts on no board and moves no rating. A race with players from elsewhere is rated.";

const store = {
  get: (k) => localStorage.getItem("terrace." + k),
  set: (k, v) => (v ? localStorage.setItem("terrace." + k, v) : localStorage.removeItem("terrace." + k)),
};

export function mount(main, joinId, conn) {
  const params = new URLSearchParams(location.search);
  const s = { me: null, mode: "hello", race: null, game: null, rows: null, result: null, sel: null, queued: null, invite: null, down: false, unsent: null };
  const top = el("div", { class: "playhead" });
  const area = el("section", { id: "play" });
  const note = el("div", { id: "note", "aria-live": "assertive" });
  main.replaceChildren(el("h1", { text: "Play" }), top, note, area);

  const say = (text, kind = "note") => message(note, text, kind);
  const arena = arenaSeat(conn, store, () => { if (s.mode === "home" || s.mode === "finished") render(); }, (t, k) => say(t, k));
  const leaveArena = async () => { await arena.leave(); params.delete("arena"); history.replaceState(null, "", "/play"); again(); };
  let drawn = null; // the mode last drawn: focus moves only when the mode changes, never under the player's typing
  // a touch screen (a phone) races by tapping: focusing the move box there would open its keyboard over the board
  const touch = window.matchMedia("(pointer: coarse)").matches;
  const FOCUS = { hello: "#name", home: "#queue", racing: touch ? null : "#typed", finished: "#again" };
  if (joinId) FOCUS.home = "#join";
  const render = () => {
    top.replaceChildren(s.me ? el("p", {}, "You are ", who(s.me), s.me.guest ? " (a guest)" : "", " · ",
      el("button", { type: "button", class: "link", id: "forget", text: "change", onclick: forget })) : "");
    ({ hello: drawHello, home: drawHome, waiting: drawWaiting, racing: drawRacing, finished: drawFinished })[s.mode]();
    if (s.invite && (s.mode === "hello" || s.mode === "home")) area.prepend(drawInvite());
    if (s.mode !== drawn) {
      drawn = s.mode;
      const first = FOCUS[s.mode] && area.querySelector(FOCUS[s.mode]);
      if (first && (document.activeElement === document.body || !area.contains(document.activeElement))) first.focus();
    }
  };

  // ----- who am I -----------------------------------------------------------------------
  const drawHello = () => {
    const name = el("input", { id: "name", name: "name", value: store.get("name") || "", autocomplete: "nickname", size: 16 });
    const token = el("input", { id: "token", name: "token", type: "password", value: "", size: 16 });
    const daily = VARIANTS.includes(params.get("daily")) ? params.get("daily") : null; // from the daily page: say where Go leads
    area.replaceChildren(el("form", { class: "hello", onsubmit: (e) => { e.preventDefault(); hello({ name: name.value.trim(), token: token.value.trim() }); } },
      daily ? el("p", { id: "daily-hello", class: "note", role: "status", text: `Today's ${daily} daily deal: its one rated attempt is for accounts, so give your account token below (a guest name cannot take it). You are asked once more before it starts.` }) : "",
      el("p", {}, "Race as a guest (pick a name) or with your account token (the one ", el("code", { text: "terrace-bot register" }), " printed, or the ",
        el("code", { text: "token" }), " that ", el("code", { text: "terrace register" }), " kept in its credentials.json)."),
      // each label with its box: on a phone "or token" wrapped onto the name's line, away from its own
      el("span", { class: "field" }, el("label", { for: "name", text: "Name " }), name), " ",
      el("span", { class: "field" }, el("label", { for: "token", text: "or token " }), token), " ",
      el("button", { type: "submit", id: "go", text: "Go" })),
      // what the game is, before anything is asked of a newcomer
      s.invite ? teachBox(s.invite.variant, s.invite.goal, "teach")
        : daily ? teachBox(daily, daily === "louis" ? "clear" : "terrace", "teach")
        : teachBox(params.get("variant") || "terrace", params.get("goal") || goalsOf(params.get("variant") || "terrace")[0], "teach"));
    name.focus();
  };

  const hello = async ({ name, token }) => {
    const a = await conn.request("hello", token ? { token } : name ? { name } : {});
    if (a.type === "error") return say(a.message, "error");
    store.set("token", token || null);
    store.set("name", a.player.name);
    welcomed(a);
  };

  const welcomed = (a) => {
    s.me = a.player;
    store.set("me", a.player.id); // the race page asks for this player's hindsight first
    s.queued = null; // a new connection is in no queue
    store.set("session", a.session);
    if (!note.querySelector("#cannot-join")) note.replaceChildren(); // what the link led to stays said
    if (s.mode === "hello") s.mode = "home";
    if (s.invite && s.invite.players.some((p) => p.id === a.player.id)) join(s.invite.id); // seated before a reload
    const arenaId = params.get("arena") || store.get("arena");
    if (arenaId) arena.join(arenaId, a.player, Boolean(params.get("arena"))); // (again after a reconnection: it pairs you again)
    render();
    if (params.get("queue") && s.mode === "home" && !joinId) { // from the lobby's buttons: race at once
      params.delete("queue");
      history.replaceState(null, "", `/play?${params}`);
      queue(params.get("variant") || "terrace", params.get("goal") || goalsOf(params.get("variant") || "terrace")[0]);
    }
  };

  const forget = () => {
    ["session", "token"].forEach((k) => store.set(k, null));
    location.reload();
  };

  // ----- finding a race ---------------------------------------------------------------
  // ----- the daily deal: one rated attempt a day, so it is asked for twice ------------------------
  const drawDaily = (variant) => {
    area.replaceChildren(el("section", { class: "daily-confirm", id: "daily-confirm", "aria-label": "the daily deal" },
      el("h2", { text: `Daily deal: ${variant}` }),
      el("p", { id: "daily-ask", text: `This is your one rated attempt today at ${variant}: it starts at once, its clock runs from the first card, and it cannot be played again for the board. Start?` }),
      el("p", {}, el("button", { type: "button", id: "daily-start", class: "primary", text: "Start my rated attempt", onclick: () => daily(variant) }), " ",
        el("button", { type: "button", id: "daily-cancel", text: "Not now", onclick: () => { params.delete("daily"); history.replaceState(null, "", "/play"); render(); } })),
      teachBox(variant, variant === "louis" ? "clear" : "terrace", "teach")));
  };
  const daily = async (variant) => {
    params.delete("daily");
    const a = await conn.request("daily_play", { variant });
    if (a.type === "error") { history.replaceState(null, "", "/play"); render(); return say(a.message, "error"); }
    store.set("daily", JSON.stringify({ race: a.race, day: a.day, rated: a.rated }));
    say(`Daily deal, ${a.day}: ${a.rated ? "your rated attempt" : "practice"} starts.`);
  };
  const dailyOf = (race) => {
    const d = JSON.parse(store.get("daily") || "null");
    return d && d.race === race ? d : null;
  };

  const drawHome = () => {
    if (arena.id) {
      return area.replaceChildren(el("div", { class: "home" }, arena.panel(leaveArena) || el("p", { text: `Joining arena ${arena.id}…` })));
    }
    if (params.get("daily")) {
      if (s.me && !s.me.guest) return drawDaily(params.get("daily"));
      say("The daily deal's rated attempt is for accounts: say hello with your account token.", "error");
      params.delete("daily");
    }
    const variant = s.invite ? s.invite.variant : params.get("variant") || "terrace"; // an invitation teaches its race's game
    const v = select("variant", VARIANTS, variant), g = select("goal", goalsOf(variant), (s.invite && s.invite.goal) || params.get("goal") || goalsOf(variant)[0]);
    const rules = el("div", { id: "home-rules" }, teachBox(v.value, g.value, "teach"));
    const teach = () => rules.replaceChildren(teachBox(v.value, g.value, "teach"));
    v.addEventListener("change", () => { g.replaceChildren(...goalsOf(v.value).map((o) => el("option", { value: o, text: o }))); teach(); });
    g.addEventListener("change", teach);
    const seats = el("input", { id: "seats", type: "number", min: 1, max: 8, value: 2, size: 2 });
    area.replaceChildren(el("div", { class: "home" },
      el("p", {}, el("label", { for: "variant", text: "Variant " }), v, " ", el("label", { for: "goal", text: "goal " }), g),
      s.queued ? el("p", {}, `Waiting in the ${s.queued.variant} queue… `, el("button", { type: "button", id: "unqueue", text: "Stop waiting", onclick: unqueue }))
        : el("p", {}, el("button", { type: "button", id: "queue", class: "primary", text: "Race now", onclick: () => queue(v.value, g.value) }),
          " with the house bots or whoever is waiting"),
      el("p", {}, el("button", { type: "button", id: "create", text: "Create a private race", onclick: () => create(v.value, g.value, Number(seats.value)) }),
        " for ", seats, el("label", { for: "seats", text: " seats, and share its link" })), rules));
  };

  // ----- an invitation: the race a link names, before anyone is seated in it ------------------
  const invited = async (id) => {
    const a = await conn.request("spectate", { race: id });
    if (a.type === "error" || a.race.state !== "open") {
      if (a.type === "spectating") await conn.request("unspectate", { race: id });
      joinId = null;
      history.replaceState(null, "", "/play");
      render();
      const over = a.type === "error";
      return note.replaceChildren(el("p", { class: "note", role: "status", id: "cannot-join" },
        `Race ${id} ${over ? "is over" : "is under way"} and takes nobody new: `,
        el("a", { href: `/race/${id}`, text: "watch it" }), ", or race a new one here."));
    }
    s.invite = a.race;
    render();
  };

  const drawInvite = () => {
    const r = s.invite;
    const by = r.creator ? r.creator.name : "someone";
    return el("section", { class: "invite", id: "invite", "aria-label": "invitation" },
      el("h2", { id: "invite-title", text: `${by} invites you to race ${r.id}` }),
      el("p", { id: "invite-race", text: `${r.variant} · goal ${r.goal} · ${r.players.length} of ${r.seats} seats taken · ${r.start === "full" ? "starts when every seat is taken" : `starts when ${by} presses Start`}` }),
      r.players.length ? el("ul", { class: "players", id: "invite-players" }, r.players.map((p) => el("li", {}, who(p)))) : "",
      s.me ? el("p", {}, el("button", { type: "button", id: "join", class: "primary", text: `Join race ${r.id}`, onclick: () => join(r.id) }), " ",
        el("button", { type: "button", id: "decline", class: "link", text: "not now", onclick: decline }))
        : el("p", { class: "hint", text: "Say who you are below, then Join: nobody is seated before that." }));
  };
  const decline = async () => {
    const id = s.invite.id;
    s.invite = null;
    joinId = null;
    await conn.request("unspectate", { race: id });
    history.replaceState(null, "", "/play");
    render();
  };

  const queue = async (variant, goal) => {
    const a = await conn.request("queue", { variant, goal });
    if (a.type === "error") return say(a.message, "error");
    s.queued = a;
    say(`Queued for ${variant}: the race starts as soon as there are players to race.`);
    render();
  };
  const unqueue = async () => { await conn.request("unqueue"); s.queued = null; render(); };

  const create = async (variant, goal, seats) => {
    const a = await conn.request("create", { variant, goal, seats, start: "manual" });
    if (a.type === "error") return say(a.message, "error");
    s.race = a.race;
    s.mode = "waiting";
    history.replaceState(null, "", `/play/${a.race.id}`);
    render();
  };

  const join = async (id) => {
    if (s.invite) await conn.request("unspectate", { race: id }); // a player now: its pushes come as one
    s.invite = null;
    const a = await conn.request("join", { race: id });
    if (a.type === "error" && (a.code === "race_started" || a.code === "no_race")) {
      // under way (or finished, a reload after you resigned): it takes nobody new, but it can be watched
      history.replaceState(null, "", "/play");
      render();
      return note.replaceChildren(el("p", { class: "note", role: "status", id: "cannot-join" },
        `Race ${id} ${a.code === "no_race" ? "is over" : "is under way"} and takes nobody new: `,
        el("a", { href: `/race/${id}`, text: "watch it" }), ", or race a new one here."));
    }
    if (a.type === "error" && a.code !== "already_in_race") return say(`Cannot join race ${id}: ${a.message}`, "error");
    if (a.type === "joined") { s.race = a.race; s.mode = "waiting"; render(); }
  };

  const drawWaiting = () => {
    const r = s.race, link = `${location.origin}/play/${r.id}`;
    const mine = r.creator && s.me && r.creator.id === s.me.id;
    area.replaceChildren(el("div", { class: "waiting" },
      el("p", {}, `Race ${r.id}: ${r.variant} · goal ${r.goal} · ${r.players.length}/${r.seats} seats · `, el("strong", { id: "race-state", text: r.state }),
        r.state === "countdown" && r.starts_at ? ` · starts in ${clock(r.starts_at - Date.now() + 999)}` : ""),
      // what the race waits for, so that whoever joined by a link knows
      r.state === "open" ? el("p", { id: "waits-for", class: "hint", text: r.start === "full"
        ? `It starts when all ${r.seats} seats are taken.`
        : mine ? "It starts when you press Start (share the link first)." : `It starts when ${r.creator ? r.creator.name : "its creator"} presses Start.` }) : "",
      // friends on one network: said before it starts, so nobody races it thinking it rated
      r.unrated ? el("p", { id: "unrated", class: "note", role: "status", text: UNRATED }) : "",
      el("p", {}, "Share this link: ", el("input", { id: "share", readonly: true, value: link, size: Math.min(link.length, 40), onfocus: (e) => e.target.select() })),
      el("ul", { class: "players" }, r.players.map((p) => el("li", {}, who(p)))),
      r.state === "open" && mine ? el("button", { type: "button", id: "start", class: "primary", text: "Start", onclick: start }) : null,
      r.state === "open" ? el("button", { type: "button", id: "leave", text: "Leave", onclick: leave }) : null));
  };
  const start = async () => { const a = await conn.request("start", { race: s.race.id }); if (a.type === "error") say(a.message, "error"); };
  const leave = async () => {
    await conn.request("leave", { race: s.race.id });
    Object.assign(s, { race: null, mode: "home" });
    history.replaceState(null, "", "/play");
    render();
  };

  // ----- racing -----------------------------------------------------------------------
  const legalFrom = (src) => s.game.legal.filter((m) => m.split("-")[0] === src);

  const pick = (place) => {
    const g = s.game;
    if (!s.sel) {
      const from = legalFrom(place);
      if (place === "S" && from.length === 1) return send(from[0]); // turning the stock is one click
      if (!g.view || (!from.length && !placeCards(g.view, place))) return;
      s.sel = place;
      return drawRacing();
    }
    if (place === s.sel) { s.sel = null; return drawRacing(); }
    const src = s.sel;
    s.sel = null;
    const exact = `${src}-${place}`;
    const home = /^(F\d|[AK][cdhs])$/.test(place) ? legalFrom(src).find((m) => /^(F\d|[AK][cdhs])$/.test(m.split("-")[1])) : null;
    send(g.legal.includes(exact) || !home ? exact : home); // the server judges it either way
  };

  const said = (move) => { const w = moveWords(move, s.game.view, s.game.view.variant).short; return w === move ? move : `${w} (${move})`; };
  const send = async (move) => {
    const g = s.game;
    s.sel = null;
    const words = said(move);
    const a = await conn.request("move", { race: g.race, seq: g.seq + 1, move });
    if (a.type === "error") {
      if (a.code === "bad_seq" && a.expected) g.seq = a.expected - 1;
      if (a.code === "disconnected") { // nothing reached the server: the board is still the truth
        s.unsent = words;
        say(`Not played: ${words} was not sent, because the connection is down (reconnecting…). The board is as it was; play it again once the connection is back.`, "error");
      } else say(a.code === "illegal_move" ? `Refused: ${cardsInText(a.message, g.view.variant)}` : cardsInText(a.message, g.view.variant), "error");
      return drawRacing();
    }
    Object.assign(g, { view: a.view, legal: a.legal, seq: a.seq, last: a.move, finish: a.finish || g.finish });
    say([a.finish ? `You finished: ${a.finish}.` : `Played ${words}.`, news(a.events)].filter(Boolean).join(" "));
    drawRacing();
  };

  const drawRacing = () => {
    const g = s.game;
    if (!g) return;
    // keep the keyboard where it was: the same place, move button or input after the redraw
    const was = document.activeElement;
    const refocus = was && (was.id ? `#${was.id}` : was.dataset.place ? `[data-place="${was.dataset.place}"]` : null);
    const targets = new Set(s.sel ? legalFrom(s.sel).map((m) => m.split("-")[1]) : []);
    const typed = el("input", { id: "typed", name: "typed", size: 8, autocomplete: "off", "aria-label": "type a move, e.g. 4f or w3" });
    const left = g.ends_at - (Date.now() + g.offset);
    const words = g.legal.map((m) => moveWords(m, g.view, g.view.variant));
    const times = {}; // two equal cards can go to one place (two decks): those buttons say where each is from
    for (const w of words) times[w.short] = (times[w.short] || 0) + 1;
    const buttons = g.legal.map((m, i) => {
      const w = words[i];
      const text = times[w.short] > 1 && w.sourced ? w.sourced : w.short;
      return el("button", { type: "button", class: "legal", "data-move": m, title: `${w.long} (type ${m})`, "aria-label": w.long, onclick: () => send(m), text });
    });
    area.replaceChildren(el("div", { class: "racing" },
      s.game.daily ? el("p", { class: "race-title", id: "race-title", text: `Daily deal, ${s.game.daily.day}${s.game.daily.rated ? " · your rated attempt" : " · practice"}` }) : "",
      s.down ? el("p", { class: "outage", id: "outage", role: "status", text: "Connection lost: reconnecting… The board below is the last one the server sent; a move made now is not played." }) : "",
      el("div", { class: "boardbox" }, drawBoard(g.view, g.finish ? {} : { pick, drop: (from, to) => { s.sel = from; pick(to); }, selected: s.sel, targets })),
      el("aside", { class: "side-panel" },
        el("p", { class: "clock" }, el("span", { id: "clock", text: clock(left) }), " left · ", el("span", { id: "seq", text: `move ${g.seq}` }),
          g.finish ? el("strong", { id: "my-finish", text: ` · finished: ${g.finish}` }) : "",
          g.unrated ? el("span", { id: "unrated-mark", title: UNRATED, text: " · unrated" }) : ""),
        el("div", { id: "standings-box" }, s.rows ? standingsTable(s.rows, g.view.variant) : null),
        g.finish ? el("p", { text: "Waiting for the others to finish…" }) : el("div", {},
          el("form", { class: "typed", onsubmit: (e) => { e.preventDefault(); if (typed.value.trim()) send(typed.value.trim()); } },
            el("label", { for: "typed", text: "Move " }), typed, el("button", { type: "submit", text: "Play" })),
          el("div", { class: "legal-list" }, el("p", { text: `${g.legal.length} legal move${g.legal.length === 1 ? "" : "s"}:` }), el("div", { id: "legal" }, buttons)),
          el("button", { type: "button", id: "resign", onclick: resign, text: "Resign" })),
        teachBox(g.view.variant, g.goal, "teach"))));
    const back = refocus && area.querySelector(refocus);
    if (back) back.focus();
  };

  const resign = async () => {
    if (!confirm("Resign this race?")) return;
    const a = await conn.request("resign", { race: s.game.race });
    if (a.type === "error") return say(a.message, "error");
    s.game.finish = "resigned";
    say("You resigned."); // not "Go!" still standing above the end screen
    if (s.mode === "racing") drawRacing();
  };

  const drawFinished = () => {
    const f = s.result;
    // where you came, said first: the table's rows are everyone's, and "You finished: stuck" is not a place
    const mine = s.me && f.results.find((r) => r.player.id === s.me.id);
    area.replaceChildren(el("div", { class: "finished" },
      el("h2", { id: "result", text: s.game && s.game.daily ? `The race is over · Daily deal, ${s.game.daily.day}` : "The race is over" }),
      mine && mine.place ? el("p", { id: "my-place", class: "my-place", text: `You came ${ordinal(mine.place)} of ${f.results.length}${mine.finish ? ` (${mine.finish})` : ""}.` }) : "",
      standingsTable(f.results, f.variant),
      ratedNote(f.results, s.game && s.game.unrated ? "same_address" : null) ? el("p", { class: "hint", id: "rated-note", text: ratedNote(f.results, s.game && s.game.unrated ? "same_address" : null) }) : "",
      arena.id ? arena.panel(leaveArena) : "",
      el("p", {}, el("a", { href: `/race/${f.race}`, id: "replay", text: "Watch it move by move, verified" }),
        arena.id ? "" : " · ", arena.id ? "" : el("button", { type: "button", id: "again", class: "primary", text: "Race again", onclick: again }))));
  };
  const again = () => { Object.assign(s, { mode: "home", race: null, game: null, rows: null, result: null }); history.replaceState(null, "", "/play"); render(); };

  // ----- pushes -----------------------------------------------------------------------
  conn.on("race", (m) => {
    if (s.mode === "racing" || s.mode === "finished") return;
    if (s.invite && m.race.id === s.invite.id) { s.invite = m.race; return render(); } // watched, not joined
    if (m.race.state === "cancelled") { Object.assign(s, { race: null, mode: "home" }); return render(); }
    s.race = m.race;
    s.queued = null;
    s.mode = "waiting";
    render();
  });
  conn.on("started", (m) => {
    const daily = s.game && s.game.race === m.race ? s.game.daily : dailyOf(m.race);
    s.game = { race: m.race, goal: m.goal, view: m.view, legal: m.legal, seq: m.seq, ends_at: m.clock.ends_at, offset: m.clock.now - Date.now(), finish: null, daily, unrated: !!m.unrated };
    s.mode = "racing";
    s.queued = null;
    s.invite = null;
    history.replaceState(null, "", `/play/${m.race}`);
    const unsent = s.unsent;
    s.unsent = null;
    say(m.resumed ? `Back in the race.${unsent ? ` Your move ${unsent}, made while the connection was down, was not played: play it again if you still want it.` : ""}` : "Go!");
    render();
  });
  conn.on("down", () => { s.down = true; if (s.mode === "racing") drawRacing(); });
  conn.on("up", () => { s.down = false; if (s.mode === "racing") drawRacing(); });
  conn.on("standings", (m) => {
    if (!s.game || m.race !== s.game.race) return;
    s.rows = m.rows;
    const box = document.getElementById("standings-box");
    if (box) box.replaceChildren(standingsTable(m.rows, s.game.view.variant));
  });
  conn.on("replaced", () => say("You opened this game in another tab or window, and it went on there. Reload this page to play here.", "error"));
  conn.on("finished", (m) => { if (s.game && m.race === s.game.race) { s.result = m; s.mode = "finished"; render(); } });
  setInterval(() => {
    const c = document.getElementById("clock");
    if (c && s.game) c.textContent = clock(s.game.ends_at - (Date.now() + s.game.offset));
    if (s.mode === "waiting" && s.race && s.race.state === "countdown") drawWaiting();
  }, 500);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && s.sel) { s.sel = null; drawRacing(); }
  });

  return {
    async connected() {
      if (joinId && !s.race && !s.game) await invited(joinId);
      const session = store.get("session"), token = store.get("token");
      if (session) {
        const a = await conn.request("hello", { session });
        if (a.type === "welcome") return welcomed(a);
        store.set("session", null);
      }
      if (token || (s.me && store.get("name"))) return hello({ token, name: store.get("name") });
      render();
    },
  };
}

function placeCards(view, place) {
  const p = view.piles || view.heaps || {};
  return (p[place] || []).length || (place === "T" && view.terrace && view.terrace.length) || (place === "W" && view.waste && view.waste.length);
}
