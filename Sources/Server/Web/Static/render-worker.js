// The map's drawing, off the page's main thread: a module worker that owns the two stacked <canvas>
// elements (transferred to it as OffscreenCanvases), keeps its own copy of the tags from the same feed messages the page
// gets, and draws them each animation frame with news. Rasterising the canvas is most of the map's
// cost at 1,000 tags; here it does not delay the page's own work (the feed, the panel, input).
//
// Messages from the page (app.js), each {type, ...}:
//   init  {canvas, plan, site, tags, view}  the two OffscreenCanvases (tags, plan), the site, the tags'
//                                      last positions, the transform
//   texts {texts}                      feed messages (JSON text), in arrival order
//   view  {view}                       a new transform or size (MapView.transform())
//   health {health}                    [[anchor id, state], ...]
//   marks {highlight, selected}        the searched tags' ids and the selected tag's id (or null)
//   frames {on}                        report each frame back as {type: "frame", t, drawMs} (the benchmark)
// It sends {type: "drawn", counts} at most every DRAWN_MS: the tags of its latest frame by state.
import { TagStore } from "./model.js";
import { MapView } from "./render.js";

/** How often the worker tells the page what it drew, milliseconds. */
const DRAWN_MS = 250;

let drawnSent = -Infinity;
let store = null, view = null, drawn = -1, reportFrames = false;

function apply(text) {
  let o;
  try { o = JSON.parse(text); } catch { return; }
  if (o.type !== "heartbeat") store.apply(o, performance.now());
}

function frame(t) {
  requestAnimationFrame(frame);
  const now = performance.now();
  store.expire(now);
  store.sampleTrails(now);
  // Redraw only with news: a change in the store, the view, the trails, or a fading removed tag.
  const fading = store.counts().removed > 0;
  const news = store.version !== drawn || store.trailVersion !== view.backgroundTrails;
  if (!news && view.layerValid && !fading) { if (reportFrames) postMessage({ type: "frame", t, drawMs: null }); return; }
  const start = performance.now();
  view.draw(store, now);
  drawn = store.version;
  if (now - drawnSent >= DRAWN_MS) { postMessage({ type: "drawn", counts: view.drawnCounts }); drawnSent = now; }
  if (reportFrames) postMessage({ type: "frame", t, drawMs: performance.now() - start });
}

onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case "init": {
      store = new TagStore(m.site);
      const now = performance.now();
      for (const p of m.tags) store.apply(p, now);
      store.seedZones();
      view = new MapView(m.canvas, m.plan, m.site);
      view.setTransform(m.view);
      requestAnimationFrame(frame);
      break;
    }
    case "texts": for (const text of m.texts) apply(text); break;
    case "view": view.setTransform(m.view); break;
    case "health": view.setHealth(new Map(m.health)); break;
    case "marks": view.highlight = new Set(m.highlight); view.selected = m.selected; drawn = -1; break;
    case "frames": reportFrames = m.on; break;
  }
};
