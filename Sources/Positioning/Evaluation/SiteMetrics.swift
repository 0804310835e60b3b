/// Accuracy and availability figures of one site. Distances in metres; shares in 0…1.
/// Error statistics are NaN when no estimate could be evaluated.
public struct SiteMetrics: Sendable, Equatable {
    /// Site id.
    public var site: String
    /// 2: errors are horizontal (x, y); 3: errors are 3-D.
    public var dimensions: Int
    /// Number of estimates evaluated (after warm-up, inside the truth span).
    public var count: Int
    /// Root mean square error.
    public var rmse: Double
    /// Mean error.
    public var mean: Double
    /// Median error.
    public var median: Double
    /// 95th percentile of the error (linear interpolation between order statistics).
    public var p95: Double
    /// Largest error.
    public var max: Double
    /// Share of truth samples after warm-up with an estimate of the tag no older than the freshness window;
    /// NaN when there were no such truth samples.
    public var availability: Double
    /// Number of truth samples behind `availability`.
    public var availabilitySamples: Int
    /// Share of evaluated errors inside the estimate's own 95 % region; nil when no estimate had a covariance.
    public var coverage95: Double?
    /// Number of estimates behind `coverage95` (those with a covariance).
    public var coverageSamples: Int
    /// Estimates after warm-up that could not be evaluated: outside the tag's truth span, in a truth gap,
    /// or for a tag without truth.
    public var skipped: Int

    /// Computes the error statistics from raw errors.
    /// - Parameters:
    ///   - errors: one error per evaluated estimate, metres (any order).
    ///   - covered: how many of the errors with a covariance fell inside the 95 % region.
    ///   - withCovariance: how many errors had a covariance.
    ///   - fresh: truth samples with a fresh estimate; `truthSamples`: truth samples considered.
    init(site: String, dimensions: Int, errors: [Double], covered: Int, withCovariance: Int, fresh: Int,
         truthSamples: Int, skipped: Int) {
        self.site = site; self.dimensions = dimensions; self.skipped = skipped
        let sorted = errors.sorted()
        count = sorted.count
        let n = Double(sorted.count)
        rmse = sorted.isEmpty ? .nan : (sorted.reduce(0) { $0 + $1 * $1 } / n).squareRoot()
        mean = sorted.isEmpty ? .nan : sorted.reduce(0, +) / n
        median = SiteMetrics.percentile(sorted: sorted, 0.5)
        p95 = SiteMetrics.percentile(sorted: sorted, 0.95)
        max = sorted.last ?? .nan
        availability = truthSamples == 0 ? .nan : Double(fresh) / Double(truthSamples)
        availabilitySamples = truthSamples
        coverage95 = withCovariance == 0 ? nil : Double(covered) / Double(withCovariance)
        coverageSamples = withCovariance
    }

    /// The `p`-quantile (0…1) of ascending values, interpolating linearly between the order statistics
    /// at rank `p·(n−1)` (the common "type 7" definition); NaN for no values.
    public static func percentile(sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Swift.max(0, Swift.min(1, p)) * Double(sorted.count - 1)
        let lo = Int(rank.rounded(.down)), hi = Swift.min(lo + 1, sorted.count - 1)
        let f = rank - Double(lo)
        return sorted[lo] + f * (sorted[hi] - sorted[lo])
    }
}

extension Evaluation {
    /// A readable fixed-width table: site, dimensions, n, RMSE, median, p95, max (metres), availability
    /// and 95 % coverage (per cent), one row per site.
    public func table() -> String {
        let columns = ["site", "dim", "n", "RMSE m", "median m", "p95 m", "max m", "avail %", "cov95 %", "skipped"]
        var rows: [[String]] = [columns]
        for m in sites {
            rows.append([m.site, "\(m.dimensions)D", "\(m.count)", Self.fixed(m.rmse, 3), Self.fixed(m.median, 3),
                         Self.fixed(m.p95, 3), Self.fixed(m.max, 3), Self.fixed(100 * m.availability, 1),
                         m.coverage95.map { Self.fixed(100 * $0, 1) } ?? "-", "\(m.skipped)"])
        }
        var widths = Array(repeating: 0, count: columns.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = Swift.max(widths[i], cell.count) } }
        var out = ""
        for row in rows {
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                out += i == 0 ? cell + pad : "  " + pad + cell   // site left-aligned, figures right-aligned
            }
            out += "\n"
        }
        return out
    }

    /// `v` with `decimals` digits after the point, or "-" when not finite.
    static func fixed(_ v: Double, _ decimals: Int) -> String {
        guard v.isFinite else { return "-" }
        var bytes: [UInt8] = []
        DecimalText.appendFixed(v, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
