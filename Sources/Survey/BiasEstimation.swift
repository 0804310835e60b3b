public import Positioning
import Numerics

/// One range's error against the truth: measured − true distance, metres.
public struct RangeResidual: Sendable, Equatable {
    public var anchor: String
    public var technology: Technology
    public var residual: Double
    public var time: Nanoseconds
}

/// The range bias and noise of one anchor with one technology.
public struct AnchorBias: Sendable, Equatable {
    public var anchor: String
    public var technology: Technology
    /// Ranges behind the figures.
    public var count: Int
    /// Plain mean and median of the residuals, metres.
    public var mean: Double, median: Double
    /// Huber mean (k = 1.5 robust σ): the bias estimate, little moved by NLOS bursts and outliers, metres.
    public var bias: Double
    /// Standard deviation of the residuals within 3 robust σ of the bias: the noise estimate, metres.
    public var std: Double
    /// 1.4826 × the median absolute deviation, metres.
    public var robustStd: Double
}

/// Range bias and noise calibration from a tag at known positions.
public enum BiasEstimation {
    /// Residuals (measured − true distance) of every ranging line with a distance whose truth is known.
    /// The site's `rangeBias` is not removed: the residual is the whole bias.
    public static func residuals(site: Site, rangings: [Ranging], truth: TruthSource) -> [RangeResidual] {
        let at = truth.lookup()
        return rangings.compactMap { r -> RangeResidual? in
            guard let d = r.distance, let a = site.anchor(r.anchor), site.anchorIndex[r.tag] == nil,
                  let p = at(r.tag, r.time) else { return nil }
            return RangeResidual(anchor: r.anchor, technology: r.technology ?? a.technologies.first ?? .uwb,
                                 residual: d - (p - a.position).norm, time: r.time)
        }
    }

    /// Bias and noise per anchor and technology, in site anchor order.
    public static func estimate(site: Site, residuals: [RangeResidual]) -> [AnchorBias] {
        var groups: [String: [Technology: [Double]]] = [:]
        for r in residuals { groups[r.anchor, default: [:]][r.technology, default: []].append(r.residual) }
        var out: [AnchorBias] = []
        for a in site.anchors {
            for tech in Technology.allCases {
                guard let values = groups[a.id]?[tech], !values.isEmpty else { continue }
                out.append(summarise(anchor: a.id, technology: tech, values))
            }
        }
        return out
    }

    /// The figures of one group of residuals.
    public static func summarise(anchor: String, technology: Technology, _ values: [Double]) -> AnchorBias {
        let sorted = values.sorted()
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        let median = SiteMetrics.percentile(sorted: sorted, 0.5)
        let mad = SiteMetrics.percentile(sorted: values.map { abs($0 - median) }.sorted(), 0.5)
        let scale = max(1.4826 * mad, 1e-4)
        var mu = median
        for _ in 0..<20 {
            var sw = 0.0, swr = 0.0
            for v in values {
                let e = abs(v - mu)
                let w = e <= 1.5 * scale ? 1 : 1.5 * scale / e
                sw += w; swr += w * v
            }
            let next = swr / sw
            if abs(next - mu) < 1e-9 { mu = next; break }
            mu = next
        }
        let inliers = values.filter { abs($0 - mu) <= 3 * scale }
        let m = inliers.reduce(0, +) / Double(max(inliers.count, 1))
        let variance = inliers.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(max(inliers.count - 1, 1))
        return AnchorBias(anchor: anchor, technology: technology, count: values.count, mean: mean, median: median,
                          bias: mu, std: variance.squareRoot(), robustStd: 1.4826 * mad)
    }

    /// The site with `rangeBias` and `rangeStd` of every anchor that has at least `minCount` ranges with
    /// its default (first) technology, or else with the technology it has most ranges with. The site
    /// file has one bias per anchor: on dual-technology anchors the other technology's figures are
    /// printed, not written.
    public static func apply(_ biases: [AnchorBias], to site: Site, minCount: Int = 10) -> (site: Site, updated: [String]) {
        var out = site, updated: [String] = []
        for (i, a) in site.anchors.enumerated() {
            let mine = biases.filter { $0.anchor == a.id && $0.count >= minCount }
            guard let pick = mine.first(where: { $0.technology == a.technologies.first })
                    ?? mine.max(by: { $0.count < $1.count }) else { continue }
            out.anchors[i].rangeBias = pick.bias
            out.anchors[i].rangeStd = max(pick.std, 0.005)
            updated.append(a.id)
        }
        return (out, updated)
    }
}
