// ?bench=N: a page-side benchmark. Instead of the live feed, N synthetic tags walk about the site and
// each sends 10 position updates a second, as JSON text through the same parse-and-apply path as the
// feed, in batches every 20 ms (a late batch carries all that was due). After a 2 s warm-up it records, for `seconds` seconds, the interval
// between animation frames, the time each frame's drawing takes, and the time spent applying
// messages, then writes the figures as JSON into #bench-result (data-done="1").

/** Updates per tag per second (the map's default feed rate). */
const UPDATE_HZ = 10;
/** Interval between message batches, milliseconds. */
const BATCH_MS = 20;
/** Warm-up before recording, milliseconds. */
const WARMUP_MS = 2000;
/** Walking speed of a synthetic tag, m/s. */
const SPEED = 1.2;
/** Every this-many-th synthetic tag is distance only. */
const DISTANCE_ONLY_EVERY = 50;

export class Bench {
  constructor(live, tags, seconds) {
    this.live = live;
    this.seconds = seconds;
    const site = live.site, b = site.bounds;
    this.bounds = b;
    let seed = 12345;
    this.random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    this.tags = Array.from({ length: tags }, (_, i) => {
      const heading = this.random() * 2 * Math.PI;
      return {
        id: `B${i}`, x: b.min[0] + this.random() * (b.max[0] - b.min[0]), y: b.min[1] + this.random() * (b.max[1] - b.min[1]),
        vx: SPEED * Math.cos(heading), vy: SPEED * Math.sin(heading), last: performance.now(),
        anchor: site.anchors.length ? site.anchors[i % site.anchors.length].id : "",
      };
    });
    this.next = 0;
    this.carry = 0;
    this.lastTick = performance.now();
    this.intervals = []; this.draws = []; this.applyMs = 0; this.messages = 0; this.skipped = 0;
    this.started = performance.now();
    this.recording = false; this.recordStart = 0; this.lastFrame = null;
    live.frameHook = (t, drawMs) => this.onFrame(t, drawMs);
    live.reportFrames(true);
    this.timer = setInterval(() => this.tick(), BATCH_MS);
  }

  /** One synthetic message of tag `t` at page time `now`, stamped `time` (ISO 8601) and `ns`. */
  message(t, now, time, ns) {
    const dt = (now - t.last) / 1000;
    t.last = now;
    t.x += t.vx * dt; t.y += t.vy * dt;
    const b = this.bounds;
    if (t.x < b.min[0] || t.x > b.max[0]) { t.vx = -t.vx; t.x = Math.min(b.max[0], Math.max(b.min[0], t.x)); }
    if (t.y < b.min[1] || t.y > b.max[1]) { t.vy = -t.vy; t.y = Math.min(b.max[1], Math.max(b.min[1], t.y)); }
    const site = this.live.site.id;
    if (t.anchor && Number(t.id.slice(1)) % DISTANCE_ONLY_EVERY === 0) {
      return `{"type":"proximity","site":"${site}","tag":"${t.id}","anchor":"${t.anchor}","time":"${time}","timeNs":"${ns}","distance":${(3 + (Number(t.id.slice(1)) % 7)).toFixed(4)}}`;
    }
    return `{"type":"position","site":"${site}","tag":"${t.id}","time":"${time}","timeNs":"${ns}",` +
      `"x":${t.x.toFixed(4)},"y":${t.y.toFixed(4)},"z":1.2,"vx":${t.vx.toFixed(4)},"vy":${t.vy.toFixed(4)},"vz":0.0,` +
      `"sigma":0.0812,"cov":{"xx":0.00712,"xy":0.00105,"yy":0.00606},"anchors":5,"motion":"moving"}`;
  }

  tick() {
    const now = performance.now();
    // Round-robin: UPDATE_HZ updates per tag per second, spread over the batches. A late batch carries
    // everything due since the last one, as a socket would have queued it.
    this.carry += this.tags.length * UPDATE_HZ * Math.min(1000, now - this.lastTick) / 1000;
    this.lastTick = now;
    const n = Math.floor(this.carry);
    this.carry -= n;
    // One time stamp per batch, as the service's messages of one turn carry nearly the same time.
    const wall = Date.now();
    const ns = `${wall}000000`, time = new Date(wall).toISOString().replace("Z", "000000Z");
    const texts = [];
    for (let k = 0; k < n; k++) {
      const t = this.tags[this.next];
      this.next = (this.next + 1) % this.tags.length;
      texts.push(this.message(t, now, time, ns));
    }
    // Only the page's own work is timed: taking the messages, not making them.
    const start = performance.now();
    for (const text of texts) this.live.onText(text);
    if (this.recording) { this.applyMs += performance.now() - start; this.messages += n; }
  }

  onFrame(t, drawMs) {
    const now = performance.now();
    if (!this.recording && now - this.started >= WARMUP_MS) {
      this.recording = true; this.recordStart = now; this.lastFrame = t;
      return;
    }
    if (!this.recording) return;
    this.intervals.push(t - this.lastFrame);
    this.lastFrame = t;
    if (drawMs === null) this.skipped++; else this.draws.push(drawMs);
    if (now - this.recordStart >= this.seconds * 1000) this.finish(now);
  }

  finish(now) {
    const elapsed = (now - this.recordStart) / 1000;
    const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : null; };
    const r2 = (v) => (v === null ? null : Math.round(v * 100) / 100);
    const result = {
      tags: this.tags.length, updateHz: UPDATE_HZ, seconds: r2(elapsed),
      frames: this.intervals.length, fps: r2(this.intervals.length / elapsed),
      frameIntervalMs: { p50: r2(q(this.intervals, 0.5)), p95: r2(q(this.intervals, 0.95)), p99: r2(q(this.intervals, 0.99)), max: r2(Math.max(...this.intervals)) },
      drawMs: { p50: r2(q(this.draws, 0.5)), p95: r2(q(this.draws, 0.95)), p99: r2(q(this.draws, 0.99)), max: r2(Math.max(...this.draws)) },
      framesWithoutNews: this.skipped,
      messagesPerSecond: Math.round(this.messages / elapsed),
      applyMsPerSecond: r2(this.applyMs / elapsed),
      canvas: `${Math.round(this.live.view.width * this.live.view.dpr)}x${Math.round(this.live.view.height * this.live.view.dpr)}`,
      drawing: this.live.worker ? "worker" : "main",
    };
    this.stop();
    const out = document.getElementById("bench-result");
    out.textContent = JSON.stringify(result);
    out.hidden = false;
    out.dataset.done = "1";
    console.log("bench", JSON.stringify(result));
  }

  stop() {
    clearInterval(this.timer);
    this.live.frameHook = null;
    this.live.reportFrames(false);
  }
}
