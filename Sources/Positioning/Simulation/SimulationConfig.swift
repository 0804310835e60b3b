/// Everything that shapes a simulated run besides the site. Times in seconds, distances in metres,
/// probabilities in [0, 1]; every field has a documented default.
public struct SimulationConfig: Sendable, Equatable {
    /// Number of tags walking the site.
    public var tags: Int
    /// Length of the run in seconds; events and truth lie in `[startTime, startTime + duration)`.
    public var duration: Double
    /// The seed: the same seed (and config and site) gives identical output.
    public var seed: UInt64
    /// Probability that a pair's NLOS episode (1–3 s, see `nlosEpisode`) is non-line-of-sight.
    /// In the long run this is also the share of ranges that are NLOS.
    public var nlosProbability: Double
    /// Probability that one range is a gross outlier (see `outlierMagnitude`).
    public var outlierProbability: Double

    /// Ranging rate of every anchor-tag pair in Hz (default 5).
    public var rangingRate: Double = 5
    /// Jitter of each ranging interval as a fraction of the period (default 0.1: ±10 %).
    public var rangingJitter: Double = 0.1
    /// Ground-truth sample rate per tag in Hz (default 10).
    public var truthRate: Double = 10
    /// Time of the first event, Unix nanoseconds (default 1 700 000 000 s).
    public var startTime: Nanoseconds = 1_700_000_000_000_000_000
    /// Maximum range per technology in metres; farther pairs do not range (default UWB 30, CS 20).
    public var maxRange: [Technology: Double] = [.uwb: 30, .cs: 20]
    /// Multiplier on all range and angle noise (default 1; 0 gives noise-free measurements).
    public var noiseScale: Double = 1
    /// Resolution of the reported distances, metres, as gateways report them (0: full precision).
    public var rangeResolution: Double = 0.001
    /// Resolution of the reported angles, radians (0: full precision).
    public var angleResolution: Double = 0.0001

    /// Duration of one NLOS/LOS episode of a pair, seconds (default 1–3).
    public var nlosEpisode: ClosedRange<Double> = 1...3
    /// Positive range bias of an NLOS episode, metres, drawn uniformly once per episode (default 0.2–1.5).
    public var nlosBias: ClosedRange<Double> = 0.2...1.5
    /// Range and angle noise multiplier during NLOS (default 2).
    public var nlosNoiseFactor: Double = 2
    /// An outlier is the true distance plus a uniform error in ±`outlierMagnitude` metres, clamped at 0
    /// (default 20).
    public var outlierMagnitude: Double = 20

    /// Walking speed range, m/s (default 0.5–1.5); one speed is drawn per leg.
    public var speed: ClosedRange<Double> = 0.5...1.5
    /// Probability that a tag stops at a waypoint rather than walking on (default 0.6).
    public var stopProbability: Double = 0.6
    /// Stop duration range, seconds, drawn log-uniformly (default 2–30).
    public var stopDuration: ClosedRange<Double> = 2...30
    /// Tag height range on 3-D sites, metres (default 0.3–4, a forklift load), clamped to the bounds.
    /// A site's own `tagHeightRange` takes its place.
    public var heightRange: ClosedRange<Double> = 0.3...4
    /// Delay of a `stationary` hint after a tag stops, seconds (default 0.5, like an accelerometer).
    public var stationaryHintDelay: Double = 0.5
    /// Delay of a `moving` hint after a tag starts moving, seconds (default 0.5).
    public var movingHintDelay: Double = 0.5

    /// Rate at which a pair drops out (a `removed` with reason `timeout`), per pair per minute (default 0.02).
    public var dropoutRate: Double = 0.02
    /// How long a dropped pair stays silent, seconds (default 2–8).
    public var dropoutDuration: ClosedRange<Double> = 2...8
    /// Rate at which an anchor suspends all its sessions, per anchor per minute (default 0.1).
    public var suspendRate: Double = 0.1
    /// How long a suspended anchor stays silent before `resumed`, seconds (default 2–6).
    public var suspendDuration: ClosedRange<Double> = 2...6
    /// Seconds between the sends of each anchor's gateway (default 0: every event is delivered at its
    /// own time, in time order). With a batch, `Simulator.generate` delivers the events in the order
    /// a service would receive them: each anchor's lines at its gateway's next send, so one tag's
    /// lines from different anchors arrive out of time order by up to one batch (see `GatewayDelivery`).
    public var gatewayBatch: Double = 0
    /// Tag ids are this prefix plus a zero-padded index (default "T": T0, T1 … or T0000 … T1999).
    public var tagPrefix: String = "T"

    /// - Parameters:
    ///   - tags: number of tags.
    ///   - duration: run length in seconds.
    ///   - seed: the random seed.
    ///   - nlosProbability: share of NLOS pair-episodes, 0…1.
    ///   - outlierProbability: share of gross-outlier ranges, 0…1.
    public init(tags: Int, duration: Double, seed: UInt64 = 1, nlosProbability: Double = 0,
                outlierProbability: Double = 0) {
        self.tags = tags; self.duration = duration; self.seed = seed
        self.nlosProbability = nlosProbability; self.outlierProbability = outlierProbability
    }

    /// The maximum range of a technology in metres (30 m when the table has no entry).
    public func maxRange(_ technology: Technology) -> Double { maxRange[technology] ?? 30 }

    /// Checks the values a command line can get wrong; the message names the field and the value.
    public func validate() throws(SimulationConfigError) {
        func check(_ ok: Bool, _ field: String, _ value: String) throws(SimulationConfigError) {
            if !ok { throw .invalid(field: field, value: value) }
        }
        try check(tags >= 0, "tags", "\(tags)")
        try check(duration.isFinite && duration >= 0, "duration", "\(duration)")
        try check((0...1).contains(nlosProbability), "nlosProbability", "\(nlosProbability)")
        try check((0...1).contains(outlierProbability), "outlierProbability", "\(outlierProbability)")
        try check(rangingRate.isFinite && rangingRate > 0, "rangingRate", "\(rangingRate)")
        try check(truthRate.isFinite && truthRate > 0, "truthRate", "\(truthRate)")
        try check((0..<1).contains(rangingJitter), "rangingJitter", "\(rangingJitter)")
        try check(speed.lowerBound > 0 && speed.upperBound.isFinite, "speed", "\(speed)")
        try check(stopDuration.lowerBound > 0 && stopDuration.upperBound.isFinite, "stopDuration", "\(stopDuration)")
        try check(noiseScale.isFinite && noiseScale >= 0, "noiseScale", "\(noiseScale)")
        try check(gatewayBatch.isFinite && (0...3600).contains(gatewayBatch), "gatewayBatch", "\(gatewayBatch)")
    }
}

/// A simulation setting out of its valid range.
public enum SimulationConfigError: Error, Equatable, CustomStringConvertible {
    /// The named field has a value outside its valid range.
    case invalid(field: String, value: String)

    /// A message naming the field and its value.
    public var description: String {
        switch self {
        case .invalid(let field, let value): "simulation setting '\(field)' is out of range (\(value))"
        }
    }
}
