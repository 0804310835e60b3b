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
        var rows: [BiasLearner.Row] = []
        rows.reserveCapacity(site.anchors.count)
        for a in site.anchors.indices where track.lastHeard[a] >= since && !track.residuals[a].isNaN {
            let anchor = site.anchors[a]
            var g = p - anchor.position
            let n = g.norm
            guard n > 1e-3 else { continue }
            g = (1 / n) * g
            if site.dimensions == 2 { g.z = 0 }
            let tech = anchor.technologies.first ?? .uwb
            let std = anchor.rangeStd ?? tech.defaultRangeStd
            rows.append(BiasLearner.Row(slot: BiasLearner.slot(anchor: a, technology: tech),
                                        y: Double(track.residuals[a]), g: g, w: 1 / (std * std)))
        }
        guard rows.count >= site.dimensions + 2 else { return }
        track.lastBiasRound = time
        learnedBias.learn(rows, dimensions: site.dimensions)
        for a in site.anchors.indices { track.residuals[a] = .nan }
    }
}
