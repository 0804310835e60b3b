public import Positioning
public import Numerics

/// Where one anchor's ranges say it is, against where the map puts it.
public struct AnchorPositionEstimate: Sendable, Equatable {
    public var anchor: String
    /// The map's position, metres.
    public var mapped: Vec3
    /// The position its ranges fit best (nil when they could not fix one), metres.
    public var estimated: Vec3?
    /// `estimated − mapped`: horizontal on a 2-D solve, metres.
    public var shift: Double?
    /// 1-σ of that shift from the solve's covariance (root of its trace), metres.
    public var sigma: Double?
    /// Ranges used, each paired with the tag's position at its time.
    public var pairs: Int
    /// Why there is no estimate, when there is none.
    public var failure: String?

    /// True when the shift is both real (beyond 3 σ) and large enough to matter (beyond `tolerance`).
    public func isMisplaced(tolerance: Double) -> Bool {
        guard let shift, let sigma else { return false }
        return shift > tolerance && shift > 3 * sigma
    }
}

/// Checks each anchor's mapped position against its ranges, without ground truth: the engine places
/// the tags of a recording without the anchor (its lines left out, so that a wrong position cannot pull
/// the tags toward itself), each of the anchor's ranges is paired with the tag's position at its time,
/// and the pairs are solved for the anchor's position by the engine's robust multilateration, with the
/// tag position's uncertainty added to each range's σ. It needs tags that move about the anchor.
public enum AnchorPositionCheck {
    /// Ranges per anchor at most (evenly thinned beyond it).
    public static let maxPairs = 4000
    /// A tag position more than this far in time from a range is not paired with it, seconds.
    public static let maxGap = 0.3

    /// One estimate per anchor of the site, in its order.
    /// - Parameters:
    ///   - site: the map to check.
    ///   - events: the recording's events (its other sites' are ignored).
    ///   - solveHeight: solve the anchors' heights too (else kept, as `survey calibrate` does).
    ///   - config: the engine's tuning.
    ///   - progress: called with (anchors done, anchors) after each anchor.
    public static func run(site: Site, events: [Event], solveHeight: Bool = false, config: EngineConfig = EngineConfig(),
                           progress: (Int, Int) -> Void = { _, _ in }) -> [AnchorPositionEstimate] {
        let own = events.filter { $0.site == site.id }
        var out: [AnchorPositionEstimate] = []
        for (i, anchor) in site.anchors.enumerated() {
            out.append(estimate(anchor, site: site, events: own, solveHeight: solveHeight, config: config))
            progress(i + 1, site.anchors.count)
        }
        return out
    }

    static func estimate(_ anchor: Anchor, site: Site, events: [Event], solveHeight: Bool,
                         config: EngineConfig) -> AnchorPositionEstimate {
        var result = AnchorPositionEstimate(anchor: anchor.id, mapped: anchor.position, pairs: 0)
        // The tags' positions, placed without this anchor.
        var tracker = SiteTracker(site: site, config: config)
        var tracks: [String: [PositionEstimate]] = [:]
        var ranges: [Ranging] = []
        for e in events {
            switch e {
            case .ranging(let r) where r.anchor == anchor.id:
                if r.distance != nil, site.anchor(r.tag) == nil { ranges.append(r) }
                continue
            case .removed(_, let a, _, _, _) where a == anchor.id: continue
            case .session(_, let a, _, _, _) where a == anchor.id: continue
            default: break
            }
            try? tracker.handle(e) { o in
                if case .position(let p) = o { tracks[p.tag, default: []].append(p) }
            }
        }
        // Each range with the tag's position at its time, interpolated between two estimates.
        let gap = Nanoseconds(maxGap * 1e9)
        let stride = max(1, (ranges.count + maxPairs - 1) / maxPairs)
        var observations: [Observation] = []
        for (k, r) in ranges.enumerated() where k % stride == 0 {
            guard let track = tracks[r.tag], let (p, variance) = position(in: track, at: r.time, gap: gap) else { continue }
            let technology = r.technology ?? anchor.technologies.first ?? .uwb
            let std = Anchor.rangeStd(line: r.std, calibrated: anchor.rangeStd, technology: technology)
            observations.append(Observation(kind: .range, anchor: observations.count, anchorPosition: p,
                                            value: r.distance! - anchor.rangeBias,
                                            std: (std * std + variance).squareRoot(), time: r.time))
        }
        result.pairs = observations.count
        let d = solveHeight && site.dimensions == 3 ? 3 : 2
        do {
            let fix = try Multilateration.solve(observations, dimensions: d, height: anchor.position.z,
                                                initial: anchor.position)
            var delta = fix.position - anchor.position
            if d == 2 { delta.z = 0 }
            result.estimated = fix.position
            result.shift = delta.norm
            result.sigma = (0..<d).reduce(0.0) { $0 + fix.covariance[$1 * d + $1] }.squareRoot()
        } catch {
            result.failure = "\(error)"
        }
        return result
    }

    /// The position of a tag at `t` from its time-ordered estimates, linearly interpolated, and its
    /// variance per axis (the mean of the horizontal variances); nil beyond `gap` from both neighbours.
    static func position(in track: [PositionEstimate], at t: Nanoseconds, gap: Nanoseconds) -> (Vec3, Double)? {
        var lo = 0, hi = track.count
        while lo < hi {   // the first estimate at or after t
            let mid = (lo + hi) / 2
            if track[mid].time < t { lo = mid + 1 } else { hi = mid }
        }
        func variance(_ e: PositionEstimate) -> Double { 0.5 * (max(0, e.covXX) + max(0, e.covYY)) }
        let after = lo < track.count ? track[lo] : nil
        let before = lo > 0 ? track[lo - 1] : nil
        switch (before, after) {
        case (let b?, let a?) where a.time - b.time <= 2 * gap && a.time > b.time:
            let f = Double(t - b.time) / Double(a.time - b.time)
            return (b.position + f * (a.position - b.position), max(variance(a), variance(b)))
        case (_, let a?) where a.time - t <= gap / 3:
            return (a.position, variance(a))
        case (let b?, _) where t - b.time <= gap / 3:
            return (b.position, variance(b))
        default:
            return nil
        }
    }
}
