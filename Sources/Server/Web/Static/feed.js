// The live feed of one site over WebSocket (or Server-Sent Events): JSON, one output per message,
// conflated by the service to at most `rate` updates per tag per second. Reconnects on its own.

/** Without any message (a heartbeat comes every 5 s) for this long, the connection counts as dead. */
const STALE_MS = 15000;
/** Reconnection delays, milliseconds: doubling from the first to the last. */
const RETRY_FIRST_MS = 500, RETRY_LAST_MS = 10000;
/** WebSocket failures in a row before trying Server-Sent Events instead. */
const WS_FAILURES_BEFORE_SSE = 3;

export class Feed {
  /**
   * @param {object} options site, rate, token, transport ("ws" or "sse"), onText(text) for each message,
   *   onStatus(state, detail) with state "connecting" | "live" | "stale" | "closed".
   */
  constructor(options) {
    this.options = options;
    this.transport = options.transport || "ws";
    this.failures = 0;
    this.retry = RETRY_FIRST_MS;
    this.lastMessage = 0;
    this.socket = null;
    this.stopped = false;
    this.watchdog = setInterval(() => this.checkStale(), 1000);
    this.open();
  }

  url(path) {
    const o = this.options;
    const q = new URLSearchParams({ site: o.site, format: "json", rate: String(o.rate) });
    if (o.token) q.set("token", o.token);
    const scheme = path.endsWith("/ws") ? (location.protocol === "https:" ? "wss:" : "ws:") : location.protocol;
    return `${scheme}//${location.host}${path}?${q}`;
  }

  open() {
    if (this.stopped) return;
    this.options.onStatus("connecting", this.transport);
    this.lastMessage = performance.now();
    let opened = false;
    const onOpen = () => {
      opened = true; this.failures = 0; this.retry = RETRY_FIRST_MS;
      this.options.onStatus("live", this.transport);
    };
    const onText = (text) => {
      this.lastMessage = performance.now();
      this.options.onText(text);
    };
    const onDown = () => {
      if (this.stopped || this.socket === null) return;
      this.close();
      if (!opened && this.transport === "ws" && ++this.failures >= WS_FAILURES_BEFORE_SSE) {
        this.transport = "sse"; this.failures = 0;
      }
      this.options.onStatus("closed", `${this.transport}; retrying in ${(this.retry / 1000).toFixed(1)} s`);
      this.timer = setTimeout(() => this.open(), this.retry);
      this.retry = Math.min(RETRY_LAST_MS, this.retry * 2);
    };
    if (this.transport === "ws") {
      const ws = new WebSocket(this.url("/api/v1/feed/ws"));
      ws.onopen = onOpen;
      ws.onmessage = (e) => onText(e.data);
      ws.onclose = onDown;
      ws.onerror = onDown;
      this.socket = ws;
    } else {
      const es = new EventSource(this.url("/api/v1/feed/sse"));
      es.onopen = onOpen;
      es.onmessage = (e) => onText(e.data);
      es.onerror = onDown;   // EventSource would retry by itself; this class keeps one policy
      this.socket = es;
    }
  }

  checkStale() {
    // An SSE heartbeat is a comment, which EventSource does not surface: it detects a dead stream itself.
    if (this.transport !== "ws") return;
    if (this.socket && performance.now() - this.lastMessage > STALE_MS) {
      this.options.onStatus("stale", "no message or heartbeat for 15 s");
      const s = this.socket;
      this.socket = null; s.close();
      this.timer = setTimeout(() => this.open(), RETRY_FIRST_MS);
    }
  }

  close() {
    const s = this.socket;
    this.socket = null;
    if (s) { s.onclose = null; s.onerror = null; s.onmessage = null; s.close(); }
  }

  stop() {
    this.stopped = true;
    clearInterval(this.watchdog);
    clearTimeout(this.timer);
    this.close();
  }
}
