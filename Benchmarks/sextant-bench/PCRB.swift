import Numerics
import Positioning

/// The posterior Cramér–Rao bound along the true path (Tichavský, Muravchik, Nehorai 1998):
///
///     J₀ = P₀⁻¹,   J_{k+1} = (Q_k + F J_k⁻¹ Fᵀ)⁻¹ + Σᵢ Hᵢᵀ Rᵢ⁻¹ Hᵢ
///
/// for the constant-velocity model (state `[p, v]`, d = 2 or 3 free position coordinates) with white
/// acceleration of density `q` m²/s³, over the measurements actually generated: each range, azimuth and
/// elevation of the stream, with H evaluated at the true position (interpolated from the truth) and R
/// from the line's σ (ranges, as the engine takes it) or the technology's angle σ. It is carried in
/// covariance form, B_k = J_k⁻¹: B⁻ = F B Fᵀ + Q, then each scalar term by Sherman–Morrison,
/// B ← B − B h hᵀ B / (hᵀ B h + r), which is exactly the recursion above (sums of rank-one terms).
/// The bound is `sqrt(mean over query times of trace(position block of B))`: horizontal on 2-D sites.
struct PCRB {
    let site: Site
    var q: Double
    var initialPositionStd = 10.0
    var initialVelocityStd = 1.5
    /// When set, the density used while a tag's latest motion hint is `stationary` (the engine's
    /// `stationaryAccelerationNoise`): a hint-aware bound, for information; nil uses `q` throughout.
    var stationaryQ: Double?
    /// When true, the bound of a 3-D site is over x and y only (the horizontal error).
    var horizontalOnly = false

    private struct Measurement { var time: Nanoseconds; var obs: Observation }

    /// The bound over `queries` (the evaluated estimates: their times and tags), pooled over tags.
    /// - Parameters:
    ///   - events: the simulated stream.
    ///   - truth: its ground truth.
    ///   - warmup: seconds after a tag's first query that are left out, as in `Evaluation`.
    func bound(events: [Event], truth: [TruthSample], queries: [EstimateSample], warmup: Double = 2) -> Double {
        let rotations = site.anchors.map { $0.orientation?.rotation.transposed ?? .identity }
        var byTag: [String: [Measurement]] = [:]
        for case .ranging(let r) in events {
            guard let a = site.anchorIndex[r.anchor] else { continue }
            let anchor = site.anchors[a]
            let tech = r.technology ?? anchor.technologies.first ?? .uwb
            var list = byTag[r.tag, default: []]
            if r.distance != nil {
                let std = [r.std, anchor.rangeStd].compactMap { $0 }.max() ?? tech.defaultRangeStd
                list.append(Measurement(time: r.time, obs: Observation(kind: .range, anchor: a, anchorPosition: anchor.position,
                                                                       value: 0, std: std, time: r.time)))
            }
            if case .angles(let az, let el)? = r.direction, anchor.orientation != nil {
                for (kind, present) in [(Observation.Kind.azimuth, az != nil), (.elevation, el != nil)] where present {
                    list.append(Measurement(time: r.time, obs: Observation(kind: kind, anchor: a, anchorPosition: anchor.position,
                                                                           toAnchor: rotations[a], value: 0,
                                                                           std: tech.defaultAngleStd, time: r.time)))
                }
            }
            byTag[r.tag] = list
        }
        var truthByTag: [String: [TruthSample]] = [:]
        for s in truth { truthByTag[s.tag, default: []].append(s) }
        var hints: [String: [(time: Nanoseconds, still: Bool)]] = [:]
        for case .motion(_, let tag, let state, let t) in events { hints[tag, default: []].append((t, state == .stationary)) }
        var queriesByTag: [String: [Nanoseconds]] = [:]
        for e in queries { queriesByTag[e.tag, default: []].append(e.time) }

        var sum = 0.0, count = 0
        for (tag, times) in queriesByTag {
            guard let m = byTag[tag], let t = truthByTag[tag]?.sorted(by: { $0.time < $1.time }), let first = times.min(),
                  let tFirst = t.first?.time, let tLast = t.last?.time else { continue }
            let start = first + Nanoseconds(warmup * 1e9)
            let qs = times.filter { $0 >= start && $0 >= tFirst && $0 <= tLast }.sorted()
            let (s, n) = accumulate(measurements: m, truth: t, queries: qs, hints: hints[tag] ?? [])
            sum += s; count += n
        }
        return count == 0 ? .nan : (sum / Double(count)).squareRoot()
    }

