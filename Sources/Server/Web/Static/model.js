// The map's state: every tag's latest output, its trail, and the zones' occupancy, fed one output
// object (docs/protocol.md, JSON outputs) at a time.
import { insidePolygon, ellipse95 } from "./geometry.js";

/** Points kept in a tag's trail. */
export const TRAIL_POINTS = 20;
/** A trail point is added at most this often, milliseconds (so a trail spans about 10 s). */
export const TRAIL_SPACING_MS = 250;
/** How long a removed tag stays on the map, greyed and fading, milliseconds. */
export const REMOVED_LINGER_MS = 6000;

/** The three Nearby-Interaction states of a tag. */
export const State = Object.freeze({ position: "position", distance: "distance", removed: "removed" });

/** One tag as the map shows it. Positions in metres, site frame; times in milliseconds of this page's clock. */
export class Tag {
  constructor(id) {
    this.id = id;
    this.state = State.position;
    this.hasPosition = false;
    this.x = 0; this.y = 0; this.z = 0;
    this.cxx = 0; this.cxy = 0; this.cyy = 0;
    // The 95 % ellipse of that covariance (metres; the major axis's angle from +x and its cosine and
    // sine), worked out once per position rather than once per frame.
    this.major = 0; this.minor = 0; this.angle = 0; this.cos = 1; this.sin = 0;
    this.sigma = 0; this.motion = ""; this.anchors = 0;
    this.time = "";          // the output's ISO 8601 time
    this.updated = 0;        // page clock of the latest output
    this.trail = new Float64Array(2 * TRAIL_POINTS);
    this.trailStart = 0; this.trailCount = 0;
    this.rangeAnchor = ""; this.rangeDistance = 0; this.rangeAzimuth = null;
    this.removedAt = 0; this.removedReason = "";
  }

  addTrailPoint(x, y) {
    if (this.trailCount > 0) {
      const last = (this.trailStart + this.trailCount - 1) % TRAIL_POINTS;
      if (this.trail[2 * last] === x && this.trail[2 * last + 1] === y) return;
    }
    const i = (this.trailStart + this.trailCount) % TRAIL_POINTS;
    this.trail[2 * i] = x; this.trail[2 * i + 1] = y;
    if (this.trailCount < TRAIL_POINTS) this.trailCount++;
    else this.trailStart = (this.trailStart + 1) % TRAIL_POINTS;
  }

  /** The index of the newest trail point (with trailCount > 0): its x at trail[2i], its y at trail[2i + 1]. */
  lastTrailIndex() { return (this.trailStart + this.trailCount - 1) % TRAIL_POINTS; }

  setCovariance(xx, xy, yy) {
    this.cxx = xx; this.cxy = xy; this.cyy = yy;
    const e = ellipse95(xx, xy, yy);
    this.major = e.major; this.minor = e.minor; this.angle = e.angle;
    this.cos = Math.cos(e.angle); this.sin = Math.sin(e.angle);
  }

  /** Calls f(x, y) for each trail point, oldest first. */
  forEachTrailPoint(f) {
    for (let k = 0; k < this.trailCount; k++) {
      const i = (this.trailStart + k) % TRAIL_POINTS;
      f(this.trail[2 * i], this.trail[2 * i + 1]);
    }
  }
}

/** Every tag of one site, and which tags are in which zone. */
export class TagStore {
  constructor(site) {
    this.site = site;
    this.tags = new Map();
    this.zones = new Map(site.zones.map((z) => [z.id, new Set()]));
    this.applied = 0;        // outputs applied since the page loaded
    this.version = 0;        // bumped by every change the map draws
    this.trailVersion = 0;   // bumped when the trails get their points
    this.trailSampled = -Infinity;
  }

  /**
   * Every TRAIL_SPACING_MS, adds each positioned tag's current position to its trail (all tags at once,
   * so the trails change only a few times a second and the map can cache their drawing).
   */
  sampleTrails(now) {
    if (now - this.trailSampled < TRAIL_SPACING_MS) return;
    this.trailSampled = now;
    for (const t of this.tags.values()) if (t.state === State.position) t.addTrailPoint(t.x, t.y);
    this.trailVersion++;
  }

  tag(id) {
    let t = this.tags.get(id);
    if (!t) { t = new Tag(id); this.tags.set(id, t); }
    return t;
  }

  /** Applies one output object; returns false for an object of another site or kind. */
  apply(o, now) {
    if (o.site !== this.site.id || typeof o.tag !== "string") return false;
    switch (o.type) {
      case "position": {
        const t = this.tag(o.tag);
        t.state = State.position; t.hasPosition = true;
        t.x = o.x; t.y = o.y; t.z = o.z;
        const c = o.cov || {};
        t.setCovariance(c.xx || 0, c.xy || 0, c.yy || 0);
        t.sigma = o.sigma; t.motion = o.motion || ""; t.anchors = o.anchors || 0;
        t.time = o.time; t.updated = now;
        if (t.trailCount === 0) t.addTrailPoint(o.x, o.y);
        break;
      }
      case "proximity": {
        const t = this.tag(o.tag);
        t.state = State.distance;
        t.rangeAnchor = o.anchor; t.rangeDistance = o.distance;
        t.rangeAzimuth = typeof o.azimuth === "number" ? o.azimuth : null;
        t.time = o.time; t.updated = now;
        break;
      }
      case "removed": {
        const t = this.tags.get(o.tag);
        if (!t) return true;
        t.state = State.removed; t.removedAt = now; t.removedReason = o.reason || "";
        t.time = o.time; t.updated = now;
        for (const members of this.zones.values()) members.delete(o.tag);
        break;
      }
      case "zone": {
        const members = this.zones.get(o.zone);
        if (!members) return true;
        if (o.event === "enter") members.add(o.tag); else members.delete(o.tag);
        break;
      }
      default:
        return false;
    }
    this.applied++;
    this.version++;
    return true;
  }

  /**
   * Seeds zone occupancy from positions alone (for the tags listed at start-up, before any zone event
   * arrives): a tag is in a zone when its position lies inside the polygon.
   */
  seedZones() {
    for (const z of this.site.zones) {
      const members = this.zones.get(z.id);
      for (const t of this.tags.values()) {
        if (t.state === State.position && insidePolygon(t.x, t.y, z.polygon)) members.add(t.id);
      }
    }
    this.version++;
  }

  /** Drops the removed tags whose linger time is over. */
  expire(now) {
    for (const [id, t] of this.tags) {
      if (t.state === State.removed && now - t.removedAt > REMOVED_LINGER_MS) {
        this.tags.delete(id);
        this.version++;
      }
    }
  }

  counts() {
    const c = { position: 0, distance: 0, removed: 0 };
    for (const t of this.tags.values()) c[t.state]++;
    return c;
  }
}
