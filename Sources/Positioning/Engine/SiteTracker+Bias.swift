internal import Numerics

extension SiteTracker {
    /// Hands one tag's latest range residuals to the bias learner, at most once per
    /// `biasRoundInterval`, as one round (see `BiasLearner`).
    mutating func teachBiases(_ track: inout TagTrack, time: Nanoseconds) {
        guard learnedBias.enabled, let f = track.filter else { return }
        let interval = Nanoseconds(config.biasRoundInterval * 1e9)
        guard track.lastBiasRound == .min || time - track.lastBiasRound >= interval else { return }
        let since = time - 2 * interval
        let p = f.position
        // Errors that depend on where the tag is (multipath) repeat while it stays put: a round teaches
        // only once the tag has moved `biasRoundDistance` since its last one, so that the information
        // grows with the places seen, not with the time spent in one.
        guard (p - track.lastBiasPosition).norm >= config.biasRoundDistance else { return }
        var rows: [BiasLearner.Row] = []
        rows.reserveCapacity(site.anchors.count)
        for a in site.anchors.indices where track.lastHeard[a] >= since && !track.ranges[a].isNaN {
            let anchor = site.anchors[a]
            var g = p - anchor.position
            let n = g.norm
            guard n > 1e-3 else { continue }
            let residual = Double(track.ranges[a]) - n
            g = (1 / n) * g
            if site.dimensions == 2 { g.z = 0 }
            let tech = anchor.technologies.first ?? .uwb
            let std = anchor.rangeStd ?? tech.defaultRangeStd
            rows.append(BiasLearner.Row(slot: BiasLearner.slot(anchor: a, technology: tech),
                                        y: residual, g: g, w: 1 / (std * std)))
        }
        guard rows.count >= site.dimensions + 2, separatesBiasFromPosition(rows) else { return }
        track.lastBiasRound = time
        track.lastBiasPosition = p
        learnedBias.learn(rows, dimensions: site.dimensions)
        for a in site.anchors.indices { track.ranges[a] = .nan }
    }

    /// True when the round's geometry tells biases and position apart: every direction of the position
    /// is seen by the anchors with at least `biasMinGeometry` of the mean strength (smallest eigenvalue of
    /// `Σ g·gᵀ` over `k / d`). Where one direction is weak (z under a ceiling of anchors), a bias
    /// pattern and a position error along it look alike, and learning from it would move the tag.
    func separatesBiasFromPosition(_ rows: [BiasLearner.Row]) -> Bool {
        let d = site.dimensions
        var m = [Double](repeating: 0, count: d * d)
        for r in rows { for i in 0..<d { for j in 0..<d { m[i * d + j] += r.g[i] * r.g[j] } } }
        guard let eig = LAPACK.symmetricEigen(m, n: d), let smallest = eig.values.first else { return false }
        return smallest >= config.biasMinGeometry * Double(rows.count) / Double(d)
    }
}
