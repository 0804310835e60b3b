/// What one anchor's ranging lines have done in the engine: how many came, when the last one did, and
/// how its ranges agreed with the tags' filters. The live service reports it per anchor (`#anchors`,
/// `sextant status --anchors`) and warns when an anchor falls silent.
///
/// A healthy anchor has few rejected or blocked ranges and a normalised innovation RMS of 1 or less
/// (less when its lines come fast, as their σ is inflated for correlated errors: 0.16–0.22 on LIAS).
/// An anchor that was moved, or whose map position is wrong, shows several times the others' RMS and
/// many rejections while the others do not; one behind a rack shows many blocked ranges.
public struct AnchorHealth: Sendable, Equatable, Codable {
    /// Ranging lines from the anchor that the engine accepted.
    public var lines = 0
    /// The time of the first of them (`.max`: none yet).
    public var firstHeard: Nanoseconds = .max
    /// The time of the latest of them (`.min`: none yet).
    public var lastHeard: Nanoseconds = .min
    /// Ranges tested against a placed tag's filter.
    public var ranges = 0
    /// Of those, the ones so far from the filter's prediction that they were not applied (beyond
    /// `EngineConfig.rejectK` σ).
    public var rejected = 0
    /// Of those, the ones the pair's NLOS hypotheses took for a blocked path (probability ≥ 0.5).
    public var blocked = 0
    /// The sum of the ranges' squared normalised innovations, each capped at `squaredInnovationCap`.
    public var squaredInnovations = 0.0
    /// The cap on one range's squared normalised innovation (σ²) in `squaredInnovations`.
    static let squaredInnovationCap = 100.0

    public init() {}

    /// The RMS of the ranges' normalised innovations: 1 or less when the anchor agrees with the
    /// filters as its σ says; nil before any range was tested.
    public var innovationRMS: Double? { ranges > 0 ? (squaredInnovations / Double(ranges)).squareRoot() : nil }

    /// Counts one accepted line measured at `time`.
    @inline(__always)
    mutating func heard(at time: Nanoseconds) {
        lines += 1
        firstHeard = min(firstHeard, time)
        lastHeard = max(lastHeard, time)
    }

    /// Counts one range tested against a filter.
    @inline(__always)
    mutating func tested(normalisedInnovation e: Double, rejected isRejected: Bool, blocked isBlocked: Bool) {
        ranges += 1
        squaredInnovations += min(e * e, Self.squaredInnovationCap)
        if isRejected { rejected += 1 }
        if isBlocked { blocked += 1 }
    }
}

/// One anchor's health with its identity and its learned bias, as `SiteTracker.anchorReports` gives it.
public struct AnchorReport: Sendable, Equatable {
    public var site: String
    public var anchor: String
    public var health: AnchorHealth
    /// The learned range bias applied to its ranges (metres, its first technology; 0 when none).
    public var learnedBias: Double

    public init(site: String, anchor: String, health: AnchorHealth, learnedBias: Double) {
        self.site = site; self.anchor = anchor; self.health = health; self.learnedBias = learnedBias
    }
}
