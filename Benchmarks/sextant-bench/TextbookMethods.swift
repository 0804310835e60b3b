import Numerics
import Positioning

/// One range of a 2-D site, flattened for the textbook methods: tag and anchor as indices.
struct RangeSample {
    var time: Nanoseconds
    var tag: Int
    var anchor: Int
    var distance: Double
}

/// The textbook methods of the LIAS dataset README, for 2-D sites (z pinned at the tag height):
/// per-tag Gauss–Newton least squares over a sliding window, and a constant-velocity EKF with
/// sequential scalar range updates, with or without a χ² gate. No bias handling, no robust weights:
/// the straightforward implementations the figures of the README refer to.
enum Textbook {
    /// The ranges of `events`, with the site file's `rangeBias` removed, and the tag ids by index.
    static func ranges(_ events: [Event], site: Site) -> (samples: [RangeSample], tags: [String]) {
        var tagIndex: [String: Int] = [:], tags: [String] = [], out: [RangeSample] = []
        for case .ranging(let r) in events {
            guard let d = r.distance, let a = site.anchorIndex[r.anchor] else { continue }
            let k = tagIndex[r.tag] ?? { tags.append(r.tag); tagIndex[r.tag] = tags.count - 1; return tags.count - 1 }()
            out.append(RangeSample(time: r.time, tag: k, anchor: a, distance: d - site.anchors[a].rangeBias))
        }
        return (out, tags)
    }

    /// Gauss–Newton least squares (unweighted) over `window` seconds of each tag's ranges, solved every
    /// `interval` seconds; needs 3 distinct anchors. Starts from the previous fix (first: anchor centroid).
    static func leastSquares(_ samples: [RangeSample], tags: [String], site: Site, window: Double = 0.3,
                             interval: Double = 0.1) -> [EstimateSample] {
        let h = site.tagHeight ?? 0
        var buffers = Array(repeating: [RangeSample](), count: tags.count)
        var heads = Array(repeating: 0, count: tags.count)
        var last = Array(repeating: Nanoseconds.min, count: tags.count)
        var fix = Array(repeating: Vec3?.none, count: tags.count)
        var out: [EstimateSample] = []
        let w = Nanoseconds(window * 1e9), step = Nanoseconds(interval * 1e9)
        for s in samples {
            buffers[s.tag].append(s)
            while buffers[s.tag][heads[s.tag]].time < s.time - w { heads[s.tag] += 1 }
            if heads[s.tag] > 4096 { buffers[s.tag].removeFirst(heads[s.tag]); heads[s.tag] = 0 }
            guard last[s.tag] == .min || s.time - last[s.tag] >= step else { continue }
            let recent = buffers[s.tag][heads[s.tag]...]
            guard let p = solve(recent, site: site, height: h, start: fix[s.tag]) else { continue }
            last[s.tag] = s.time
            fix[s.tag] = p
            out.append(EstimateSample(site: site.id, tag: tags[s.tag], time: s.time, position: p))
        }
        return out
    }

    /// One Gauss–Newton solve of a 2-D position at height `height`; nil with fewer than 3 anchors or a
    /// singular normal matrix.
    static func solve(_ ranges: ArraySlice<RangeSample>, site: Site, height: Double, start: Vec3?) -> Vec3? {
        var seen = Set<Int>()
        for r in ranges { seen.insert(r.anchor) }
        guard seen.count >= 3 else { return nil }
        var p = start ?? {
            var c = Vec3.zero
            for a in seen { c = c + site.anchors[a].position }
            return Vec3(c.x / Double(seen.count), c.y / Double(seen.count), height)
        }()
        p.z = height
        for _ in 0..<20 {
            var a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0
            for r in ranges {
                let d = p - site.anchors[r.anchor].position
                let n = d.norm
                guard n > 1e-9 else { continue }
                let jx = d.x / n, jy = d.y / n, res = r.distance - n
                a11 += jx * jx; a12 += jx * jy; a22 += jy * jy; b1 += jx * res; b2 += jy * res
            }
            let det = a11 * a22 - a12 * a12
            guard det > 1e-12 else { return nil }
            let dx = (a22 * b1 - a12 * b2) / det, dy = (a11 * b2 - a12 * b1) / det
            p.x += dx; p.y += dy
            if dx * dx + dy * dy < 1e-12 { break }
        }
        return p.isFinite ? p : nil
    }

