import Numerics
import Positioning

/// The textbook constant-velocity EKF in 3-D, state `[x, y, z, vx, vy, vz]`: white-acceleration
/// density `q` (m²/s³), range σ `sigma` (m), one scalar update per range, no gate, no bias handling,
/// no robust weights. Each tag starts at an unweighted Gauss–Newton fix of its first 0.5 s of ranges
/// from 4 or more anchors, started 1 m below the anchors' centroid (the side most tags are on), with
/// σ 0.5 m and 1 m/s. One estimate per tag every `interval` seconds.
enum TextbookEKF3 {
    static func run(_ samples: [RangeSample], tags: [String], site: Site, q: Double = 1.0, sigma: Double = 0.1,
                    interval: Double = 0.1) -> [EstimateSample] {
        var filters = Array(repeating: CVFilter3?.none, count: tags.count)
        var pending = Array(repeating: [RangeSample](), count: tags.count)
        var last = Array(repeating: Nanoseconds.min, count: tags.count)
        var out: [EstimateSample] = []
        let step = Nanoseconds(interval * 1e9), initWindow = Nanoseconds(0.5e9)
        for s in samples {
            guard var f = filters[s.tag] else {
                pending[s.tag].append(s)
                pending[s.tag].removeAll { $0.time < s.time - initWindow }
                if let p = solve(pending[s.tag], site: site) {
                    filters[s.tag] = CVFilter3(position: p, time: s.time, positionStd: 0.5, velocityStd: 1)
                    pending[s.tag] = []
                }
                continue
            }
            f.predict(to: s.time, q: q)
            let d = f.position - site.anchors[s.anchor].position
            let n = d.norm
            if n > 1e-9 { f.update(residual: s.distance - n, h: (1 / n) * d, r: sigma * sigma) }
            filters[s.tag] = f
            if last[s.tag] == .min || s.time - last[s.tag] >= step {
                last[s.tag] = s.time
                let p = f.p
                out.append(EstimateSample(site: site.id, tag: tags[s.tag], time: s.time, position: f.position,
                                          covariance: PositionCovariance(xx: p[0], xy: p[1], yy: p[7], xz: p[2],
                                                                         yz: p[8], zz: p[14])))
            }
        }
        return out
    }

    /// Unweighted Gauss–Newton in 3-D over the ranges; nil with fewer than 4 anchors or no convergence.
    static func solve(_ ranges: [RangeSample], site: Site) -> Vec3? {
        let anchors = Set(ranges.map(\.anchor))
        guard anchors.count >= 4 else { return nil }
        var c = Vec3.zero
        for a in anchors { c = c + site.anchors[a].position }
        var p = (1 / Double(anchors.count)) * c
        p.z -= 1
        for _ in 0..<30 {
            var a = [Double](), b = [Double]()
            for r in ranges {
                let d = p - site.anchors[r.anchor].position
                let n = d.norm
                guard n > 1e-9 else { continue }
                a += [d.x / n, d.y / n, d.z / n]
                b.append(r.distance - n)
            }
            guard let x = SmallLeastSquares.solve(a, rows: b.count, cols: 3, b: b) else { return nil }
            p = p + Vec3(x[0], x[1], x[2])
            if x[0] * x[0] + x[1] * x[1] + x[2] * x[2] < 1e-12 { break }
        }
        return p.isFinite ? p : nil
    }
}

/// A 3-D constant-velocity Kalman filter, `[x, y, z, vx, vy, vz]` with a row-major 6×6 covariance.
struct CVFilter3 {
    var x: [Double]
    var p: [Double]
    var time: Nanoseconds

    var position: Vec3 { Vec3(x[0], x[1], x[2]) }

    init(position: Vec3, time: Nanoseconds, positionStd: Double, velocityStd: Double) {
        x = [position.x, position.y, position.z, 0, 0, 0]
        p = [Double](repeating: 0, count: 36)
        for k in 0..<3 {
            p[k * 7] = positionStd * positionStd
            p[(k + 3) * 7] = velocityStd * velocityStd
        }
        self.time = time
    }

    /// P ← F P Fᵀ + Q with F = [I dt·I; 0 I] and the white-acceleration Q of density `q`.
    mutating func predict(to t: Nanoseconds, q: Double) {
        guard t > time else { return }
        let dt = Double(t - time) * 1e-9
        time = t
        for k in 0..<3 { x[k] += dt * x[k + 3] }
        var fp = p
        for k in 0..<3 { for c in 0..<6 { fp[k * 6 + c] += dt * p[(k + 3) * 6 + c] } }
        var n = fp
        for r in 0..<6 { for k in 0..<3 { n[r * 6 + k] += dt * fp[r * 6 + k + 3] } }
        let q11 = q * dt * dt * dt / 3, q12 = q * dt * dt / 2, q22 = q * dt
        for k in 0..<3 {
            n[k * 7] += q11; n[(k + 3) * 7] += q22
            n[k * 6 + k + 3] += q12; n[(k + 3) * 6 + k] += q12
        }
        p = n
    }

    /// One scalar update with H = [hᵀ, 0].
    mutating func update(residual nu: Double, h: Vec3, r: Double) {
        var ph = [Double](repeating: 0, count: 6)
        for i in 0..<6 { ph[i] = p[i * 6] * h.x + p[i * 6 + 1] * h.y + p[i * 6 + 2] * h.z }
        let s = h.x * ph[0] + h.y * ph[1] + h.z * ph[2] + r
        guard s > 0 else { return }
        for i in 0..<6 { x[i] += ph[i] / s * nu }
        for i in 0..<6 { for j in 0..<6 { p[i * 6 + j] -= ph[i] * ph[j] / s } }
    }
}
