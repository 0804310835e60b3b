internal import Numerics

/// Where a tag last failed the bias round's geometry test, and by how much: while the tag stays close
/// to that place with the same eligible anchors, the test is known to fail again.
///
/// Moving the tag by `δ` turns each unit gradient `g` by an angle whose sine is at most `δ / n` (`n` the
/// anchor's distance), and changes `g·gᵀ` by at most that in spectral norm, so the smallest eigenvalue
/// of `Σ g·gᵀ` changes by at most `δ · Σ 1/n` (Weyl). The test stays failed while that is less than
/// the `slack` by which it failed, less a margin for rounding: 4e-6 of the trace (the number of
/// gradients), far above the error of the trigonometric eigenvalue formula (about √ε of the matrix's
/// scale where two eigenvalues meet).
struct GeometryFailure: Sendable {
    /// The tag's position at the failed test (site frame, m).
    var position: Vec3
    /// The eligible anchors then (bit `a` for anchor `a`).
    var anchors: UInt64
    /// `Σ 1/n` over those anchors (1/m).
    var sensitivity: Double
    /// The nearest anchor's distance (m).
    var nearest: Double
    /// Threshold minus the smallest eigenvalue then.
    var slack: Double
    /// Number of gradients (the trace of `Σ g·gᵀ` in 3-D), for the rounding margin.
    var count: Int
    /// The margin for rounding, per unit of the trace (see above).
    static let roundingMargin = 4e-6

    /// True when the test would fail again at `p` with the eligible anchors `mask`.
    func holds(at p: Vec3, anchors mask: UInt64) -> Bool {
        guard mask == anchors else { return false }
        let moved = (p - position).norm
        // No anchor can have come within `rangeGradient`'s `minGradientDistance`.
        guard moved < nearest - TrackerContext.minGradientDistance else { return false }
        return moved * sensitivity + Self.roundingMargin * Double(count) < slack
    }
}
