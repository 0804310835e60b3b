import Numerics

/// Compares position estimates with ground truth, per site: error statistics, availability and the
/// calibration of the reported covariance.
///
/// Each estimate is compared with the truth of the same tag interpolated linearly at the estimate's time;
/// estimates outside the tag's truth span, or between two truth samples further apart than
/// `maxTruthGap`, are skipped. The error is horizontal (x, y) on 2-D sites and 3-D on 3-D sites.
/// The first `warmup` seconds of every tag are left out of everything.
public struct Evaluation: Sendable {
    /// Where a tag's warm-up period starts.
    public enum WarmupOrigin: Sendable, Equatable {
        /// At the tag's first truth sample.
        case firstTruth
        /// At the tag's first estimate (the first truth sample for a tag that has none): the engine's start.
        case firstEstimate
    }

    /// Settings of an evaluation. Times in seconds.
    public struct Options: Sendable, Equatable {
        /// Seconds skipped at the start of every tag (default 2, as for the reference figures).
        public var warmup: Double = 2
        /// Where the warm-up starts (default `.firstEstimate`).
        public var warmupOrigin: WarmupOrigin = .firstEstimate
        /// An estimate counts as available at a truth time when it is at most this old (default 1 s).
        public var freshness: Double = 1
        /// Estimates in a truth gap longer than this are not evaluated (default 0.5 s).
        public var maxTruthGap: Double = 0.5
        /// When true, availability only counts truth samples up to the tag's last estimate, for truth that
        /// outlasts the recorded measurements (default false: truth after the last estimate counts as a miss).
        public var availabilityUntilLastEstimate = false

        /// - Parameters: see the properties.
        public init(warmup: Double = 2, warmupOrigin: WarmupOrigin = .firstEstimate, freshness: Double = 1,
                    maxTruthGap: Double = 0.5, availabilityUntilLastEstimate: Bool = false) {
            self.warmup = warmup; self.warmupOrigin = warmupOrigin; self.freshness = freshness
            self.maxTruthGap = maxTruthGap; self.availabilityUntilLastEstimate = availabilityUntilLastEstimate
        }
    }

    /// χ² thresholds of the 95 % region: 2 and 3 degrees of freedom.
    public static let chi2Threshold95 = (d2: 5.991, d3: 7.815)

    /// One row per site found in the truth or the estimates, sorted by site id.
    public let sites: [SiteMetrics]

    /// Evaluates estimates against truth.
    /// - Parameters:
    ///   - truth: ground-truth samples, any order.
    ///   - estimates: position estimates, any order.
    ///   - dimensions: site id → 2 or 3; sites not listed are evaluated horizontally (2-D).
    ///   - options: warm-up, freshness and gap settings.
    public init(truth: [TruthSample], estimates: [EstimateSample], dimensions: [String: Int] = [:],
                options: Options = Options()) {
        self.init(truth: truth, estimates: estimates, options: options, dimensionsOf: { dimensions[$0] })
    }

    /// Evaluates estimates against truth, asking `dimensionsOf` for each site's dimensions (nil: 2-D).
    public init(truth: [TruthSample], estimates: [EstimateSample], options: Options = Options(),
                dimensionsOf: (String) -> Int?) {
        struct Key: Hashable { var site: String; var tag: String }
        var truthByTag: [Key: [TruthSample]] = [:], estimatesByTag: [Key: [EstimateSample]] = [:]
        for s in truth { truthByTag[Key(site: s.site, tag: s.tag), default: []].append(s) }
        for e in estimates { estimatesByTag[Key(site: e.site, tag: e.tag), default: []].append(e) }
        var acc: [String: Accumulator] = [:]
        for key in Set(truthByTag.keys).union(estimatesByTag.keys) {
            let dims = dimensionsOf(key.site) == 3 ? 3 : 2
            let t = (truthByTag[key] ?? []).sorted { $0.time < $1.time }
            let e = (estimatesByTag[key] ?? []).sorted { $0.time < $1.time }
            acc[key.site, default: Accumulator(dimensions: dims)].add(truth: t, estimates: e, options: options)
        }
        sites = acc.keys.sorted().map { site in acc[site]!.metrics(site: site) }
    }