    /// The textbook constant-velocity EKF, state `[x, y, vx, vy]`: white-acceleration density `q`
    /// (m²/s³), range σ `sigma` (m), one scalar update per range; a range whose normalised squared
    /// innovation exceeds `gate` is skipped. Each tag starts at its first least-squares fix (0.3 s of
    /// ranges) with σ 0.5 m and 1 m/s. One estimate per tag every `interval` seconds.
    static func ekf(_ samples: [RangeSample], tags: [String], site: Site, q: Double = 1.0, sigma: Double = 0.1,
                    gate: Double? = nil, interval: Double = 0.1) -> (estimates: [EstimateSample], gated: Int) {
        let h = site.tagHeight ?? 0
        var filters = Array(repeating: CVFilter2?.none, count: tags.count)
        var pending = Array(repeating: [RangeSample](), count: tags.count)
        var last = Array(repeating: Nanoseconds.min, count: tags.count)
        var out: [EstimateSample] = [], gated = 0
        let step = Nanoseconds(interval * 1e9), initWindow = Nanoseconds(0.3e9)
        for s in samples {
            guard var f = filters[s.tag] else {
                pending[s.tag].append(s)
                pending[s.tag].removeAll { $0.time < s.time - initWindow }
                if let p = solve(pending[s.tag][...], site: site, height: h, start: nil) {
                    filters[s.tag] = CVFilter2(x: p.x, y: p.y, time: s.time, positionStd: 0.5, velocityStd: 1)
                    pending[s.tag] = []
                }
                continue
            }
            f.predict(to: s.time, q: q)
            let a = site.anchors[s.anchor].position
            let d = Vec3(f.x[0], f.x[1], h) - a
            let n = d.norm
            if n > 1e-9 {
                let accepted = f.update(residual: s.distance - n, hx: d.x / n, hy: d.y / n, r: sigma * sigma, gate: gate)
                if !accepted { gated += 1 }
            }
            filters[s.tag] = f
            if last[s.tag] == .min || s.time - last[s.tag] >= step {
                last[s.tag] = s.time
                out.append(EstimateSample(site: site.id, tag: tags[s.tag], time: s.time, position: Vec3(f.x[0], f.x[1], h),
                                          covariance: PositionCovariance(xx: f.p[0], xy: f.p[1], yy: f.p[5])))
            }
        }
        return (out, gated)
    }
}

/// A 2-D constant-velocity Kalman filter, `[x, y, vx, vy]` with a row-major 4×4 covariance.
struct CVFilter2 {
    var x: [Double]
    var p: [Double]
    var time: Nanoseconds

    init(x px: Double, y py: Double, time: Nanoseconds, positionStd: Double, velocityStd: Double) {
        x = [px, py, 0, 0]
        p = [Double](repeating: 0, count: 16)
        p[0] = positionStd * positionStd; p[5] = p[0]
        p[10] = velocityStd * velocityStd; p[15] = p[10]
        self.time = time
    }

    /// P ← F P Fᵀ + Q with F = [I dt·I; 0 I] and the white-acceleration Q of density `q`.
    mutating func predict(to t: Nanoseconds, q: Double) {
        guard t > time else { return }
        let dt = Double(t - time) * 1e-9
        time = t
        x[0] += dt * x[2]; x[1] += dt * x[3]
        var fp = p   // F·P: rows 0, 1 get dt × rows 2, 3
        for c in 0..<4 { fp[c] += dt * p[8 + c]; fp[4 + c] += dt * p[12 + c] }
        var n = fp   // (F·P)·Fᵀ: columns 0, 1 get dt × columns 2, 3
        for r in 0..<4 { n[r * 4] += dt * fp[r * 4 + 2]; n[r * 4 + 1] += dt * fp[r * 4 + 3] }
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        n[0] += q11; n[5] += q11; n[10] += q22; n[15] += q22
        n[2] += q12; n[8] += q12; n[7] += q12; n[13] += q12
        p = n
    }

    /// One scalar update with H = [hx, hy, 0, 0]; returns false (nothing applied) when gated out.
    mutating func update(residual nu: Double, hx: Double, hy: Double, r: Double, gate: Double?) -> Bool {
        var ph = [Double](repeating: 0, count: 4)
        for i in 0..<4 { ph[i] = p[i * 4] * hx + p[i * 4 + 1] * hy }
        let s = hx * ph[0] + hy * ph[1] + r
        guard s > 0 else { return false }
        if let gate, nu * nu / s > gate { return false }
        for i in 0..<4 { x[i] += ph[i] / s * nu }
        for i in 0..<4 { for j in 0..<4 { p[i * 4 + j] -= ph[i] * ph[j] / s } }
        return true
    }
}
