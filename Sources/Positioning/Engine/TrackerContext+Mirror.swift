internal import Numerics

// The mirror image through a plane of anchors (3-D sites whose anchors lie in one plane: tripods at
// one height, a ceiling, wall anchors near one height; see `AnchorPlane`).
//
// Ranges from anchors in one plane fit a point and its image through the plane equally well, so
// ranges never tell the two apart; what can is where tags can be. After each line the tracker looks
// at the filter and its image:
// - the image is outside the site's floor and ceiling or its `tagHeightRange` (by more than
//   `mirrorMargin` plus 2 σ of the filter along the normal): the side is decided;
// - the filter is outside and its image inside: the filter is moved to its image (a tag rising from
//   below tripod anchors whose filter went down instead), and the side is decided;
// - both are possible and the filter crosses the plane (or is placed where both are possible): the
//   side is undecided from then on, until the bounds or the height range decide it, or, for anchors
//   near but not in one plane, the ranges' fit does (`weighEvidence`). While both sides are possible the height range does not pull the
//   filter (`holdHeight`): it decides by the flip above instead.
// While undecided, a position carries the image (`PositionEstimate.mirror`, `mx`/`my`/`mz` on the
// line) and its covariance gains `s² n nᵀ` (`s` the distance from the plane), which puts the image
// 2 σ away along the normal: inside the 95 % region.
extension TrackerContext {
    /// Margin (metres) beyond the bounds' floor and ceiling and the height range within which a point
    /// still counts as possible, on top of twice the filter's σ along the plane's normal.
    static let mirrorMargin = 0.05
    /// ... and this many of the filter's σ along the normal.
    static let mirrorStdK = 2.0

    /// Decides (or not) on which side of the anchors' plane the track's filter is, moving it to its
    /// image when only the image is possible. Returns false when both sides are possible: the height
    /// range must then not pull the filter (`holdHeight`), since a filter on the wrong side held at the
    /// range's edge would never be far enough outside for its image to be taken. True (and nothing
    /// done) on sites without an anchor plane.
    @inline(__always)
    func resolveMirror(_ track: inout TagTrack, time: Nanoseconds) -> Bool {
        guard let plane = anchorPlane, track.isPlaced else { return true }
        return resolveMirror(&track, plane: plane, time: time)
    }

    @inline(never)
    private func resolveMirror(_ track: inout TagTrack, plane: AnchorPlane, time: Nanoseconds) -> Bool {
        let p = track.placedFilter.position
        let s = plane.distance(p)
        let sn = normalStd(track.placedFilter, plane.normal)
        let image = plane.mirror(of: p)
        if !isPossible(image, std: sn) {
            track.mirrorUndecided = false
            track.mirrorSideAbove = s >= 0
            return true
        }
        if !isPossible(p, std: sn) {
            track.placedFilter.reflect(normal: plane.normal, origin: plane.origin)
            track.mirrorUndecided = false
            track.mirrorSideAbove = s < 0
            return true
        }
        // The filter crossed the plane: whether the tag did too, the ranges cannot say.
        if (s >= 0) != track.mirrorSideAbove {
            track.mirrorSideAbove = s >= 0
            track.mirrorUndecided = true
            track.mirrorEvidence = 0
        }
        if track.mirrorUndecided { weighEvidence(&track, plane: plane, time: time) }
        return false
    }

    /// The evidence (log-likelihood ratio) one check needs to decide a side.
    static let mirrorDecisionLLR = 8.0
    /// The most one check adds to the evidence, either way.
    static let mirrorCheckLLR = 4.0

