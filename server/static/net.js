// One websocket to the server over the JSON subprotocol: requests matched to answers by id,
// pushes handed to listeners, and a reconnect with backoff that calls `onOpen` again each time.
// A close with 4001 (another connection took this session over: the same player in another tab
// or window) is final: reconnecting would take it back, and the two tabs would take the session
// from each other for ever. Listeners of "replaced" hear of it; a reload comes back.
// Any other close is an outage: told once to listeners of "down", its end to those of "up"
// (the play page keeps its board meanwhile).
// A `redirect` (an answer: the race runs on another node; or a push: it moved there) is followed:
// the connection moves to the node it names, `onOpen` says hello there with the page's session,
// and a redirected request is sent again there. A node that cannot be reached sends us home.
const PROTOCOL = "terrace.v1.json";
const REPLACED = 4001;
const FOLLOWS = 3; // redirects one request follows before it gives up

export class Conn {
  constructor(onOpen) {
    this.onOpen = onOpen;
    this.ids = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.delay = 500;
    this.open = false;
    this.target = null; // the node a redirect named, or null: the page's own
    this.moving = false; // closing on purpose, to follow a redirect
    this.arrived = []; // followers waiting for the next connection's onOpen to finish
    this.connect();
  }

  url() {
    return this.target || (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  }

  connect() {
    setStatus("connecting…");
    const ws = new WebSocket(this.url(), PROTOCOL);
    this.ws = ws;
    this.reached = false;
    ws.onopen = () => {
      this.open = true;
      this.delay = 500;
      setStatus("live", true);
      if (this.down) for (const fn of this.listeners.get("up") || []) fn({ type: "up" });
      this.down = false;
      this.reached = true;
      Promise.resolve(this.onOpen(this)).catch((e) => console.error(e))
        .finally(() => this.arrived.splice(0).forEach((fn) => fn(true)));
    };
    ws.onclose = (ev) => {
      this.open = false;
      for (const resolve of this.pending.values()) resolve({ type: "error", code: "disconnected", message: "The connection dropped." });
      this.pending.clear();
      if (this.moving) { // our own close, to follow a redirect: straight on to the named node
        this.moving = false;
        this.connect();
        return;
      }
      if (this.target && !this.reached) { // the named node is not there: home again
        this.target = null;
        this.arrived.splice(0).forEach((fn) => fn(false));
      }
      if (ev.code === REPLACED) {
        setStatus("opened elsewhere; reload to come back");
        for (const fn of this.listeners.get("replaced") || []) fn({ type: "replaced" });
        return;
      }
      setStatus("disconnected; reconnecting…");
      if (!this.down) for (const fn of this.listeners.get("down") || []) fn({ type: "down" }); // once per outage
      this.down = true;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "redirect" && msg.re === undefined && msg.url) { // our race moved to another node
        this.follow(msg.url);
        return;
      }
      if (msg.re !== undefined && this.pending.has(msg.re)) {
        const resolve = this.pending.get(msg.re);
        this.pending.delete(msg.re);
        resolve(msg);
        return;
      }
      for (const fn of this.listeners.get(msg.type) || []) fn(msg);
      for (const fn of this.listeners.get("*") || []) fn(msg);
    };
  }

  // The answer (or error) to one request, on the node that runs its race; never rejects.
  async request(type, fields = {}) {
    for (let follows = 0; ; follows++) {
      const a = await this.send(type, fields);
      if (a.type !== "redirect") return a;
      if (follows === FOLLOWS || !(await this.follow(a.url))) {
        return { type: "error", code: "disconnected", message: "The server running this race cannot be reached; try again shortly." };
      }
    }
  }

  send(type, fields) {
    if (!this.open) return Promise.resolve({ type: "error", code: "disconnected", message: "Not connected." });
    const id = this.ids++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ ...fields, type, id }));
    });
  }

  // Move to the node at `url`; true once the page has said hello there, false if it could not be reached.
  follow(url) {
    if (this.target === url && this.open) return Promise.resolve(true); // there already
    const arrived = new Promise((resolve) => this.arrived.push(resolve));
    this.target = url;
    if (this.ws.readyState !== WebSocket.CLOSED) { // (closed: a reconnect is due, and goes there)
      this.moving = true;
      this.ws.close(1000);
    }
    return arrived;
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(fn);
  }
}

function setStatus(text, live = false) {
  const el = document.getElementById("status");
  if (el) {
    el.textContent = text;
    el.className = live ? "live" : "down";
  }
}
