// The live map: loads the site list and a site over the REST API, the tags' last positions, then
// follows the live feed; polls the anchors' health. Query parameters: site=ID, token=SECRET (sent as a
// bearer token to the API and as ?token= to the stream), tag=TEXT (search), rate=N (feed conflation,
// default 10), transport=ws|sse, bench=N (synthetic load instead of the feed; see bench.js),
// draw=main (draw on the page's main thread instead of in render-worker.js).
import { TagStore } from "./model.js";
import { MapView } from "./render.js";
import { Panel, esc } from "./panel.js";
import { Feed } from "./feed.js";
import { Bench } from "./bench.js";

/** How often the anchors' health is polled, milliseconds. */
const ANCHOR_POLL_MS = 5000;
/** How often the panel and the #tag-positions list are refreshed, milliseconds. */
const PANEL_MS = 250;
/** Default conflation: at most this many updates per tag per second. */
const DEFAULT_RATE = 10;

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const $ = (id) => document.getElementById(id);

async function api(path) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const r = await fetch(path, { headers, cache: "no-store" });
  let body = null;
  try { body = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) throw new Error(body?.error ? `${body.error} (HTTP ${r.status})` : `${path}: HTTP ${r.status}`);
  return body;
}

function showError(message) {
  const e = $("error");
  e.hidden = !message;
  e.textContent = message || "";
}

function setStatus(state, detail) {
  const s = $("status");
  s.className = `status ${state}`;
  s.textContent = state;
  s.title = detail || "";
  document.body.dataset.status = state;
}

/** One site on screen: its store, view, panel, feed and timers. */
class LiveSite {
  constructor(site, tags) {
    this.site = site;
    this.store = new TagStore(site);
    const now = performance.now();
    for (const p of tags) this.store.apply(p, now);
    this.store.seedZones();
    this.canvas = $("map");
    // Drawing runs in a worker on OffscreenCanvases where the browser has them; the page keeps a
    // view of its own, without a canvas, for the transform and hit-testing.
    this.worker = null;
    if (params.get("draw") !== "main" && typeof Worker !== "undefined" && this.canvas.transferControlToOffscreen) {
      // A canvas hands its drawing over once: each site's view gets fresh elements.
      for (const id of ["map", "map-plan"]) { const old = $(id); old.replaceWith(old.cloneNode(false)); }
      this.canvas = $("map");
      this.view = new MapView(this.canvas, null, site, { draws: false });
      this.worker = new Worker("/static/render-worker.js", { type: "module" });
      this.worker.onmessage = (e) => {
        if (e.data.type === "frame") this.frameHook?.(e.data.t, e.data.drawMs);
        else if (e.data.type === "drawn") this.canvas.dataset.drawn = e.data.counts;
      };
      this.worker.onerror = (e) => { showError(`map drawing: ${e.message}`); };
      const canvas = this.canvas.transferControlToOffscreen(), plan = $("map-plan").transferControlToOffscreen();
      this.worker.postMessage({ type: "init", canvas, plan, site, tags, view: this.view.transform() }, [canvas, plan]);
      this.posted = { view: JSON.stringify(this.view.transform()), highlight: null, selected: null };
      this.texts = [];
    } else {
      this.view = new MapView(this.canvas, $("map-plan"), site);
    }
    this.panel = new Panel(this.view, (id) => this.pick(id));
    if (params.get("tag")) this.panel.setQuery(params.get("tag"));
    this.drawn = -1;
    this.frameHook = null;       // set by the benchmark: called with each frame's draw time
    this.timers = [setInterval(() => this.refreshPanel(), PANEL_MS)];
    this.bindPointer();
    this.resizeObserver = new ResizeObserver(() => { this.view.resize(); this.drawn = -1; });
    this.resizeObserver.observe(this.canvas);
    this.refreshPanel();
    this.frame = requestAnimationFrame((t) => this.onFrame(t));
  }

  /** Applies one feed message (a JSON object, or a heartbeat). */
  onText(text) {
    let o;
    try { o = JSON.parse(text); } catch { return; }
    if (o.type !== "heartbeat") this.store.apply(o, performance.now());
    if (this.worker) this.texts.push(text);
  }

  /** Starts or stops the drawing worker's frame reports (the benchmark's frameHook). */
  reportFrames(on) { this.worker?.postMessage({ type: "frames", on }); }

  onFrame(t) {
    this.frame = requestAnimationFrame((u) => this.onFrame(u));
    const now = performance.now();
    if (this.worker) { this.syncWorker(now); return; }
    this.store.expire(now);
    this.store.sampleTrails(now);
    // Redraw only with news: a change in the store, the view, the trails, or a fading removed tag.
    const fading = this.store.counts().removed > 0;
    const news = this.store.version !== this.drawn || this.store.trailVersion !== this.view.backgroundTrails;
    if (!news && this.view.layerValid && !fading) { this.frameHook?.(t, null); return; }
    const start = performance.now();
    this.view.draw(this.store, now);
    this.drawn = this.store.version;
    if (this.canvas.dataset.drawn !== this.view.drawnCounts) this.canvas.dataset.drawn = this.view.drawnCounts;
    this.frameHook?.(t, performance.now() - start);
  }

  /** Hands the drawing worker what changed on the page since the last frame. */
  syncWorker(now) {
    this.store.expire(now);
    if (this.texts.length) { this.worker.postMessage({ type: "texts", texts: this.texts }); this.texts = []; }
    const view = JSON.stringify(this.view.transform());
    if (view !== this.posted.view) { this.worker.postMessage({ type: "view", view: this.view.transform() }); this.posted.view = view; }
    // The panel replaces the highlight set when it refreshes; a new set or selection is sent.
    if (this.view.highlight !== this.posted.highlight || this.view.selected !== this.posted.selected) {
      this.worker.postMessage({ type: "marks", highlight: [...this.view.highlight], selected: this.view.selected });
      this.posted.highlight = this.view.highlight; this.posted.selected = this.view.selected;
    }
  }

