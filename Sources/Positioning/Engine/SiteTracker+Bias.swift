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
        var rows: [BiasLearner.Row] = []
        rows.reserveCapacity(site.anchors.count)
        for a in anchorPositions.indices where track.lastHeard[a] >= since && !track.ranges[a].isNaN {
            var g = p - anchorPositions[a]
            let n = g.norm
            guard n > 1e-3 else { continue }
            let residual = Double(track.ranges[a]) - n
            g = (1 / n) * g
            if site.dimensions == 2 { g.z = 0 }
            let std = anchorRangeStd[a]
            rows.append(BiasLearner.Row(slot: BiasLearner.slot(anchor: a, technology: anchorTechnology[a]),
                                        y: residual, g: g, w: 1 / (std * std)))
        }
        guard rows.count >= site.dimensions + 2, separatesBiasFromPosition(rows) else { return }
        track.lastBiasRound = time
        track.lastBiasPosition = p
        learner.learn(rows, dimensions: site.dimensions)
        for a in anchorPositions.indices { track.ranges[a] = .nan }
    }

    /// True when the round's geometry tells biases and position apart: every direction of the position
    /// is seen by the anchors with at least `biasMinGeometry` of the mean strength (smallest eigenvalue of
    /// `Σ g·gᵀ` over `k / d`). Where one direction is weak (z under a ceiling of anchors), a bias
    /// pattern and a position error along it look alike, and learning from it would move the tag.
    func separatesBiasFromPosition(_ rows: [BiasLearner.Row]) -> Bool {
        let d = site.dimensions
        var m = InlineArray<9, Double>(repeating: 0)
        for r in rows { for i in 0..<d { for j in 0..<d { m[i * 3 + j] += r.g[i] * r.g[j] } } }
        return Self.smallestEigenvalue(m, d) >= config.biasMinGeometry * Double(rows.count) / Double(d)
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
