// Draws the map on a <canvas>: the site plan (cached in an offscreen layer until the view or the
// anchors' health changes) and, each animation frame with news, every tag in a few batched paths.
import { boresightHeading, azimuthHeading, planRangeRadius, cornerCentroid } from "./geometry.js";
import { State, REMOVED_LINGER_MS } from "./model.js";

/** Length of the drawn field-of-view cones, metres. */
const CONE_LENGTH_M = 6;
/** Above this many tags in view, only the searched and selected tags are labelled. */
const LABEL_LIMIT = 150;
/** Above this many positioned tags, the 95 % ellipses are outlined but not filled. */
const FILL_LIMIT = 300;
/** Margin around the site's bounds when fitting the view, CSS pixels. */
const FIT_MARGIN_PX = 36;
/** Tag dot radius, CSS pixels. */
const DOT_PX = 3.5;

const COLORS = {
  ink: "#1d2733", muted: "#66717d", grid: "#e9edf1", gridMajor: "#cfd6dd", bounds: "#1d2733",
  zoneFill: "rgba(255, 193, 7, 0.13)", zoneLine: "#b28704",
  cone: "rgba(31, 78, 156, 0.08)", coneLine: "rgba(31, 78, 156, 0.35)",
  position: "#1565c0", ellipseFill: "rgba(21, 101, 192, 0.10)", ellipseLine: "rgba(21, 101, 192, 0.55)",
  trail: "rgba(21, 101, 192, 0.35)", distance: "#8e24aa", removed: "#9e9e9e",
  bad: "#d32f2f", warn: "#ef6c00", highlight: "#ff6f00",
};

/** Anchor states drawn as a fault, and their colour. */
const FAULT_COLORS = { silent: COLORS.bad, unheard: COLORS.bad, misplaced: COLORS.warn };

export class MapView {
  /**
   * `canvas` (the tags, drawn each frame with news) and `plan` (the site plan and the trails, below it,
   * redrawn when the view or the anchors' health changes and when the trails get their points) are two
   * stacked <canvas> elements, or OffscreenCanvases in the drawing worker (render-worker.js): the
   * browser's compositor lays the tags over the plan, so a frame never copies the plan. `canvas` is
   * transparent, `plan` opaque. With `draws` false the view only keeps the transform, for hit-testing
   * on the page while the worker draws; it then touches neither canvas.
   */
  constructor(canvas, plan, site, { draws = true } = {}) {
    this.canvas = canvas;
    this.draws = draws;
    this.ctx = draws ? canvas.getContext("2d") : null;
    this.layer = draws ? makeCanvas() : null;        // the site plan
    this.background = draws ? plan : null;           // the plan with the trails
    this.backgroundTrails = -1;                      // the store's trailVersion drawn there
    this.site = site;
    this.anchors = new Map(site.anchors.map((a) => [a.id, a]));
    this.health = new Map();         // anchor id -> state string from the anchors endpoint
    this.scale = 10; this.ox = 0; this.oy = 0;
    this.autoFit = true;
    this.layerValid = false;
    this.width = 0; this.height = 0; this.dpr = 1;
    this.highlight = new Set();
    this.selected = null;
    // The tags of a frame by state, reused from frame to frame.
    this.positioned = []; this.ranged = []; this.removed = [];
    this.drawnCounts = "";           // "POSITIONED DISTANCE REMOVED" tags of the latest frame drawn
    if (typeof document !== "undefined") this.resize();
  }

  // View transform: site metres to CSS pixels (y up on the site, down on the screen).
  px(x) { return this.ox + x * this.scale; }
  py(y) { return this.oy - y * this.scale; }
  siteX(px) { return (px - this.ox) / this.scale; }
  siteY(py) { return (this.oy - py) / this.scale; }

  /** Takes the size of the <canvas> element on the page. */
  resize() {
    const r = this.canvas.getBoundingClientRect();
    this.setSize(r.width, r.height, window.devicePixelRatio || 1);
  }

  /** Sets the size in CSS pixels and the device pixel ratio (fits the site again unless zoomed or panned). */
  setSize(width, height, dpr) {
    this.dpr = dpr;
    this.width = Math.max(1, width); this.height = Math.max(1, height);
    if (this.draws) {
      for (const c of [this.canvas, this.layer, this.background]) {
        c.width = Math.round(this.width * this.dpr); c.height = Math.round(this.height * this.dpr);
      }
    }
    if (this.autoFit) this.fit();
    this.layerValid = false;
  }

  /** The transform, to hand to another view of the same site (the drawing worker's). */
  transform() { return { scale: this.scale, ox: this.ox, oy: this.oy, autoFit: this.autoFit, width: this.width, height: this.height, dpr: this.dpr }; }

