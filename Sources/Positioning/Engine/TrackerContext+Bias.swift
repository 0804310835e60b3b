internal import Numerics

extension TrackerContext {
    /// Hands one tag's latest range residuals to the bias learner, at most once per
    /// `biasRoundInterval`, as one round (see `BiasLearner`).
    func teachBiases(_ track: inout TagTrack, time: Nanoseconds, learner: inout BiasLearner) {
        // A due round that was refused (see below) is tried again after `biasRetryInterval`, not on
        // every line: the anchors' fresh ranges arrive a line at a time. (The cheapest test, and the
        // one that ends most calls, comes first; the order of these tests changes nothing else.)
        guard learner.enabled, isRoundDue(last: track.lastBiasRound, time: time),
              track.lastBiasAttempt == .min || time.saturatingSubtract(track.lastBiasAttempt) >= biasRetryInterval,
              track.isPlaced, case let p = track.placedFilter.position else { return }
        let since = roundWindowStart(time)
        // Errors that depend on where the tag is (multipath) repeat while it stays put: a round teaches
        // only once the tag has moved `biasRoundDistance` since its last one, so that the information
        // grows with the places seen, not with the time spent in one.
        guard (p - track.lastBiasPosition).norm >= config.biasRoundDistance else { return }
        track.lastBiasAttempt = time
        // Biases are learned only from tags heard by more anchors than the position needs (redundant
        // within `anchorWindow`). The same pass over the anchors finds the ones the round would use.
        let d = site.dimensions
        let (heard, mask) = anchorCensus(track.anchors, window: time.saturatingSubtract(anchorWindow), since: since)
        guard heard >= d + 2 else { return }
        // Most candidate rounds fail the geometry test, so it runs first, without allocating: the
        // rows are built only for a round that will teach. A tag that failed it near here, with the
        // same anchors, fails it again (see `GeometryFailure`) and is not tested.
        if let failure = track.geometryFailure, let mask, failure.holds(at: p, anchors: mask) { return }
        var geometry = GeometryMatrix()
        var count = 0
        var sensitivity = 0.0, nearest = Double.infinity
        forEachEligible(mask, track.anchors, since: since) { a in
            guard let (g, n) = rangeGradient(at: p, anchor: a) else { return }
            geometry.add(g)
            count += 1
            sensitivity += 1 / n
            nearest = min(nearest, n)
        }
        guard count >= d + 2 else { return }
        let threshold = config.biasMinGeometry * Double(count) / Double(d)
        let smallest = TrackerContext.smallestEigenvalue(geometry.matrix, d)
        guard smallest >= threshold else {
            // Only where every eligible anchor gave a gradient: the mask then names them all.
            if let mask, mask.nonzeroBitCount == count {
                track.geometryFailure = GeometryFailure(position: p, anchors: mask, sensitivity: sensitivity,
                                                        nearest: nearest, slack: threshold - smallest, count: count)
            }
            return
        }
        track.geometryFailure = nil
        var rows: [BiasLearner.Row] = []
        rows.reserveCapacity(count)
        let anchors = track.anchors
        forEachEligible(mask, anchors, since: since) { a in
            guard let (g, _) = rangeGradient(at: p, anchor: a) else { return }
            let std = anchorRangeStd[a]
            rows.append(BiasLearner.Row(slot: BiasLearner.slot(anchor: a, technology: anchorTechnology[a]),
                                        y: Double(anchors[a].range) - (p - anchorPositions[a]).norm, g: g,
                                        w: 1 / (std * std)))
        }
        track.lastBiasRound = time
        track.lastBiasPosition = p
        learner.learn(rows, dimensions: d)
        track.anchors.withUnsafeMutableBufferPointer { anchors in for a in anchors.indices { anchors[a].range = .nan } }
    }

    /// True when a tag's round last taught at `last` (`.min`: never) is due again at `time`: one
    /// `biasRoundInterval` later.
    @inline(__always)
    func isRoundDue(last: Nanoseconds, time: Nanoseconds) -> Bool {
        last == .min || time.saturatingSubtract(last) >= biasRoundInterval
    }

    /// The oldest line a round at `time` uses: two `biasRoundInterval`s before it.
    @inline(__always)
    func roundWindowStart(_ time: Nanoseconds) -> Nanoseconds {
        time.saturatingSubtract(biasRoundInterval).saturatingSubtract(biasRoundInterval)
    }

    /// Nearer an anchor than this (metres), a tag's range gradient is not used: its direction is noise.
    static let minGradientDistance = 1e-3

    /// The unit range gradient at `p` for anchor `a` (z zeroed on 2-D sites) and the distance (m), or
    /// nil within `minGradientDistance` of the anchor.
    @inline(__always)
    func rangeGradient(at p: Vec3, anchor a: Int) -> (Vec3, Double)? {
        var g = p - anchorPositions[a]
        let n = g.norm
        guard n > Self.minGradientDistance else { return nil }
        g = (1 / n) * g
        if site.dimensions == 2 { g.z = 0 }
        return (g, n)
    }

    /// Calls `body` with each anchor a bias round would use (heard since `since`, with a range not yet
    /// taught), in ascending order: from the bits of `mask` (`anchorCensus`) when there is one,
    /// which names exactly those anchors, else by testing every anchor.
    @inline(__always)
    private func forEachEligible(_ mask: UInt64?, _ anchors: [AnchorState], since: Nanoseconds,
                                 _ body: (Int) -> Void) {
        if var bits = mask {
            while bits != 0 {
                body(bits.trailingZeroBitCount)
                bits &= bits &- 1
            }
        } else {
            for a in anchorPositions.indices where anchors[a].lastHeard >= since && !anchors[a].range.isNaN { body(a) }
        }
    }

    /// In one pass over the anchors: how many were heard since `window`, and the anchors a bias round
    /// would use (heard since `since`, with a range not yet taught) as bits of a mask, nil on a site of
    /// more than 64 anchors.
    @inline(__always)
    private func anchorCensus(_ anchors: [AnchorState], window: Nanoseconds, since: Nanoseconds)
        -> (heard: Int, eligible: UInt64?) {
        let n = anchorPositions.count
        guard n <= 64, anchors.count >= n else { return (TagTrack.anchorsHeard(anchors, since: window), nil) }
        return anchors.withUnsafeBufferPointer { anchors in
            var count = 0
            var mask: UInt64 = 0
            for a in 0..<n {
                let t = anchors[a].lastHeard, r = anchors[a].range
                if t >= window { count &+= 1 }
                // `r == r` is `!r.isNaN` in one comparison (`isNaN` tests the bits).
                if t >= since, r == r { mask |= 1 << UInt64(a) }
            }
            return (count, mask)
        }
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

    /// The spread of a 3×3 matrix's eigenvalues (`p` of `smallestEigenvalue`, the matrix's units) below
    /// which they count as equal.
    static let equalEigenvalues = 1e-15

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
        // All three eigenvalues equal (to rounding): the formula below would divide by zero.
        guard p > Self.equalEigenvalues else { return q }
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
