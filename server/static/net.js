// One websocket to the server over the JSON subprotocol: requests matched to answers by id,
// pushes handed to listeners, and a reconnect with backoff that calls `onOpen` again each time.
// A close with 4001 (another connection took this session over: the same player in another tab
// or window) is final: reconnecting would take it back, and the two tabs would take the session
// from each other for ever. Listeners of "replaced" hear of it; a reload comes back.
// Any other close is an outage: told once to listeners of "down", its end to those of "up"
// (the play page keeps its board meanwhile).
const PROTOCOL = "terrace.v1.json";
const REPLACED = 4001;

export class Conn {
  constructor(onOpen) {
    this.onOpen = onOpen;
    this.ids = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.delay = 500;
    this.open = false;
    this.connect();
  }

  url() {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  }

  connect() {
    setStatus("connecting…");
    const ws = new WebSocket(this.url(), PROTOCOL);
    this.ws = ws;
    ws.onopen = () => {
      this.open = true;
      this.delay = 500;
      setStatus("live", true);
      if (this.down) for (const fn of this.listeners.get("up") || []) fn({ type: "up" });
      this.down = false;
      Promise.resolve(this.onOpen(this)).catch((e) => console.error(e));
    };
    ws.onclose = (ev) => {
      this.open = false;
      for (const resolve of this.pending.values()) resolve({ type: "error", code: "disconnected", message: "The connection dropped." });
      this.pending.clear();
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

  // The answer (or error) to one request; never rejects.
  request(type, fields = {}) {
    if (!this.open) return Promise.resolve({ type: "error", code: "disconnected", message: "Not connected." });
    const id = this.ids++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ ...fields, type, id }));
    });
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
