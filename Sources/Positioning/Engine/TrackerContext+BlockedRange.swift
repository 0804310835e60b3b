#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import Numerics

// Where a tag of a four-anchor 3-D site may be if one of its ranges came over a blocked path.
//
// Four ranges fix three coordinates with one to spare: that spare range can show that a range is
// wrong, not which one (`nlosIdentifiable`), so the filter follows a blocked path, and four spheres
// with one of them too large often meet again near a second point, where every range fits and the
// filter's own covariance is as small as on line of sight. The report then carries the alternatives:
// for each anchor, the points the other three ranges fix (two spheres' intersection circle cut by
// the third), kept where that anchor's range is longer than its distance from them (a blocked path
// only lengthens a range) by a plausible excess, and inside the site.
extension TrackerContext {
    /// Prior probability that one of a tag's four latest ranges came over a blocked path.
    static let blockedRangePrior = 0.3
    /// A candidate point further than this outside the site's bounds (metres, on any axis) is not
    /// where the tag is.
    static let blockedCandidateMargin = 0.5

    /// The covariance (m², 3 × 3 row-major, site frame) of the hypotheses "anchor k's latest range
    /// came over a blocked path, and the tag is where the other three ranges meet", about the
    /// filter's position `f.position`: `Σₖ wₖ·sₖ·sₖᵀ`, with `sₖ` the candidate's offset from the
    /// filter and `wₖ` its posterior weight against the hypothesis that no range is blocked.
    ///
    /// The latest range of each anchor (within `anchorWindow`) is moved to the filter's time along
    /// the filter's velocity. Under "none blocked" the four ranges are noise about the filter's
    /// position; under "k blocked" the other three are noise about the candidate, and k's excess
    /// `b = range − distance` is exponential with mean `nlosExcessPrior`, at most
    /// `nlosExcessPrior + 5·nlosExcessPriorStd`. The prior of "some range blocked" is
    /// `blockedRangePrior`, split over the four anchors. Only the report carries the term.
    /// - Returns: nil unless all four anchors' ranges are recent, or when no candidate is plausible.
    func blockedRangeUncertainty(recent: borrowing RecentObservations,
                                 filter f: TagFilter.Reported) -> InlineArray<9, Double>? {
        guard site.dimensions == 3, anchorPositions.count == 4 else { return nil }
        let since = f.time.saturatingSubtract(anchorWindow)
        var z = InlineArray<4, Double>(repeating: 0), std = InlineArray<4, Double>(repeating: 0)
        var chi2 = 0.0
        for a in 0..<4 {
            guard let r = recent.latestRange(anchor: a, since: since) else { return nil }
            // The range at the filter's time: its change along the line of sight over the gap.
            let dt = f.time.seconds(since: r.time)
            let then = f.position - dt * f.velocity
            guard let u = (then - anchorPositions[a]).normalized else { return nil }
            z[a] = r.value + dt * u.dot(f.velocity)
            std[a] = max(r.std, 1e-3)
            let e = (z[a] - (f.position - anchorPositions[a]).norm) / std[a]
            chi2 += e * e
        }
        let mean = config.nlosExcessPrior, longest = mean + 5 * config.nlosExcessPriorStd
        guard mean > 0 else { return nil }
        // Likelihoods relative to a common factor: "none blocked" has four Gaussian terms, "k
        // blocked" three and the excess's density, hence the σₖ·√(2π) of the fourth.
        let none = (1 - Self.blockedRangePrior) * exp(-0.5 * min(chi2, 1400))
        var total = none
        var weights = InlineArray<8, Double>(repeating: 0)
        var offsets = InlineArray<8, Vec3>(repeating: .zero)
        var n = 0
        for k in 0..<4 {
            let i = (k + 1) % 4, j = (k + 2) % 4, l = (k + 3) % 4
            let (points, count) = Self.intersect(anchorPositions[i], z[i], anchorPositions[j], z[j],
                                                 anchorPositions[l], z[l])
            for c in 0..<count {
                let x = points[c]
                guard site.bounds.contains(x, margin: Self.blockedCandidateMargin) else { continue }
                let b = z[k] - (x - anchorPositions[k]).norm
                guard b > 0, b <= longest else { continue }
                var fit = 0.0
                let others: InlineArray<3, Int> = [i, j, l]
                for o in 0..<3 {
                    let m = others[o]
                    let e = (z[m] - (x - anchorPositions[m]).norm) / std[m]
                    fit += e * e
                }
                let w = Self.blockedRangePrior / 4 * exp(-0.5 * min(fit, 1400)) * exp(-b / mean) / mean
                    * std[k] * (2 * Double.pi).squareRoot()
                weights[n] = w; offsets[n] = x - f.position; total += w; n += 1
            }
        }
        guard n > 0, total > 0 else { return nil }
        var c = InlineArray<9, Double>(repeating: 0)
        for h in 0..<n {
            let w = weights[h] / total, s = offsets[h]
            c[0] += w * s.x * s.x; c[1] += w * s.x * s.y; c[2] += w * s.x * s.z
            c[4] += w * s.y * s.y; c[5] += w * s.y * s.z; c[8] += w * s.z * s.z
        }
        c[3] = c[1]; c[6] = c[2]; c[7] = c[5]
        return c
    }

    /// The points at distances `r1`, `r2`, `r3` from `p1`, `p2`, `p3`: two, mirror images through the
    /// three centres' plane; one where the spheres only touch or miss (the point of that plane nearest
    /// to all three); none when the centres are (nearly) on one line. The points, and how many.
    static func intersect(_ p1: Vec3, _ r1: Double, _ p2: Vec3, _ r2: Double,
                          _ p3: Vec3, _ r3: Double) -> (InlineArray<2, Vec3>, Int) {
        var points = InlineArray<2, Vec3>(repeating: .zero)
        let d = (p2 - p1).norm
        guard d > 1e-6, let ex = (p2 - p1).normalized else { return (points, 0) }
        let i = ex.dot(p3 - p1)
        guard let ey = (p3 - p1 - i * ex).normalized else { return (points, 0) }
        let ez = ex.cross(ey), j = ey.dot(p3 - p1)
        guard abs(j) > 1e-6 else { return (points, 0) }
        let x = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
        let y = (r1 * r1 - r3 * r3 + i * i + j * j) / (2 * j) - i / j * x
        let h2 = r1 * r1 - x * x - y * y
        let base = p1 + x * ex + y * ey
        points[0] = base
        guard h2 > 0 else { return (points, 1) }
        let h = h2.squareRoot()
        points[0] = base + h * ez; points[1] = base - h * ez
        return (points, 2)
    }
}