  setTransform(v) {
    if (v.width !== this.width || v.height !== this.height || v.dpr !== this.dpr) this.setSize(v.width, v.height, v.dpr);
    this.scale = v.scale; this.ox = v.ox; this.oy = v.oy; this.autoFit = v.autoFit;
    this.layerValid = false;
  }

  fit() {
    const b = this.site.bounds;
    const w = b.max[0] - b.min[0], h = b.max[1] - b.min[1];
    this.scale = Math.max(0.01, Math.min((this.width - 2 * FIT_MARGIN_PX) / w, (this.height - 2 * FIT_MARGIN_PX) / h));
    this.ox = (this.width - w * this.scale) / 2 - b.min[0] * this.scale;
    this.oy = (this.height + h * this.scale) / 2 + b.min[1] * this.scale;
    this.autoFit = true;
    this.layerValid = false;
  }

  zoom(factor, cx, cy) {
    const x = this.siteX(cx), y = this.siteY(cy);
    this.scale = Math.min(2000, Math.max(0.05, this.scale * factor));
    this.ox = cx - x * this.scale; this.oy = cy + y * this.scale;
    this.autoFit = false; this.layerValid = false;
  }

  pan(dx, dy) { this.ox += dx; this.oy += dy; this.autoFit = false; this.layerValid = false; }

  centreOn(x, y) {
    this.ox = this.width / 2 - x * this.scale; this.oy = this.height / 2 + y * this.scale;
    this.autoFit = false; this.layerValid = false;
  }

  setHealth(health) { this.health = health; this.layerValid = false; }

  // The site plan: grid, bounds, zones, cones, anchors.
  drawLayer() {
    const g = this.layer.getContext("2d", { alpha: false });
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.fillStyle = "#fff"; g.fillRect(0, 0, this.width, this.height);
    const b = this.site.bounds;
    const x0 = this.px(b.min[0]), x1 = this.px(b.max[0]), y0 = this.py(b.max[1]), y1 = this.py(b.min[1]);

    // Grid: 1 m lines where they are at least 6 px apart, else coarser; every 5th line darker and labelled.
    let step = 1;
    while (step * this.scale < 6) step *= step === 1 ? 2 : (String(step).startsWith("2") ? 2.5 : 2);
    const major = step * 5;
    g.lineWidth = 1;
    for (const [strokeStyle, every] of [[COLORS.grid, step], [COLORS.gridMajor, major]]) {
      g.beginPath();
      for (let x = Math.ceil(b.min[0] / every) * every; x <= b.max[0] + 1e-9; x += every) {
        const p = Math.round(this.px(x)) + 0.5; g.moveTo(p, y0); g.lineTo(p, y1);
      }
      for (let y = Math.ceil(b.min[1] / every) * every; y <= b.max[1] + 1e-9; y += every) {
        const p = Math.round(this.py(y)) + 0.5; g.moveTo(x0, p); g.lineTo(x1, p);
      }
      g.strokeStyle = strokeStyle; g.stroke();
    }
    g.fillStyle = COLORS.muted; g.font = "11px system-ui, 'DejaVu Sans', sans-serif";
    g.textAlign = "center"; g.textBaseline = "top";
    for (let x = Math.ceil(b.min[0] / major) * major; x <= b.max[0] + 1e-9; x += major) g.fillText(`${fmt(x)} m`, this.px(x), y1 + 4);
    g.textAlign = "right"; g.textBaseline = "middle";
    for (let y = Math.ceil(b.min[1] / major) * major; y <= b.max[1] + 1e-9; y += major) g.fillText(`${fmt(y)} m`, x0 - 4, this.py(y));
    g.strokeStyle = COLORS.bounds; g.lineWidth = 1.5; g.strokeRect(x0, y0, x1 - x0, y1 - y0);

    // Zones.
    for (const z of this.site.zones) {
      g.beginPath();
      z.polygon.forEach(([x, y], i) => (i ? g.lineTo(this.px(x), this.py(y)) : g.moveTo(this.px(x), this.py(y))));
      g.closePath();
      g.fillStyle = COLORS.zoneFill; g.fill();
      g.strokeStyle = COLORS.zoneLine; g.lineWidth = 1.5; g.setLineDash([6, 3]); g.stroke(); g.setLineDash([]);
    }

    // Field-of-view cones of oriented anchors (the plan view of the boresight ± half the field of view),
    // clipped to the bounds.
    g.save();
    g.beginPath(); g.rect(x0, y0, x1 - x0, y1 - y0); g.clip();
    for (const a of this.site.anchors) {
      const heading = boresightHeading(a);
      if (heading === null) continue;
      const half = Math.min((a.fieldOfView ?? 360) / 2, 180) * Math.PI / 180;
      const cx = this.px(a.position[0]), cy = this.py(a.position[1]), r = CONE_LENGTH_M * this.scale;
      g.beginPath(); g.moveTo(cx, cy);
      // Canvas angles run clockwise (y down): the site's heading h is -h on screen.
      g.arc(cx, cy, r, -heading - half, -heading + half);
      g.closePath();
      g.fillStyle = COLORS.cone; g.fill(); g.strokeStyle = COLORS.coneLine; g.lineWidth = 1; g.stroke();
    }
    g.restore();

    // Anchors: shape by technology, red or orange when their health is at fault.
    g.font = "12px system-ui, 'DejaVu Sans', sans-serif"; g.textAlign = "left"; g.textBaseline = "middle";
    for (const a of this.site.anchors) {
      const cx = this.px(a.position[0]), cy = this.py(a.position[1]);
      const state = this.health.get(a.id);
      const fault = FAULT_COLORS[state] || (state && state !== "ok" ? COLORS.warn : null);
      if (fault) {
        g.beginPath(); g.arc(cx, cy, 11, 0, 2 * Math.PI);
        g.fillStyle = fault === COLORS.bad ? "rgba(211, 47, 47, 0.18)" : "rgba(239, 108, 0, 0.18)"; g.fill();
        g.strokeStyle = fault; g.lineWidth = 2; g.stroke();
      }
      g.fillStyle = fault || COLORS.ink;
      anchorMarker(g, cx, cy, a.technologies);
      let label = `${a.id} ${a.technologies.join("+")}`;
      if (this.site.dimensions === 3) label += ` z ${a.position[2].toFixed(1)} m`;
      if (fault) label += ` · ${state}`;
      placeText(g, label, cx + 10, cy - 9, this.width, fault || COLORS.ink);
    }
    this.layerValid = true;
  }

