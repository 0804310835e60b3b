// The side panel: tag counts, the tag search, zone occupancy, anchor health, the selected tag, and the
// page's machine-readable list of tags (#tag-positions) that tests and scripts read.
import { State } from "./model.js";

/** At most this many search results are listed. */
const MAX_RESULTS = 50;

const $ = (id) => document.getElementById(id);

export class Panel {
  constructor(view, onPick) {
    this.view = view;
    this.onPick = onPick;     // (tag id) -> centre the map on it and select it
    this.query = "";
    this.search = $("tag-search");
    // Handlers as properties, so that the panel of the next site replaces these.
    this.search.oninput = () => this.setQuery(this.search.value);
    this.search.onkeydown = (e) => {
      if (e.key === "Enter") {
        const first = $("search-results").querySelector("li[data-tag]");
        if (first) this.onPick(first.dataset.tag);
      }
    };
    $("search-results").onclick = (e) => {
      const li = e.target.closest("li[data-tag]");
      if (li) this.onPick(li.dataset.tag);
    };
    this.setQuery(this.search.value);
    this.positionsText = "";
  }

  setQuery(q) {
    this.query = q.trim().toLowerCase();
    if (this.search.value.trim().toLowerCase() !== this.query) this.search.value = q;
  }

  /** Refreshes the panel from the store (a few times a second, not per frame). */
  update(store, now) {
    const c = store.counts();
    $("tag-counts").innerHTML =
      `<span class="state-position">${c.position} positioned</span> · ` +
      `<span class="state-distance">${c.distance} distance only</span> · ` +
      `<span class="state-removed">${c.removed} removed</span>`;

    // Search.
    const matches = [];
    if (this.query) {
      for (const t of store.tags.values()) if (t.id.toLowerCase().includes(this.query)) matches.push(t);
      matches.sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
    }
    this.view.highlight = new Set(matches.map((t) => t.id));
    $("search-results").innerHTML = !this.query ? "" : matches.length === 0 ? `<li class="muted">no tag matches</li>` :
      matches.slice(0, MAX_RESULTS).map((t) =>
        `<li data-tag="${esc(t.id)}" class="${t.id === this.view.selected ? "active" : ""}">` +
        `${esc(t.id)} <span class="state-${t.state}">${describe(t)}</span></li>`).join("") +
      (matches.length > MAX_RESULTS ? `<li class="muted">… ${matches.length - MAX_RESULTS} more</li>` : "");

    // Zones.
    $("zones").innerHTML = store.site.zones.map((z) => {
      const members = [...(store.zones.get(z.id) ?? [])].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      const shown = members.slice(0, 12).map(esc).join(", ") + (members.length > 12 ? ", …" : "");
      return `<li data-zone="${esc(z.id)}" data-count="${members.length}"><span class="zone-count">${members.length}</span> in ` +
        `${esc(z.name)} <span class="muted">(${esc(z.id)})</span><div class="zone-tags">${shown}</div></li>`;
    }).join("") || `<li class="muted">this site has no zones</li>`;

    // The selected tag.
    const sel = this.view.selected && store.tags.get(this.view.selected);
    const box = $("selected");
    box.hidden = !sel;
    if (sel) box.innerHTML = `<b>${esc(sel.id)}</b> <span class="state-${sel.state}">${describe(sel)}</span><br>` + details(sel, now);
  }

  /** The anchors' health, from GET /api/v1/sites/{site}/anchors. */
  updateAnchors(site, anchors) {
    const byId = new Map(anchors.map((a) => [a.id, a]));
    $("anchors").tBodies[0].innerHTML = site.anchors.map((a) => {
      const h = byId.get(a.id) || {};
      const state = h.state || "unknown";
      return `<tr class="${esc(state)}" data-anchor="${esc(a.id)}" data-state="${esc(state)}"><td>${esc(a.id)}</td>` +
        `<td>${esc(a.technologies.join("+"))}</td><td>${esc(state)}</td><td>${esc(heard(h))}</td></tr>`;
    }).join("");
  }

  /** The tags as text lines "id state x y" (metres, 3 decimals; x y empty without a position), sorted. */
  writePositions(store) {
    const lines = [];
    for (const t of store.tags.values()) {
      lines.push(t.hasPosition ? `${t.id} ${t.state} ${t.x.toFixed(3)} ${t.y.toFixed(3)}` : `${t.id} ${t.state}`);
    }
    lines.sort();
    const text = lines.join("\n");
    if (text !== this.positionsText) {
      this.positionsText = text;
      const pre = $("tag-positions");
      pre.textContent = text;
      pre.dataset.count = String(lines.length);
      pre.dataset.applied = String(store.applied);
    }
  }
}

function describe(t) {
  if (t.state === State.position) return `${t.x.toFixed(2)}, ${t.y.toFixed(2)} m ±${(2.45 * t.sigma).toFixed(2)}`;
  if (t.state === State.distance) return `${t.rangeDistance.toFixed(2)} m from ${t.rangeAnchor}`;
  return `removed${t.removedReason ? ` (${t.removedReason})` : ""}`;
}

function details(t, now) {
  const age = ((now - t.updated) / 1000).toFixed(1);
  if (t.state === State.position) {
    return `x ${t.x.toFixed(3)} y ${t.y.toFixed(3)} z ${t.z.toFixed(2)} m · σ ${t.sigma.toFixed(3)} m<br>` +
      `${esc(t.motion)} · ${t.anchors} anchors · ${age} s ago<br><span class="muted">${esc(t.time)}</span>`;
  }
  return `${age} s ago<br><span class="muted">${esc(t.time)}</span>`;
}

/** Seconds since an anchor's latest line, as the anchors endpoint gives it. */
function heard(h) {
  const s = h.silentSeconds ?? h.silent_s;
  if (typeof s === "number") return s < 1 ? "now" : `${s.toFixed(0)} s ago`;
  if (h.lastHeard === null) return "never";
  if (typeof h.lastHeard === "string") {
    const ago = (Date.now() - Date.parse(h.lastHeard)) / 1000;
    if (Number.isFinite(ago)) return ago < 1 ? "now" : `${ago.toFixed(0)} s ago`;
  }
  return "";
}

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
}