    /// Once per `RecentObservations.capacity` lines of an undecided track: the recent observations are
    /// solved from the filter's position and from its image, and half the difference of the two fits'
    /// χ² is added to `mirrorEvidence`. Anchors exactly in one plane add nothing (both fit alike);
    /// anchors near one plane (wall anchors at 2.3–2.6 m) tell the image apart within seconds. Beyond
    /// `mirrorDecisionLLR` the side is decided; below its negative the filter moves to the image.
    private func weighEvidence(_ track: inout TagTrack, plane: AnchorPlane, time: Nanoseconds) {
        track.mirrorCheckDue -= 1
        guard track.mirrorCheckDue <= 0 else { return }
        track.mirrorCheckDue = RecentObservations.capacity
        let obs = track.recent.observations(since: time.saturatingSubtract(initWindow),
                                            positions: anchorPositions, rotations: rotations)
        guard obs.count >= RecentObservations.capacity / 2 else { return }
        let p = track.placedFilter.position
        func chi2(_ fix: Fix) -> Double { fix.normalizedRMS * fix.normalizedRMS * Double(fix.observations) }
        guard let own = try? Multilateration.solve(obs, dimensions: 3, height: nil, initial: p, bounds: site.bounds),
              plane.distance(own.position) * plane.distance(p) > 0 else { return }
        // The image of the filter side's best fit, and the best fit on the image's side from there.
        let image = plane.mirror(of: own.position)
        var other = Self.chi2(obs, at: image)
        if let fix = try? Multilateration.solve(obs, dimensions: 3, height: nil, initial: image, bounds: site.bounds),
           plane.distance(fix.position) * plane.distance(p) < 0 {
            other = min(other, chi2(fix))
        }
        let llr = max(-Self.mirrorCheckLLR, min(Self.mirrorCheckLLR, 0.5 * (other - chi2(own))))
        track.mirrorEvidence += llr
        if track.mirrorEvidence >= Self.mirrorDecisionLLR {
            track.mirrorUndecided = false
        } else if track.mirrorEvidence <= -Self.mirrorDecisionLLR {
            track.placedFilter.reflect(normal: plane.normal, origin: plane.origin)
            track.mirrorUndecided = false
            track.mirrorSideAbove.toggle()
        }
        if !track.mirrorUndecided { track.mirrorEvidence = 0 }
    }

    /// χ² of `obs` at `p` (noise-normalised squared residuals).
    private static func chi2(_ obs: [Observation], at p: Vec3) -> Double {
        var c = 0.0
        for o in obs {
            guard let pr = o.predict(at: p) else { continue }
            let e = o.residual(pr.value) / o.std
            c += e * e
        }
        return c
    }

    /// How far (metres) `p` lies outside the site's floor and ceiling and its height range: 0 inside.
    func heightViolation(_ p: Vec3) -> Double {
        let b = site.bounds
        var v = max(0, b.min.z - p.z, p.z - b.max.z)
        if let range = heightRange { v = max(v, range.lowerBound - p.z, p.z - range.upperBound) }
        return v
    }

    /// Whether the side of a new placement at `p` is undecided (both it and its image possible).
    func placementUndecided(_ filter: TagFilter) -> Bool {
        guard let plane = anchorPlane else { return false }
        let p = filter.position
        let sn = normalStd(filter, plane.normal)
        return isPossible(p, std: sn) && isPossible(plane.mirror(of: p), std: sn)
    }

    /// The filter's position σ along `n` (metres).
    private func normalStd(_ f: TagFilter, _ n: Vec3) -> Double {
        var v = 0.0
        for i in 0..<3 { for j in 0..<3 { v += n[i] * f.cov(i, j) * n[j] } }
        return max(0, v).squareRoot()
    }

    /// True when a tag can be at `p`: horizontally within the grown bounds (as `isInside`), vertically
    /// between the floor and the ceiling and within the height range, each with `mirrorMargin` plus
    /// 2 `std`.
    func isPossible(_ p: Vec3, std: Double) -> Bool {
        guard p.isFinite, p.x >= insideLow.x, p.x <= insideHigh.x, p.y >= insideLow.y, p.y <= insideHigh.y else {
            return false
        }
        let m = Self.mirrorMargin + Self.mirrorStdK * std
        let b = site.bounds
        guard p.z >= b.min.z - m, p.z <= b.max.z + m else { return false }
        if let range = heightRange, p.z < range.lowerBound - m || p.z > range.upperBound + m { return false }
        return true
    }

    /// The estimate's share of an undecided side: the image, and the covariance grown along the normal
    /// by the squared distance from the plane.
    func addMirror(to estimate: inout PositionEstimate) {
        guard let plane = anchorPlane else { return }
        let s = plane.distance(estimate.position), n = plane.normal
        estimate.mirror = plane.mirror(of: estimate.position)
        let v = s * s
        estimate.covXX += v * n.x * n.x; estimate.covXY += v * n.x * n.y; estimate.covYY += v * n.y * n.y
        estimate.covXZ += v * n.x * n.z; estimate.covYZ += v * n.y * n.z; estimate.covZZ += v * n.z * n.z
    }
}