  /** The background of each frame: the site plan and the trails as of their latest points. */
  drawBackground(store) {
    const g = this.background.getContext("2d", { alpha: false });
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.drawImage(this.layer, 0, 0);
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.beginPath();
    for (const t of store.tags.values()) {
      if (t.state !== State.position || t.trailCount < 2) continue;
      let first = true;
      t.forEachTrailPoint((x, y) => {
        const X = this.px(x), Y = this.py(y);
        if (first) { g.moveTo(X, Y); first = false; } else g.lineTo(X, Y);
      });
    }
    g.strokeStyle = COLORS.trail; g.lineWidth = 1; g.stroke();
    this.backgroundTrails = store.trailVersion;
  }

  /** Draws one frame of the whole map from the store. */
  draw(store, now) {
    if (!this.layerValid) { this.drawLayer(); this.backgroundTrails = -1; }
    if (this.backgroundTrails !== store.trailVersion) this.drawBackground(store);
    const c = this.ctx;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, this.canvas.width, this.canvas.height);
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const s = this.scale, w = this.width, h = this.height;
    const visible = (x, y, r) => x > -r && y > -r && x < w + r && y < h + r;

    // Zone occupancy, at each zone's centre.
    c.font = "600 13px system-ui, 'DejaVu Sans', sans-serif"; c.textAlign = "center"; c.textBaseline = "middle";
    for (const z of this.site.zones) {
      const [zx, zy] = cornerCentroid(z.polygon);
      const n = store.zones.get(z.id)?.size ?? 0;
      haloText(c, `${z.name}: ${n} tag${n === 1 ? "" : "s"}`, this.px(zx), this.py(zy), "#7a5d00");
    }

    const positioned = this.positioned, ranged = this.ranged, removed = this.removed;
    positioned.length = 0; ranged.length = 0; removed.length = 0;
    for (const t of store.tags.values()) {
      if (t.state === State.position) positioned.push(t);
      else if (t.state === State.distance) ranged.push(t);
      else removed.push(t);
    }
    this.drawnCounts = `${positioned.length} ${ranged.length} ${removed.length}`;

    // Trails: the cached part up to each tag's newest trail point, then the last stretch to where the
    // tag is now, in one path (hairlines: a 1 px line is the cheapest stroke to rasterise).
    c.beginPath();
    for (const t of positioned) {
      if (t.trailCount === 0) continue;
      const i = t.lastTrailIndex();
      c.moveTo(this.px(t.trail[2 * i]), this.py(t.trail[2 * i + 1])); c.lineTo(this.px(t.x), this.py(t.y));
    }
    c.strokeStyle = COLORS.trail; c.lineWidth = 1; c.stroke();