    /// Runs one tag's recursion; returns the sum of the position-block traces at the query times.
    private func accumulate(measurements: [Measurement], truth: [TruthSample], queries: [Nanoseconds],
                            hints: [(time: Nanoseconds, still: Bool)]) -> (Double, Int) {
        let d = site.dimensions, n = 2 * d
        var b = [Double](repeating: 0, count: n * n)
        for k in 0..<d {
            b[k * n + k] = initialPositionStd * initialPositionStd
            b[(k + d) * n + k + d] = initialVelocityStd * initialVelocityStd
        }
        guard var time = measurements.first?.time else { return (0, 0) }
        var sum = 0.0, count = 0, qi = 0, ti = 0, hi = 0, still = false
        let traced = horizontalOnly ? min(d, 2) : d
        func trace(_ m: [Double]) -> Double { (0..<traced).reduce(0) { $0 + m[$1 * n + $1] } }
        func predicted(_ b: [Double], dt: Double, d: Int) -> [Double] {
            self.predicted(b, dt: dt, d: d, q: still ? (stationaryQ ?? q) : q)
        }
        for meas in measurements {
            while hi < hints.count && hints[hi].time <= time { still = hints[hi].still; hi += 1 }
            while qi < queries.count && queries[qi] < meas.time {
                if queries[qi] >= time {
                    sum += trace(predicted(b, dt: Double(queries[qi] - time) * 1e-9, d: d)); count += 1
                }
                qi += 1
            }
            if meas.time > time { b = predicted(b, dt: Double(meas.time - time) * 1e-9, d: d); time = meas.time }
            guard let p = truePosition(truth, at: meas.time, cursor: &ti),
                  let g = meas.obs.predict(at: p)?.gradient else { continue }
            var h = [Double](repeating: 0, count: n)
            for k in 0..<d { h[k] = g[k] }
            var bh = [Double](repeating: 0, count: n)
            for i in 0..<n { for j in 0..<d { bh[i] += b[i * n + j] * h[j] } }
            let s = (0..<d).reduce(0) { $0 + h[$1] * bh[$1] } + meas.obs.std * meas.obs.std
            for i in 0..<n { for j in 0..<n { b[i * n + j] -= bh[i] * bh[j] / s } }
        }
        while qi < queries.count {
            if queries[qi] >= time { sum += trace(predicted(b, dt: Double(queries[qi] - time) * 1e-9, d: d)); count += 1 }
            qi += 1
        }
        return (sum, count)
    }

    /// F B Fᵀ + Q for the constant-velocity model over `dt` seconds.
    private func predicted(_ b: [Double], dt: Double, d: Int, q: Double) -> [Double] {
        let n = 2 * d
        var fb = b
        for k in 0..<d { for c in 0..<n { fb[k * n + c] += dt * b[(k + d) * n + c] } }
        var out = fb
        for r in 0..<n { for k in 0..<d { out[r * n + k] += dt * fb[r * n + k + d] } }
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        for k in 0..<d {
            out[k * n + k] += q11
            out[k * n + k + d] += q12
            out[(k + d) * n + k] += q12
            out[(k + d) * n + k + d] += q22
        }
        return out
    }

    /// The truth at `t`, linearly interpolated; `cursor` walks forward with non-decreasing `t`.
    private func truePosition(_ truth: [TruthSample], at t: Nanoseconds, cursor: inout Int) -> Vec3? {
        while cursor + 1 < truth.count && truth[cursor + 1].time <= t { cursor += 1 }
        guard cursor < truth.count, truth[cursor].time <= t else { return nil }
        guard cursor + 1 < truth.count else { return truth[cursor].time == t ? truth[cursor].position : nil }
        let a = truth[cursor], b = truth[cursor + 1]
        let f = Double(t - a.time) / Double(b.time - a.time)
        return a.position + f * (b.position - a.position)
    }
}
