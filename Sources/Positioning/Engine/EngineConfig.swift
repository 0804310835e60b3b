/// Tuning of the positioning engine. Every value has a physical meaning and a documented default.
public struct EngineConfig: Sendable, Equatable {
    /// A tag with no measurement for this long is removed (`removed ... reason="timeout"`), seconds.
    public var tagTimeout: Double = 10
    /// Minimum interval between two output lines of one tag, seconds (0: one per measurement).
    public var outputInterval: Double = 0.1
    /// Most tags one site tracks at once; events that would start another are refused
    /// (`too_many_tags`). About 3 KB of engine state per tag, so the default bounds a site at ~300 MB.
    public var maxTagsPerSite = 100_000
    /// How late a ranging line may arrive, seconds: gateways send in batches, so one tag's lines from
    /// different anchors reach the engine out of time order. A line up to this much older than its
    /// tag's filter is applied at the filter's time (the filter does not go back); an older one is
    /// refused as `late`, because the tag may have moved a long way since.
    public var maxLateness: Double = 1.0
    /// Measurements older than this are not used to (re)initialise a tag by multilateration, seconds.
    public var initWindow: Double = 1.0
    /// Anchors heard within this window count in a position's `anchors` field, seconds.
    public var anchorWindow: Double = 2.0
    /// White-acceleration spectral density for moving tags, m²/s³ per axis: about the variance of a
    /// walking person's or trolley's acceleration (1 m/s²) per second.
    public var movingAccelerationNoise: Double = 1.0
    /// The same for stationary tags: a tag at rest may still be nudged by a few millimetres.
    public var stationaryAccelerationNoise: Double = 1.0e-6
    /// 1-σ of the unknown velocity when a filter starts, or when a stationary tag starts moving, m/s.
    public var initialVelocityStd: Double = 1.5
    /// Fastest plausible tag, m/s (a forklift): a filter faster than this, or outside the site, is
    /// re-initialised by multilateration, and dropped if that fails.
    public var maxSpeed: Double = 15
    /// Positions further than this outside the site's bounds (metres; horizontally at least 10 % of the
    /// site's size) are implausible: the filter is re-initialised.
    public var boundsMargin: Double = 2
    /// Huber threshold on the normalised innovation for negative range residuals and angles.
    public var huberK: Double = 2.5
    /// Huber threshold for positive range residuals (measured longer than predicted): NLOS suspects.
    public var nlosHuberK: Double = 1.5
    /// Weight of a pair's running range excess in its variance (m² per m²); see `nlosMemory`.
    public var nlosVarianceScale: Double = 4
    /// Time constant of a pair's switching between line of sight and a blocked path, seconds: the
    /// two-hypothesis NLOS state (`PairNLOS`) expects a blockage to last about this long.
    public var nlosSwitchTime: Double = 5
    /// Prior mean and 1-σ of a blocked path's excess length, metres (a detour round a rack or a body).
    public var nlosExcessPrior: Double = 0.5
    public var nlosExcessPriorStd: Double = 0.5
    /// Random-walk 1-σ of a blocked path's excess per range, metres: it changes slowly as the tag moves.
    public var nlosExcessDrift: Double = 0.02
    /// Variance factor of a blocked path's range noise over line of sight's (multipath spreads it).
    public var nlosNoiseFactor: Double = 3
    /// Share of each new innovation in a pair's running excess (an EWMA over about 1/nlosMemory lines).
    public var nlosMemory: Double = 0.5
    /// Innovations beyond this many σ are not applied at all (counted toward divergence instead).
    public var rejectK: Double = 10
    /// Re-initialise by multilateration when the running share of innovations beyond 3 σ exceeds this:
    /// most measurements disagree with the filter, so the filter (not the measurements) is wrong.
    public var divergenceShare: Double = 0.6
    /// ... or when the running share of innovations beyond `rejectK` exceeds this.
    public var rejectedShare: Double = 0.25
    /// A stationary hint is overridden (the moving model used) while the running mean of the squared
    /// normalised innovations exceeds this: the tag moves although the hint says it is still.
    public var divergenceNIS: Double = 9
    /// ... or when this many consecutive innovations were beyond `rejectK`.
    public var divergenceRun: Int = 12

    /// Learn each anchor's range bias online from redundant measurements (`BiasLearner`).
    public var learnBias: Bool = true
    /// Number of residual rounds over which a learned bias averages (the learning time constant).
    public var biasWindow: Int = 500
    /// Each tag teaches the bias learner at most once per this interval, seconds: one round holds the
    /// residuals of the anchors heard since the previous round.
    public var biasRoundInterval: Double = 0.1
    /// ... and only after it has moved this far since its last round, metres.
    public var biasRoundDistance: Double = 0.25
    /// A round that is due but refused (too few anchors, or a geometry that cannot tell biases from
    /// position) is tried again at most this often, seconds: the anchors' fresh ranges arrive one
    /// line at a time, and testing the round on every line of the tag cost more than the rest of
    /// the bias learning.
    public var biasRetryInterval: Double = 0.05
    /// A round teaches the biases only when its weakest position direction has at least this share of
    /// the mean geometric strength (see `SiteTracker.separatesBiasFromPosition`).
    public var biasMinGeometry: Double = 0.3
    /// Residuals are clipped at this many range-σ before they teach the bias.
    public var biasClipSigmas: Double = 2.0
    /// A learned bias never exceeds this, metres.
    public var maxLearnedBias: Double = 1.0
    /// A range teaches the bias learner only while its pair's probability of a blocked path
    /// (`PairNLOS`) is below this: a blocked path's excess is not the anchor's bias, and an anchor
    /// often blocked from many tags would otherwise learn its average blockage as a bias.
    public var biasMaxBlockedProbability: Double = 0.2
    /// Largest position σ (metres) of a tag whose residuals may teach the biases.
    public var biasMaxPositionStd: Double = 0.5

    /// Correlation time of one anchor-tag pair's range errors, seconds: measurements of a pair closer
    /// together than this have their variance inflated by `correlationTime / interval`.
    public var correlationTime: Double = 0.2

    /// On a 3-D site with a `tagHeightRange`, the σ (metres) of the soft constraint that pulls a tag's
    /// height back into the range after each line that leaves it above or below (see
    /// `TrackerContext.holdHeight`). Small enough to stop a filter wandering off in height, where the
    /// anchors see it worst, wide enough not to bend the track of a tag truly at the range's edge.
    public var tagHeightRangeStd: Double = 0.2

    /// Record every filter step so that `SiteTracker.smoothedEstimates()` can smooth the run
    /// (offline replay only: about 0.4 KB per ranging line).
    public var recordForSmoothing: Bool = false

    /// Zone hysteresis, in position σ: a tag enters a zone when it is inside the polygon by more than
    /// `max(zoneSigmaK·σ, zoneMargin)` metres, and leaves it when outside by more than the same.
    public var zoneSigmaK: Double = 2
    /// The smallest zone hysteresis band, metres (see `zoneSigmaK`).
    public var zoneMargin: Double = 0.1
    /// Consecutive estimates beyond the band needed to enter or leave a zone (1: the first one).
    public var zoneConfirmations: Int = 3

    public init() {}
}
