internal import Numerics

/// The state of one anchor's ranging session with one tag.
enum PairSession: UInt8, Sendable {
    case idle, active, suspended, ended
}

/// Everything the engine keeps about one tag: its filter (nil until placed), motion hint, recent
/// observations, and its sessions with each anchor.
struct TagTrack: Sendable {
    var filter: TagFilter?
    var motion: MotionState = .unknown
    var recent = RecentObservations()
    /// Last time each anchor measured the tag (`.min`: never), indexed like the site's anchors.
    var lastHeard: [Nanoseconds]
    var pairs: [PairSession]
    /// The latest accepted range of each anchor (metres, site-file bias removed, learned bias not),
    /// for bias learning; NaN once used.
    var ranges: [Float]
    /// Per anchor, a running mean (metres) of the range innovations: a pair whose ranges keep coming
    /// out longer than predicted is behind something (NLOS), and its ranges are trusted less.
    var excess: [Float]
    /// Per anchor, the pair's NLOS hypotheses (see `PairNLOS`).
    var nlos: [PairNLOS]
    /// Seconds between the current line and the previous one of the same pair (0 for its first).
    var pairInterval: Double = 0
    /// When and where the tag last taught the bias learner.
    var lastBiasRound: Nanoseconds = .min
    /// When a due round was last tried (taught or refused): a refused one is tried again after
    /// `biasRetryInterval`.
    var lastBiasAttempt: Nanoseconds = .min
    var lastBiasPosition = Vec3(.infinity, .infinity, .infinity)
    /// Where the tag last failed the bias round's geometry test, while that failure still decides.
    var geometryFailure: GeometryFailure?
    var lastSeen: Nanoseconds
    var lastOutput: Nanoseconds = .min
    /// Running mean of squared normalised innovations (capped), for divergence detection.
    var nis: Double = 1
    /// Running share of innovations beyond 3 σ: when most measurements disagree with the filter, the
    /// filter is wrong (when a few do, those measurements are).
    var disagreement: Double = 0
    /// Running share of innovations beyond `rejectK`: anchors the filter ignores outright. A few
    /// such anchors can mean the filter sits on a wrong solution that the others happen to fit.
    var rejectShare: Double = 0
    /// Consecutive innovations beyond the rejection threshold.
    var rejectRun = 0
    /// Observations applied since the filter was (re)initialised.
    var updatesSinceInit = 0
    /// Per zone of the site (same order), whether the tag is inside it (with hysteresis); empty until
    /// the first position.
    var zonesInside: [ZoneMembership] = []

    init(anchorCount: Int, time: Nanoseconds, config: EngineConfig = EngineConfig()) {
        lastHeard = Array(repeating: .min, count: anchorCount)
        pairs = Array(repeating: .idle, count: anchorCount)
        ranges = Array(repeating: .nan, count: anchorCount)
        excess = Array(repeating: 0, count: anchorCount)
        nlos = Array(repeating: PairNLOS(config: config), count: anchorCount)
        lastSeen = time
    }

    /// Number of distinct anchors heard since `since`.
    func anchorsHeard(since: Nanoseconds) -> Int { Self.anchorsHeard(lastHeard, since: since) }

    /// `anchorsHeard(since:)` of a track's `lastHeard`: static, so that a caller holding the track
    /// `inout` passes the array (a reference) rather than a copy of the whole track.
    @inline(__always)
    static func anchorsHeard(_ lastHeard: [Nanoseconds], since: Nanoseconds) -> Int {
        lastHeard.withUnsafeBufferPointer { heard in
            var n = 0
            for t in heard where t >= since { n += 1 }
            return n
        }
    }

    /// True while some anchor's session with the tag is live or suspended (not ended).
    /// The filter's innovation of `o` (see `TagFilter.innovation`), nil without a filter. Mutating
    /// only so that the filter is read in place: read as a value, a `TagFilter?` is a 352-byte copy.
    mutating func innovation(_ o: Observation) -> (residual: Double, variance: Double, gradient: Vec3)? {
        filter?.innovationInPlace(o)
    }

    var hasLiveSession: Bool { pairs.contains { $0 == .active || $0 == .suspended } }
    /// True while some session is suspended and none active: the tag is paused, not lost.
    var isSuspended: Bool { pairs.contains(.suspended) && !pairs.contains(.active) }
}