    // 95 % ellipses, in one path.
    c.beginPath();
    for (const t of positioned) {
      const X = this.px(t.x), Y = this.py(t.y);
      const a = t.major * s, b = Math.max(t.minor * s, 0.5);
      if (a < 1.5 || !visible(X, Y, a)) continue;
      ellipsePath(c, X, Y, a, b, t.cos, t.sin);
    }
    // Filling many overlapping translucent ellipses is the costliest part of a frame: above
    // FILL_LIMIT tags they are outlined only.
    if (positioned.length <= FILL_LIMIT) { c.fillStyle = COLORS.ellipseFill; c.fill(); }
    c.strokeStyle = COLORS.ellipseLine; c.lineWidth = 1; c.stroke();

    // Positions, in one path.
    c.beginPath();
    for (const t of positioned) {
      const X = this.px(t.x), Y = this.py(t.y);
      if (!visible(X, Y, DOT_PX)) continue;
      c.moveTo(X + DOT_PX, Y); c.arc(X, Y, DOT_PX, 0, 2 * Math.PI);
    }
    c.fillStyle = COLORS.position; c.fill();

    // Distance only: the range circle around the anchor that hears the tag, and the tag on it (at the
    // measured direction when there is one).
    c.beginPath();
    const rangeMarks = [];
    for (const t of ranged) {
      const a = this.anchors.get(t.rangeAnchor);
      if (!a) continue;
      const cx = this.px(a.position[0]), cy = this.py(a.position[1]);
      const r = planRangeRadius(this.site, a, t.rangeDistance) * s;
      c.moveTo(cx + r, cy); c.arc(cx, cy, r, 0, 2 * Math.PI);
      const heading = azimuthHeading(a, t.rangeAzimuth) ?? spreadAngle(t.id);
      rangeMarks.push([t, cx + r * Math.cos(-heading), cy + r * Math.sin(-heading)]);
    }
    // A 1 px dashed line is drawn as a hairline, at a fraction of the cost of a wider one.
    c.setLineDash([5, 4]); c.strokeStyle = COLORS.distance; c.lineWidth = 1; c.stroke(); c.setLineDash([]);
    c.beginPath();
    for (const [, X, Y] of rangeMarks) { c.moveTo(X + DOT_PX + 1, Y); c.arc(X, Y, DOT_PX + 1, 0, 2 * Math.PI); }
    c.fillStyle = "#fff"; c.fill(); c.strokeStyle = COLORS.distance; c.lineWidth = 2; c.stroke();

    // Removed: greyed at the last position, fading out.
    for (const t of removed) {
      if (!t.hasPosition) continue;
      c.globalAlpha = Math.max(0.1, 1 - (now - t.removedAt) / REMOVED_LINGER_MS);
      c.beginPath(); c.arc(this.px(t.x), this.py(t.y), DOT_PX, 0, 2 * Math.PI);
      c.fillStyle = COLORS.removed; c.fill();
    }
    c.globalAlpha = 1;

    // Labels: all of them when few, else only the searched and selected tags.
    c.font = "11px system-ui, 'DejaVu Sans', sans-serif"; c.textAlign = "left"; c.textBaseline = "middle";
    const all = positioned.length + ranged.length + removed.length <= LABEL_LIMIT;
    const label = (t) => all || this.highlight.has(t.id) || this.selected === t.id;
    for (const t of positioned) if (label(t)) haloText(c, t.id, this.px(t.x) + 6, this.py(t.y) - 7, COLORS.position, "left");
    for (const [t, X, Y] of rangeMarks) if (label(t)) haloText(c, `${t.id} ${t.rangeDistance.toFixed(1)} m`, X + 7, Y - 7, COLORS.distance, "left");
    for (const t of removed) if (t.hasPosition && label(t)) haloText(c, `${t.id} removed`, this.px(t.x) + 6, this.py(t.y) - 7, COLORS.removed, "left");

