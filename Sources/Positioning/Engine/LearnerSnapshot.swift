/// What a site's tracker has learned that outlives its tags, as a plain value: the anchors' learned
/// range biases (and angle offsets) with the information behind them, and each anchor's health. A
/// service that hands a site to another instance saves it and the new owner restores it
/// (`SiteTracker.learnersSnapshot()`, `SiteTracker.restore(learners:)`), so the biases need not be
/// learned again. The tags' own tracks are not part of it: they are placed again from their next lines.
///
/// Every array is indexed as in `BiasLearner` (slot `anchor * 2 + technology`, then angle slots);
/// `info` is the n × n information matrix, row-major.
public struct LearnerSnapshot: Sendable, Equatable, Codable {
    /// The number of anchors of the site it was taken from; a snapshot restores only onto a site with
    /// as many anchors and the same slot layout.
    public var anchorCount: Int
    /// The learner's slot count (`2 × anchors`, or `4 × anchors` with angle slots).
    public var slots: Int
    public var estimate: [Double]
    public var bias: [Double]
    public var covariance: [Double]
    public var samples: [Int]
    public var info: [Double]
    public var vec: [Double]
    public var variance: [Double]
    public var roundsSinceSolve: Int
    public var weightedSquares: Double
    public var residualDOF: Double
    /// Per anchor, in site order.
    public var anchorHealth: [AnchorHealth]

    /// True when its arrays have the sizes its counts say (a snapshot read from storage is checked so).
    public var isConsistent: Bool {
        let n = slots
        return n >= 0 && estimate.count == n && bias.count == n && samples.count == n && vec.count == n
            && variance.count == n && info.count == n * n && (covariance.isEmpty || covariance.count == n * n)
            && anchorHealth.count == anchorCount
    }
}

extension BiasLearner {
    /// The learner's mutable state into `s` (the counts and health are the caller's).
    func save(into s: inout LearnerSnapshot) {
        s.slots = n
        s.estimate = estimate; s.bias = bias; s.covariance = covariance; s.samples = samples
        s.info = info; s.vec = vec; s.variance = variance
        s.roundsSinceSolve = roundsSinceSolve; s.weightedSquares = weightedSquares; s.residualDOF = residualDOF
    }
}

extension SiteTracker {
    /// The learned biases and the anchors' health, as a value to store.
    public func learnersSnapshot() -> LearnerSnapshot {
        var s = LearnerSnapshot(anchorCount: site.anchors.count, slots: 0, estimate: [], bias: [], covariance: [],
                                samples: [], info: [], vec: [], variance: [], roundsSinceSolve: 0, weightedSquares: 0,
                                residualDOF: 0, anchorHealth: learners.anchorHealth)
        learners.bias.save(into: &s)
        return s
    }

    /// Puts a snapshot's biases and anchor health in place of the tracker's.
    /// - Returns: false (and changes nothing) when it does not fit this site: another anchor count,
    ///   another slot layout, or arrays of the wrong size.
    @discardableResult
    public mutating func restore(learners s: LearnerSnapshot) -> Bool {
        guard s.isConsistent, s.anchorCount == site.anchors.count, s.slots == learners.bias.n else { return false }
        learners.bias.load(s)
        learners.anchorHealth = s.anchorHealth
        return true
    }
}

extension Engine {
    /// The learners of one site (nil for an unknown site).
    public func learnersSnapshot(site: String) -> LearnerSnapshot? { tracker(site)?.learnersSnapshot() }
}
