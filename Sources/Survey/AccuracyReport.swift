public import Numerics
public import Positioning

/// An accuracy report: the engine run over a recording, compared with its ground truth.
public struct AccuracyReport: Sendable {
    /// One evaluated position: seconds since the run's first estimate, the tag and the error (metres).
    public struct ErrorSample: Sendable, Equatable {
        public var seconds: Double
        public var tag: String
        public var error: Double
    }

    public let site: Site
    /// The evaluation's figures (RMSE, percentiles, availability, 95 % coverage), and its table.
    public let metrics: SiteMetrics?
    public let table: String
    /// Errors after each tag's warm-up, in time order per tag.
    public let errors: [ErrorSample]
    /// Estimated and true tracks per tag (site frame, metres).
    public let estimated: [String: [Vec3]], truth: [String: [Vec3]]
    /// Per anchor and technology: range residuals against the truth (measured − true distance).
    public let residuals: [AnchorBias]
    /// Events of the site given to the engine, and those it refused (unknown anchor, technology).
    public let events: Int, refused: Int

    /// Runs the engine and evaluates.
    /// - Parameters:
    ///   - site: the site.
    ///   - events: decoded ingest events (other sites' events are ignored).
    ///   - truth: ground truth of the site's tags.
    ///   - config: the engine's configuration.
    ///   - options: the evaluation's warm-up and freshness.
    ///   - progress: called with the share of events done (0…1).
    public init(site: Site, events input: [Event], truth allTruth: [TruthSample], config: EngineConfig = EngineConfig(),
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
        let evaluation = Evaluation(truth: truthSamples, estimates: estimates, dimensions: [site.id: site.dimensions],
                                    options: options)
        metrics = evaluation.site(site.id)
        table = evaluation.table()

        var byTag: [String: [TruthSample]] = [:]
        for s in truthSamples { byTag[s.tag, default: []].append(s) }
        for k in byTag.keys { byTag[k]!.sort { $0.time < $1.time } }
        truth = byTag.mapValues { $0.map(\.position) }
        var est: [String: [EstimateSample]] = [:]
        for e in estimates { est[e.tag, default: []].append(e) }
        estimated = est.mapValues { $0.map(\.position) }
        let t0 = estimates.map(\.time).min() ?? 0
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
        residuals = BiasEstimation.estimate(site: site, residuals:
            BiasEstimation.residuals(site: site, rangings: rangings, truth: .track(truthSamples)))
    }
}
