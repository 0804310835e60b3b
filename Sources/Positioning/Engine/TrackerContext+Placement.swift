internal import Numerics

// Placing a tag: multilateration over its recent observations, and where a tag can be.
extension TrackerContext {
    /// Without a `tagHeight`, the starting height of a placement is this share of the site's height
    /// above its floor (tags are carried low).
    static let startHeightShare = 0.15
    /// Fixes whose normalised RMS is within this factor of the best one's, plus `fitTieMargin`, fit
    /// about equally well: of those, placement takes the lowest (or the one nearer the height range).
    static let fitTieFactor = 1.1
    /// See `fitTieFactor` (normalised RMS, unitless).
    static let fitTieMargin = 0.05
    /// The velocity σ (m/s) of a tag placed while a stationary hint says it is still.
    static let stationaryVelocityStd = 0.05

    /// Places (or re-places) a tag by multilateration over its recent observations.
    func initialise(_ track: inout TagTrack, tag: String, time: Nanoseconds, smoother: inout TrajectorySmoother?) {
        let since = time.saturatingSubtract(initWindow)
        // Every start below would be refused for the same reason (too few observations, anchors that
        // do not span): no fix, nothing changes. Most calls before a tag's first placement end here,
        // at the first test, which counts the anchors in the ring before any observation is built.
        if let need = placementAnchors,
           track.recent.rangeAnchorCount(since: since, anchorCount: anchorPositions.count, atLeast: need) < need {
            return
        }
        let obs = track.recent.observations(since: since, positions: anchorPositions, rotations: rotations)
        guard Multilateration.refusal(obs, dimensions: site.dimensions) == nil else { return }
        let site = site
        // `refusal` let the observations through (above), for every start.
        let solve = { (start: Vec3?) in
            try? Multilateration.solveAdmitted(obs, dimensions: site.dimensions, height: site.tagHeight,
                                               initial: start, bounds: site.bounds)
        }
        // Starting points, in order: where the filter is (if it is plausible), the closed-form guess,
        // and the middle of the site at the mean tag height. The first plausible fix wins, so a
        // mirror solution above a plane of anchors is not taken when one inside the site exists.
        let b = site.bounds
        var starts: [Vec3?] = []
        if track.isPlaced, isInside(track.placedFilter.position) { starts.append(track.placedFilter.position) }
        starts.append(nil)
        var low = site.tagHeight ?? (b.min.z + Self.startHeightShare * (b.max.z - b.min.z))
        if let range = heightRange { low = range.clamping(low) }
        starts.append(Vec3(0.5 * (b.min.x + b.max.x), 0.5 * (b.min.y + b.max.y), low))
        if site.dimensions == 3, !obs.isEmpty {
            // Below the anchors that hear the tag: the basin of the lower of two mirror solutions.
            var c = Vec3.zero
            for o in obs { c = c + o.anchorPosition }
            c = (1 / Double(obs.count)) * c
            starts.append(Vec3(c.x, c.y, low))
        }
        var fixes = starts.compactMap(solve)
        if let plane = anchorPlane {
            // Anchors in one plane: each fix's image through it fits as well, and is a candidate too.
            fixes += fixes.compactMap { solve(plane.mirror(of: $0.position)) }
        }
        fixes = fixes.filter { isInside($0.position) }
        // With a height range, fixes outside it are taken only when there is no other.
        if heightRange != nil, fixes.contains(where: { isWithinHeightRange($0.position) }) {
            fixes.removeAll { !isWithinHeightRange($0.position) }
        }
        // Of the fixes that fit about equally well, the lowest: a tag below a plane of ceiling anchors
        // has a mirror image above it that fits the ranges just as well, and tags are carried low.
        guard let best = fixes.map(\.normalizedRMS).min() else { return }
        // Anchors in one plane: of a fix and its image, the one nearer the floor-to-ceiling and height
        // ranges, then the lower.
        guard let fix = fixes.filter({ $0.normalizedRMS <= Self.fitTieFactor * best + Self.fitTieMargin })
            .min(by: { a, b in
                let va = anchorPlane == nil ? 0 : heightViolation(a.position)
                let vb = anchorPlane == nil ? 0 : heightViolation(b.position)
                return va != vb ? va < vb : a.position.z < b.position.z
            }) else { return }
        var p = fix.position
        if site.dimensions == 2 { p.z = site.tagHeight ?? p.z }
        track.filter = TagFilter(position: p, covariance: fix.covariance, dimensions: site.dimensions,
                                 velocityStd: track.motion == .stationary ? Self.stationaryVelocityStd : config.initialVelocityStd,
                                 time: time)
        track.mirrorUndecided = placementUndecided(track.placedFilter)
        track.mirrorEvidence = 0
        track.mirrorSideAbove = (anchorPlane?.distance(p) ?? 0) >= 0
        if !track.mirrorUndecided { holdHeight(&track) }
        smoother?.record(tag: tag, prior: track.placedFilter, posterior: track.placedFilter, held: false, newSegment: true)
        track.nis = 1
        track.disagreement = 0
        track.rejectShare = 0
        track.rejectRun = 0
        track.updatesSinceInit = 0
    }

    /// True when the filter's state is physically possible: inside the site (with a margin) and slower
    /// than `maxSpeed`.
    func isPlausible(_ f: TagFilter) -> Bool { isPlausible(f.position, f.velocity) }

    /// `isPlausible` of a position (m) and velocity (m/s), without a copy of the filter.
    func isPlausible(_ position: Vec3, _ velocity: Vec3) -> Bool {
        isInside(position) && velocity.norm <= config.maxSpeed
    }

    /// True when `p` lies within the site's bounds grown horizontally by `boundsMargin` (at least 10 %
    /// of the site's size) and vertically by 0.5 m: tags are inside the building, between its floor
    /// and its ceiling, give or take the anchors' noise.
    @inline(__always)
    func isInside(_ p: Vec3) -> Bool {
        // The grown bounds are computed once (`insideLow`, `insideHigh`), as `b.min.x - mx` and so on.
        p.isFinite && p.x >= insideLow.x && p.x <= insideHigh.x && p.y >= insideLow.y
            && p.y <= insideHigh.y && p.z >= insideLow.z && p.z <= insideHigh.z
    }
}