    /// The row of one site, if present.
    public func site(_ id: String) -> SiteMetrics? { sites.first { $0.site == id } }
}

/// Running sums of one site while its tags are evaluated.
private struct Accumulator {
    let dimensions: Int
    var errors: [Double] = []
    var covered = 0, withCovariance = 0, fresh = 0, truthSamples = 0, skipped = 0

    init(dimensions: Int) { self.dimensions = dimensions }

    /// Adds one tag: truth and estimates each sorted by time.
    mutating func add(truth: [TruthSample], estimates: [EstimateSample], options: Evaluation.Options) {
        let origin: Nanoseconds?
        switch options.warmupOrigin {
        case .firstTruth: origin = truth.first?.time ?? estimates.first?.time
        case .firstEstimate: origin = estimates.first?.time ?? truth.first?.time
        }
        guard let origin else { return }
        let start = origin.saturatingAdd(nanos(options.warmup))
        let maxGap = nanos(options.maxTruthGap)
        let times = truth.map(\.time)
        for e in estimates where e.time >= start {
            guard let p = interpolate(truth, times: times, at: e.time, maxGap: maxGap) else { skipped += 1; continue }
            let d = e.position - p
            errors.append(dimensions == 3 ? d.norm : d.horizontalNorm)
            if let c = e.covariance {
                withCovariance += 1
                let threshold = dimensions == 3 ? Evaluation.chi2Threshold95.d3 : Evaluation.chi2Threshold95.d2
                let m2 = dimensions == 3 ? c.mahalanobis2(d) : c.mahalanobis2(d.x, d.y)
                if let m2, m2 <= threshold { covered += 1 }  // a covariance that is not positive definite misses
            }
        }
        // Availability: walk the truth and the estimates together.
        let freshness = nanos(options.freshness)
        let end = options.availabilityUntilLastEstimate ? (estimates.last?.time ?? .min) : .max
        var j = -1   // index of the latest estimate at or before the truth time
        for s in truth where s.time >= start && s.time <= end {
            while j + 1 < estimates.count && estimates[j + 1].time <= s.time { j += 1 }
            truthSamples += 1
            if j >= 0 && s.time.saturatingSubtract(estimates[j].time) <= freshness { fresh += 1 }
        }
    }

    func metrics(site: String) -> SiteMetrics {
        SiteMetrics(site: site, dimensions: dimensions, errors: errors, covered: covered,
                    withCovariance: withCovariance, fresh: fresh, truthSamples: truthSamples, skipped: skipped)
    }
}

/// Seconds as nanoseconds, rounded, held at the ends of `Int64`.
private func nanos(_ seconds: Double) -> Nanoseconds { Nanoseconds(saturatingSeconds: (seconds * 1e9).rounded() * 1e-9) }

/// The truth position at `t` by linear interpolation between the neighbouring samples; nil outside the
/// span or inside a gap longer than `maxGap`. A sample exactly at `t` is returned as is.
func interpolate(_ truth: [TruthSample], times: [Nanoseconds], at t: Nanoseconds, maxGap: Nanoseconds) -> Vec3? {
    // First index with time >= t.
    var lo = 0, hi = times.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if times[mid] < t { lo = mid + 1 } else { hi = mid }
    }
    guard lo < times.count else { return nil }
    if times[lo] == t { return truth[lo].position }
    guard lo > 0 else { return nil }
    let a = truth[lo - 1], b = truth[lo]
    // Times come from files: the gap saturates (a gap beyond Int64 is beyond any maxGap).
    let gap = b.time.saturatingSubtract(a.time)
    guard gap <= maxGap else { return nil }
    let f = Double(t - a.time) / Double(gap)
    return a.position + f * (b.position - a.position)
}