  refreshPanel() {
    const now = performance.now();
    this.panel.update(this.store, now);
    this.panel.writePositions(this.store);
    $("site-info").textContent =
      `${this.site.name}: ${fmt(this.site.bounds.max[0] - this.site.bounds.min[0])} × ` +
      `${fmt(this.site.bounds.max[1] - this.site.bounds.min[1])} m, ${this.site.dimensions}-D, ` +
      `${this.site.anchors.length} anchors, ${this.site.zones.length} zones`;
    this.drawn = -1;   // highlights may have changed
  }

  pick(id) {
    const t = this.store.tags.get(id);
    if (!t) return;
    this.view.selected = id;
    const p = this.view.tagPoint(t);
    if (p) this.view.centreOn(this.view.siteX(p[0]), this.view.siteY(p[1]));
    this.refreshPanel();
  }

  startFeed(rate, transport) {
    this.feed = new Feed({ site: this.site.id, rate, token, transport, onText: (s) => this.onText(s), onStatus: setStatus });
  }

  startAnchorPolling() {
    const poll = async () => {
      try {
        const r = await api(`/api/v1/sites/${encodeURIComponent(this.site.id)}/anchors`);
        const anchors = r.anchors || [];
        this.view.setHealth(new Map(anchors.map((a) => [a.id, a.state])));
        this.worker?.postMessage({ type: "health", health: anchors.map((a) => [a.id, a.state]) });
        this.panel.updateAnchors(this.site, anchors);
      } catch (e) {
        this.panel.updateAnchors(this.site, []);
        showError(`anchor health: ${e.message}`);
      }
    };
    poll();
    this.timers.push(setInterval(poll, ANCHOR_POLL_MS));
  }

  bindPointer() {
    const c = this.canvas, tip = $("tooltip");
    let drag = null;
    c.onwheel = (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      this.view.zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    };
    c.onpointerdown = (e) => { drag = { x: e.clientX, y: e.clientY, moved: false }; c.setPointerCapture(e.pointerId); };
    c.onpointermove = (e) => {
      const r = c.getBoundingClientRect();
      if (drag) {
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
        if (drag.moved) { this.view.pan(dx, dy); drag.x = e.clientX; drag.y = e.clientY; c.classList.add("dragging"); }
        return;
      }
      const t = this.view.hit(this.store, e.clientX - r.left, e.clientY - r.top);
      tip.hidden = !t;
      if (t) {
        tip.textContent = tooltip(t);
        tip.style.left = `${e.clientX - r.left + 14}px`; tip.style.top = `${e.clientY - r.top + 14}px`;
      }
    };
    c.onpointerup = (e) => {
      c.classList.remove("dragging");
      if (drag && !drag.moved) {
        const r = c.getBoundingClientRect();
        const t = this.view.hit(this.store, e.clientX - r.left, e.clientY - r.top);
        this.view.selected = t ? t.id : null;
        this.refreshPanel();
      }
      drag = null;
    };
    c.onpointerleave = () => { tip.hidden = true; };
    c.ondblclick = () => this.view.fit();
  }

  stop() {
    cancelAnimationFrame(this.frame);
    this.timers.forEach(clearInterval);
    this.resizeObserver.disconnect();
    this.worker?.terminate();
    this.feed?.stop();
    this.bench?.stop();
  }
}

function tooltip(t) {
  if (t.state === "position") return `${t.id}  ${t.x.toFixed(2)}, ${t.y.toFixed(2)} m\nσ ${t.sigma.toFixed(3)} m · ${t.motion} · ${t.anchors} anchors`;
  if (t.state === "distance") return `${t.id}  distance only\n${t.rangeDistance.toFixed(2)} m from ${t.rangeAnchor}`;
  return `${t.id}  removed (${t.removedReason})`;
}

function fmt(v) { return Number.isInteger(v) ? String(v) : v.toFixed(1); }

let live = null;

async function openSite(id) {
  live?.stop();
  live = null;
  showError("");
  setStatus("loading", id);
  const path = `/api/v1/sites/${encodeURIComponent(id)}`;
  const [site, tags] = await Promise.all([api(path), api(`${path}/tags`)]);
  live = new LiveSite(site, tags.tags || []);
  window.sextantMap = live;
  live.startAnchorPolling();
  const bench = Number(params.get("bench") || 0);
  if (bench > 0) {
    setStatus("bench", `${bench} synthetic tags`);
    live.bench = new Bench(live, bench, Number(params.get("benchSeconds") || 10));
  } else {
    live.startFeed(Number(params.get("rate") || DEFAULT_RATE), params.get("transport") || "ws");
  }
}

async function main() {
  try {
    const { sites } = await api("/api/v1/sites");
    const picker = $("site-picker");
    picker.innerHTML = sites.map((s) => `<option value="${esc(s.id)}">${esc(s.id)}</option>`).join("");
    if (sites.length === 0) { showError("The service has no site: import one with 'sextant serve --site FILE'."); setStatus("closed"); return; }
    const wanted = params.get("site");
    const id = sites.some((s) => s.id === wanted) ? wanted : sites[0].id;
    if (wanted && id !== wanted) showError(`No site '${wanted}' (or not allowed for this token); showing '${id}'.`);
    picker.value = id;
    picker.onchange = () => {
      params.set("site", picker.value);
      history.replaceState(null, "", `?${params}`);
      openSite(picker.value).catch((e) => { showError(e.message); setStatus("closed"); });
    };
    await openSite(id);
  } catch (e) {
    showError(e.message);
    setStatus("closed", e.message);
  }
}

main();