    // Searched and selected tags: a ring.
    if (this.highlight.size === 0 && !this.selected) return;
    c.beginPath();
    const ring = (id) => {
      const t = store.tags.get(id);
      const p = t && this.tagPoint(t);
      if (p) { c.moveTo(p[0] + 9, p[1]); c.arc(p[0], p[1], 9, 0, 2 * Math.PI); }
    };
    for (const id of this.highlight) ring(id);
    if (this.selected && !this.highlight.has(this.selected)) ring(this.selected);
    c.strokeStyle = COLORS.highlight; c.lineWidth = 2.5; c.stroke();
  }

  /** Where a tag is drawn, CSS pixels, or null. */
  tagPoint(t) {
    if (t.state === State.distance) {
      const a = this.anchors.get(t.rangeAnchor);
      if (!a) return null;
      const r = planRangeRadius(this.site, a, t.rangeDistance) * this.scale;
      const heading = azimuthHeading(a, t.rangeAzimuth) ?? spreadAngle(t.id);
      return [this.px(a.position[0]) + r * Math.cos(-heading), this.py(a.position[1]) + r * Math.sin(-heading)];
    }
    return t.hasPosition ? [this.px(t.x), this.py(t.y)] : null;
  }

  /** The tag drawn nearest to (x, y) in CSS pixels, within `radius` pixels, or null. */
  hit(store, x, y, radius = 10) {
    let best = null, bestD = radius * radius;
    for (const t of store.tags.values()) {
      const p = this.tagPoint(t);
      if (!p) continue;
      const d = (p[0] - x) ** 2 + (p[1] - y) ** 2;
      if (d <= bestD) { best = t; bestD = d; }
    }
    return best;
  }
}

/** A canvas for a cached layer: an element on the page, an OffscreenCanvas in a worker. */
function makeCanvas() {
  return typeof document !== "undefined" ? document.createElement("canvas") : new OffscreenCanvas(1, 1);
}

/** The control-point distance of a quarter circle drawn as one cubic Bézier: 4(√2 − 1)/3. */
const KAPPA = 0.5522847498307936;

/**
 * Adds an ellipse to the current path as four cubic Béziers (within 0.03 % of the true ellipse):
 * centre (x, y) and semi-axes a, b in CSS pixels, the major axis at the site angle whose cosine and
 * sine are `cos`, `sin` (counter-clockwise from +x; y runs down on screen). Canvas's own ellipse()
 * costs several microseconds a call, which at 1,000 tags was most of a frame's drawing.
 */
function ellipsePath(g, x, y, a, b, cos, sin) {
  const ux = a * cos, uy = -a * sin;      // the major semi-axis on screen
  const vx = b * sin, vy = b * cos;       // the minor semi-axis, a quarter turn from it
  const kux = KAPPA * ux, kuy = KAPPA * uy, kvx = KAPPA * vx, kvy = KAPPA * vy;
  g.moveTo(x + ux, y + uy);
  g.bezierCurveTo(x + ux + kvx, y + uy + kvy, x + vx + kux, y + vy + kuy, x + vx, y + vy);
  g.bezierCurveTo(x + vx - kux, y + vy - kuy, x - ux + kvx, y - uy + kvy, x - ux, y - uy);
  g.bezierCurveTo(x - ux - kvx, y - uy - kvy, x - vx - kux, y - vy - kuy, x - vx, y - vy);
  g.bezierCurveTo(x - vx + kux, y - vy + kuy, x + ux - kvx, y + uy - kvy, x + ux, y + uy);
}

/** A marker per technology: square (uwb), triangle (cs), diamond (aoa); a dual anchor gets both its shapes. */
function anchorMarker(g, x, y, technologies) {
  technologies.forEach((tech, i) => {
    const r = i === 0 ? 6 : 3.5;
    g.beginPath();
    if (tech === "cs") { g.moveTo(x, y - r); g.lineTo(x + r, y + r * 0.8); g.lineTo(x - r, y + r * 0.8); g.closePath(); }
    else if (tech === "aoa") { g.moveTo(x, y - r); g.lineTo(x + r, y); g.lineTo(x, y + r); g.lineTo(x - r, y); g.closePath(); }
    else g.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
    if (i > 0) { const keep = g.fillStyle; g.fillStyle = "#fff"; g.fill(); g.fillStyle = keep; } else g.fill();
  });
}

/** Text with a white halo, so it stays legible over lines. */
function haloText(g, text, x, y, color, align) {
  if (align) g.textAlign = align;
  g.lineWidth = 3; g.strokeStyle = "rgba(255, 255, 255, 0.9)"; g.lineJoin = "round";
  g.strokeText(text, x, y);
  g.fillStyle = color; g.fillText(text, x, y);
}

/** A label placed right of its point, or left of it when it would leave the canvas. */
function placeText(g, text, x, y, width, color) {
  const w = g.measureText(text).width;
  const left = x + w > width - 4;
  haloText(g, text, left ? x - 20 - w : x, y, color, "left");
}

/** A stable angle per tag id, so that several distance-only tags of one anchor do not overlap. */
function spreadAngle(id) {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  return ((h >>> 0) % 360) * Math.PI / 180;
}

function fmt(v) { return Number.isInteger(v) ? String(v) : v.toFixed(1); }
