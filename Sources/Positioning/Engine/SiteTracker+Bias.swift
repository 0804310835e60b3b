internal import Numerics

extension TrackerContext {
    /// Hands one tag's latest range residuals to the bias learner, at most once per
    /// `biasRoundInterval`, as one round (see `BiasLearner`).
    func teachBiases(_ track: inout TagTrack, time: Nanoseconds, learner: inout BiasLearner) {
        let interval = Nanoseconds(config.biasRoundInterval * 1e9)
        guard learner.enabled, track.lastBiasRound == .min || time - track.lastBiasRound >= interval,
              let p = track.filter?.position else { return }
        let since = time - 2 * interval
        // Errors that depend on where the tag is (multipath) repeat while it stays put: a round teaches
        // only once the tag has moved `biasRoundDistance` since its last one, so that the information
        // grows with the places seen, not with the time spent in one.
        guard (p - track.lastBiasPosition).norm >= config.biasRoundDistance else { return }
        // Most candidate rounds fail the geometry test, so it runs first, without allocating: the
        // rows are built only for a round that will teach.
        let d = site.dimensions
        var geometry = GeometryMatrix()
        var count = 0
        for a in anchorPositions.indices where track.lastHeard[a] >= since && !track.ranges[a].isNaN {
            guard let g = rangeGradient(at: p, anchor: a) else { continue }
            geometry.add(g)
            count += 1
        }
        guard count >= d + 2, geometry.separates(count: count, dimensions: d, minShare: config.biasMinGeometry)
        else { return }
        var rows: [BiasLearner.Row] = []
        rows.reserveCapacity(count)
        for a in anchorPositions.indices where track.lastHeard[a] >= since && !track.ranges[a].isNaN {
            guard let g = rangeGradient(at: p, anchor: a) else { continue }
            let std = anchorRangeStd[a]
            rows.append(BiasLearner.Row(slot: BiasLearner.slot(anchor: a, technology: anchorTechnology[a]),
                                        y: Double(track.ranges[a]) - (p - anchorPositions[a]).norm, g: g,
                                        w: 1 / (std * std)))
        }
        track.lastBiasRound = time
        track.lastBiasPosition = p
        learner.learn(rows, dimensions: d)
        for a in anchorPositions.indices { track.ranges[a] = .nan }
    }

    /// The unit range gradient at `p` for anchor `a` (z zeroed on 2-D sites), or nil on the anchor.
    @inline(__always)
    private func rangeGradient(at p: Vec3, anchor a: Int) -> Vec3? {
        var g = p - anchorPositions[a]
        let n = g.norm
        guard n > 1e-3 else { return nil }
        g = (1 / n) * g
        if site.dimensions == 2 { g.z = 0 }
        return g
    }

    /// True when the round's geometry tells biases and position apart: every direction of the position
    /// is seen by the anchors with at least `biasMinGeometry` of the mean strength (smallest eigenvalue of
    /// `Σ g·gᵀ` over `k / d`). Where one direction is weak (z under a ceiling of anchors), a bias
    /// pattern and a position error along it look alike, and learning from it would move the tag.
    func separatesBiasFromPosition(_ rows: [BiasLearner.Row]) -> Bool {
        var geometry = GeometryMatrix()
        for r in rows { geometry.add(r.g) }
        return geometry.separates(count: rows.count, dimensions: site.dimensions, minShare: config.biasMinGeometry)
    }

    /// The smallest eigenvalue of a symmetric 2×2 or 3×3 matrix (stored 3×3 row-major), in closed form
    /// (the trigonometric solution of the characteristic cubic for 3×3).
    static func smallestEigenvalue(_ m: InlineArray<9, Double>, _ d: Int) -> Double {
        if d == 2 {
            let mean = 0.5 * (m[0] + m[4])
            let half = 0.5 * (m[0] - m[4])
            return mean - (half * half + m[1] * m[1]).squareRoot()
        }
        let p1 = m[1] * m[1] + m[2] * m[2] + m[5] * m[5]
        let q = (m[0] + m[4] + m[8]) / 3
        let p2 = (m[0] - q) * (m[0] - q) + (m[4] - q) * (m[4] - q) + (m[8] - q) * (m[8] - q) + 2 * p1
        let p = (p2 / 6).squareRoot()
        guard p > 1e-15 else { return q }
        let b0 = (m[0] - q) / p, b4 = (m[4] - q) / p, b8 = (m[8] - q) / p
        let b1 = m[1] / p, b2 = m[2] / p, b5 = m[5] / p
        let det = b0 * (b4 * b8 - b5 * b5) - b1 * (b1 * b8 - b5 * b2) + b2 * (b1 * b5 - b4 * b2)
        let phi = acos(max(-1, min(1, det / 2))) / 3
        return q + 2 * p * cos(phi + 2 * .pi / 3)
    }
}

/// `Σ g·gᵀ` over a round's range gradients, symmetric, accumulated term by term in the gradients'
/// order (each product once: `gᵢ·gⱼ` and `gⱼ·gᵢ` are the same number).
struct GeometryMatrix {
    var xx = 0.0, xy = 0.0, xz = 0.0, yy = 0.0, yz = 0.0, zz = 0.0

    @inline(__always)
    mutating func add(_ g: Vec3) {
        xx += g.x * g.x; xy += g.x * g.y; xz += g.x * g.z
        yy += g.y * g.y; yz += g.y * g.z; zz += g.z * g.z
    }

    /// The matrix, 3×3 row-major.
    var matrix: InlineArray<9, Double> {
        var m = InlineArray<9, Double>(repeating: 0)
        m[0] = xx; m[1] = xy; m[2] = xz
        m[3] = xy; m[4] = yy; m[5] = yz
        m[6] = xz; m[7] = yz; m[8] = zz
        return m
    }

    /// The test of `TrackerContext.separatesBiasFromPosition` for `count` gradients.
    func separates(count: Int, dimensions d: Int, minShare: Double) -> Bool {
        TrackerContext.smallestEigenvalue(matrix, d) >= minShare * Double(count) / Double(d)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
