internal import Numerics

/// The state of one anchor's ranging session with one tag.
enum PairSession: UInt8, Sendable {
    case idle, active, suspended, ended
}

/// Everything the engine keeps about one tag: its filter (nil until placed), motion hint, recent
/// observations, and its sessions with each anchor.
struct TagTrack: Sendable {
    // The stored properties are in the order a ranging line reads and writes them: the filter, then
    // the scalars every line updates, then the ring of recent observations, and what only bias rounds
    // and zone changes touch last. A track is about 1.1 KB and most of the 2,000 in the benchmark
    // live outside the core's cache, so every cache line a line touches counts.
    /// The filter while `isPlaced`; its value means nothing otherwise. Stored beside a flag rather than
    /// as a `TagFilter?`: each test of such an optional for nil was a call (its tag byte lies past
    /// the 352 bytes), about ten on every line. The engine reads and changes it in place, after
    /// testing `isPlaced`.
    var placedFilter = TagFilter.unplaced
    /// True once the tag is placed, until its filter is dropped.
    var isPlaced = false
    var motion: MotionState = .unknown
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
    var lastSeen: Nanoseconds
    var lastOutput: Nanoseconds = .min
    /// Seconds between the current line and the previous one of the same pair (0 for its first).
    var pairInterval: Double = 0
    /// What the track keeps per anchor, indexed like the site's anchors: one array, so that a line
    /// touches one element (one allocation, one or two cache lines) rather than five arrays.
    var anchors: [AnchorState]
    /// When and where the tag last taught the bias learner.
    var lastBiasRound: Nanoseconds = .min
    /// When a due round was last tried (taught or refused): a refused one is tried again after
    /// `biasRetryInterval`.
    var lastBiasAttempt: Nanoseconds = .min
    var lastBiasPosition = Vec3(.infinity, .infinity, .infinity)
    /// When and where the tag last taught the learner's angle offsets (`teachAngleBiases`).
    var lastAngleRound: Nanoseconds = .min
    var lastAnglePosition = Vec3(.infinity, .infinity, .infinity)
    var recent = RecentObservations()
    /// Where the tag last failed the bias round's geometry test, while that failure still decides.
    var geometryFailure: GeometryFailure?
    /// Per zone of the site (same order), whether the tag is inside it (with hysteresis); empty until
    /// the first position.
    var zonesInside: [ZoneMembership] = []
    /// On a site whose anchors lie in one plane: true while the filter's mirror image through that
    /// plane is as possible as the filter itself (see `TrackerContext+Mirror.swift`).
    var mirrorUndecided = false
    /// While undecided: the log-likelihood ratio of the filter's side over its image's, summed over
    /// the checks since the tag last came near the plane (anchors nearly, not exactly, in one plane
    /// fit a point and its image differently).
    var mirrorEvidence = 0.0
    /// Lines until the next check of `mirrorEvidence`.
    var mirrorCheckDue = 0
    /// Which side of the anchors' plane the filter was on after the previous line (above: along the
    /// plane's normal).
    var mirrorSideAbove = false

    /// The filter, nil until the tag is placed (`placedFilter` when `isPlaced`). Reading it copies the
    /// filter: the engine's hot paths use `isPlaced` and `placedFilter`.
    var filter: TagFilter? {
        get { isPlaced ? placedFilter : nil }
        set {
            if let newValue { placedFilter = newValue }
            isPlaced = newValue != nil
        }
    }

    init(anchorCount: Int, time: Nanoseconds, config: EngineConfig = EngineConfig()) {
        anchors = Array(repeating: AnchorState(config: config), count: anchorCount)
        lastSeen = time
    }

    /// Number of distinct anchors in `anchors` heard since `since`: static, so that a caller holding the
    /// track `inout` passes the array (a reference) rather than a copy of the whole track.
    @inline(__always)
    static func anchorsHeard(_ anchors: [AnchorState], since: Nanoseconds) -> Int {
        anchors.withUnsafeBufferPointer { anchors in
            var n = 0
            for a in anchors where a.lastHeard >= since { n += 1 }
            return n
        }
    }

    /// True while some anchor's session with the tag is live or suspended (not ended).
    /// The filter's innovation of `o` (see `TagFilter.innovation`), nil without a filter. Mutating
    /// only so that the filter is read in place: read as a value, a `TagFilter?` is a 352-byte copy.
    mutating func innovation(_ o: Observation) -> (residual: Double, variance: Double, gradient: Vec3)? {
        isPlaced ? placedFilter.innovationInPlace(o) : nil
    }

    var hasLiveSession: Bool { anchors.contains { $0.session == .active || $0.session == .suspended } }
    /// True while some session is suspended and none active: the tag is paused, not lost.
    var isSuspended: Bool {
        anchors.contains { $0.session == .suspended } && !anchors.contains { $0.session == .active }
    }
}

/// What a track keeps about one anchor (32 bytes).
struct AnchorState: Sendable {
    /// Last time the anchor measured the tag (`.min`: never).
    var lastHeard: Nanoseconds = .min
    /// The latest accepted range (metres, site-file bias removed, learned bias not), for bias
    /// learning; NaN once used.
    var range: Float = .nan
    /// A running mean (metres) of the range innovations: a pair whose ranges keep coming out longer
    /// than predicted is behind something (NLOS), and its ranges are trusted less.
    var excess: Float = 0
    /// The latest accepted azimuth and elevation (radians, anchor frame, learned offset not removed),
    /// for learning the angle offsets; NaN once used.
    var azimuth: Float = .nan, elevation: Float = .nan
    /// The pair's NLOS hypotheses (see `PairNLOS`).
    var nlos: PairNLOS
    /// The anchor's ranging session with the tag.
    var session: PairSession = .idle

    init(config: EngineConfig) { nlos = PairNLOS(config: config) }

    /// Marks a line of the pair at `time`: its session is active. (One change of the element, so that
    /// a track's `anchors[a].heard(at:)` tests the array's buffer for uniqueness once.)
    @inline(__always)
    mutating func heard(at time: Nanoseconds) {
        lastHeard = time
        session = .active
    }
}
