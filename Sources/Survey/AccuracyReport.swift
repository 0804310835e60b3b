public import Numerics
public import Positioning

/// An accuracy report: the engine run over a recording, compared with its ground truth when there is
/// one. Without truth (a field recording), the report has the engine's own predicted accuracy, the
/// anchors' health, and the range residuals against the estimated tracks.
public struct AccuracyReport: Sendable {
    /// One evaluated position: seconds since the run's first estimate, the tag and the error (metres).
    public struct ErrorSample: Sendable, Equatable {
        public var seconds: Double
        public var tag: String
        public var error: Double
    }

    /// One position's predicted accuracy: the engine's 1-σ radius `sqrt((σx² + σy²)/2)`, metres.
    public struct SigmaSample: Sendable, Equatable {
        public var seconds: Double
        public var tag: String
        public var sigma: Double
    }

    public let site: Site
    /// Whether the recording had ground truth for the site (errors and metrics exist only then).
    public let hasTruth: Bool
    /// The evaluation's figures (RMSE, percentiles, availability, 95 % coverage), and its table; nil
    /// without truth.
    public let metrics: SiteMetrics?
    public let table: String
    /// Errors after each tag's warm-up, in time order per tag.
    public let errors: [ErrorSample]
    /// Estimated and true tracks per tag (site frame, metres).
    public let estimated: [String: [Vec3]], truth: [String: [Vec3]]
    /// Per anchor and technology: range residuals (measured − distance), against the true tag
    /// positions, or without truth against the estimated ones (which the ranges themselves pulled,
    /// so these residuals understate an anchor's bias).
    public let residuals: [AnchorBias]
    /// The engine's predicted accuracy of every position, in time order per tag.
    public let predicted: [SigmaSample]
    /// Every anchor's health at the end of the run (lines, rejected and blocked ranges, innovation RMS).
    public let anchors: [AnchorReport]
    /// Events of the site given to the engine, and those it refused (unknown anchor, technology).
    public let events: Int, refused: Int

    /// Runs the engine and evaluates.
    /// - Parameters:
    ///   - site: the site.
    ///   - events: decoded ingest events (other sites' events are ignored).
    ///   - truth: ground truth of the site's tags; empty for a field recording.
    ///   - config: the engine's configuration.
    ///   - options: the evaluation's warm-up and freshness.
    ///   - progress: called with the share of events done (0…1).
    public init(site: Site, events input: [Event], truth allTruth: [TruthSample] = [], config: EngineConfig = EngineConfig(),
                options: Evaluation.Options = Evaluation.Options(), progress: (Double) -> Void = { _ in }) {
        self.site = site
        let mine = input.filter { $0.site == site.id }
        let truthSamples = allTruth.filter { $0.site == site.id }
        var engine = Engine(sites: [site], config: config)
        var estimates: [EstimateSample] = [], refused = 0
        for (k, e) in mine.enumerated() {
            do {
                try engine.handle(e) { out in if case .position(let p) = out { estimates.append(EstimateSample(p)) } }
            } catch { refused += 1 }
            if k % 4096 == 0 { progress(Double(k) / Double(max(mine.count, 1))) }
        }
        progress(1)
        self.events = mine.count; self.refused = refused
        anchors = engine.anchorReports()
        hasTruth = !truthSamples.isEmpty
        let evaluation = Evaluation(truth: truthSamples, estimates: estimates, dimensions: [site.id: site.dimensions],
                                    options: options)
        metrics = hasTruth ? evaluation.site(site.id) : nil
        table = evaluation.table()

        var byTag: [String: [TruthSample]] = [:]
        for s in truthSamples { byTag[s.tag, default: []].append(s) }
        for k in byTag.keys { byTag[k]!.sort { $0.time < $1.time } }
        truth = byTag.mapValues { $0.map(\.position) }
        var est: [String: [EstimateSample]] = [:]
        for e in estimates { est[e.tag, default: []].append(e) }
        estimated = est.mapValues { $0.map(\.position) }
        let t0 = estimates.map(\.time).min() ?? 0
        predicted = est.keys.sorted().flatMap { tag in
            est[tag]!.compactMap { e in
                e.covariance.map { c in SigmaSample(seconds: Double(e.time - t0) * 1e-9, tag: tag, sigma: (0.5 * (c.xx + c.yy)).squareRoot()) }
            }
        }
        var errors: [ErrorSample] = []
        for tag in est.keys.sorted() {
            guard let track = byTag[tag], let first = est[tag]!.first?.time else { continue }
            for e in est[tag]! where Double(e.time - first) * 1e-9 >= options.warmup {
                guard let p = TruthSource.interpolate(track, at: e.time) else { continue }
                let d = e.position - p
                errors.append(ErrorSample(seconds: Double(e.time - t0) * 1e-9, tag: tag,
                                          error: site.dimensions == 3 ? d.norm : d.horizontalNorm))
            }
        }
        self.errors = errors
        let rangings = mine.compactMap { if case .ranging(let r) = $0 { r } else { nil } }
        let reference = hasTruth ? truthSamples
            : estimates.map { TruthSample(site: $0.site, tag: $0.tag, time: $0.time, position: $0.position) }
        residuals = BiasEstimation.estimate(site: site, residuals:
            BiasEstimation.residuals(site: site, rangings: rangings, truth: .track(reference)))
    }
}

extension AccuracyReport {
    /// Median and 95th percentile of the engine's predicted σ over every position, metres (NaN when none).
    public var predictedSigma: (median: Double, p95: Double) {
        let sorted = predicted.map(\.sigma).sorted()
        return (SiteMetrics.percentile(sorted: sorted, 0.5), SiteMetrics.percentile(sorted: sorted, 0.95))
    }

    /// Positions the engine gave per tag.
    public var positionsPerTag: [(tag: String, count: Int)] {
        estimated.keys.sorted().map { ($0, estimated[$0]!.count) }
    }
}
