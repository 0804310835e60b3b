internal import Numerics

// Tag height range (a site's `tagHeightRange`, 3-D sites only).
//
// Anchors on walls and ceilings see a tag's height worst: most of their lines of sight are nearly
// horizontal, so a range constrains height only weakly, and under heavy NLOS a filter can settle
// metres above or below the tag, where the ranges it no longer fits look like blocked paths (see
// "A wrong solution held by NLOS handling" in docs/engine.md). Where the site knows between which heights
// its tags are carried (a forklift's forks, a worker's belt), that knowledge is an inequality
// constraint on the state. It is applied as the active-set form of a constrained Kalman filter: while
// the estimate is inside the range nothing happens; after a line that leaves it outside, one scalar
// update measures the height at the nearest edge of the range with σ `EngineConfig.tagHeightRangeStd`.
// The update goes through the filter's own (Joseph-form) kernel, so the covariance stays consistent,
// and velocity moves with the height through their correlation.
extension TrackerContext {
    /// A placement may lie outside the height range by this many `tagHeightRangeStd`.
    static let heightRangeMarginK = 3.0

    /// Pulls the track's filter back into the site's height range when it left it (no-op without a
    /// range, a filter, or while inside).
    @inline(__always)
    func holdHeight(_ track: inout TagTrack) {
        guard let range = heightRange, track.isPlaced, case let z = track.placedFilter.x[FilterState.z], z.isFinite
        else { return }
        let edge = range.clamping(z)
        guard edge != z else { return }
        let std = config.tagHeightRangeStd
        track.placedFilter.update(residual: edge - z, gradient: Vec3(0, 0, 1), measurementVariance: std * std)
    }

    /// Whether a placement's height is acceptable: within the site's height range, with a margin of
    /// `heightRangeMarginK` constraint σ (always true without a range).
    func isWithinHeightRange(_ p: Vec3) -> Bool {
        guard let range = heightRange else { return true }
        let margin = Self.heightRangeMarginK * config.tagHeightRangeStd
        return p.z >= range.lowerBound - margin && p.z <= range.upperBound + margin
    }
}
