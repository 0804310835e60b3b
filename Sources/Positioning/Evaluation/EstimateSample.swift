public import Numerics

/// A position covariance in the site frame, m²: the upper triangle of the symmetric 3×3 matrix.
/// On 2-D sites only xx, xy, yy are used.
public struct PositionCovariance: Sendable, Equatable {
    /// Horizontal block, m².
    public var xx: Double, xy: Double, yy: Double
    /// Height terms, m² (zero on 2-D sites).
    public var xz: Double, yz: Double, zz: Double

    /// - Parameters: the entries in m²; the z terms default to 0 (2-D).
    public init(xx: Double, xy: Double, yy: Double, xz: Double = 0, yz: Double = 0, zz: Double = 0) {
        self.xx = xx; self.xy = xy; self.yy = yy; self.xz = xz; self.yz = yz; self.zz = zz
    }

    /// The squared Mahalanobis distance of a horizontal error (ex, ey) under the 2×2 block;
    /// nil when that block is not positive definite.
    public func mahalanobis2(_ ex: Double, _ ey: Double) -> Double? {
        let det = xx * yy - xy * xy
        guard xx > 0, det > 0, det.isFinite else { return nil }
        return (yy * ex * ex - 2 * xy * ex * ey + xx * ey * ey) / det
    }

    /// The squared Mahalanobis distance of a 3-D error under the full matrix (by Cholesky);
    /// nil when the matrix is not positive definite.
    public func mahalanobis2(_ e: Vec3) -> Double? {
        // L·Lᵀ = C, then solve L·w = e; the distance is |w|².
        guard xx > 0 else { return nil }
        let l11 = xx.squareRoot()
        let l21 = xy / l11, l31 = xz / l11
        let d22 = yy - l21 * l21
        guard d22 > 0 else { return nil }
        let l22 = d22.squareRoot()
        let l32 = (yz - l31 * l21) / l22
        let d33 = zz - l31 * l31 - l32 * l32
        guard d33 > 0, d33.isFinite else { return nil }
        let l33 = d33.squareRoot()
        let w1 = e.x / l11
        let w2 = (e.y - l21 * w1) / l22
        let w3 = (e.z - l31 * w1 - l32 * w2) / l33
        return w1 * w1 + w2 * w2 + w3 * w3
    }
}

/// One position estimate to evaluate: what the engine said, where and when, optionally how sure.
public struct EstimateSample: Sendable, Equatable {
    /// Site id.
    public var site: String
    /// Tag id.
    public var tag: String
    /// Unix nanoseconds.
    public var time: Nanoseconds
    /// Estimated position in the site frame, metres.
    public var position: Vec3
    /// The estimate's position covariance, when the source carried one (needed for `coverage95`).
    public var covariance: PositionCovariance?

    /// - Parameters: ids, time in Unix nanoseconds, site-frame position in metres, optional covariance (m²).
    public init(site: String, tag: String, time: Nanoseconds, position: Vec3, covariance: PositionCovariance? = nil) {
        self.site = site; self.tag = tag; self.time = time; self.position = position; self.covariance = covariance
    }

    /// The sample of an engine output, with its covariance.
    public init(_ estimate: PositionEstimate) {
        self.init(site: estimate.site, tag: estimate.tag, time: estimate.time, position: estimate.position,
                  covariance: PositionCovariance(xx: estimate.covXX, xy: estimate.covXY, yy: estimate.covYY,
                                                 xz: estimate.covXZ, yz: estimate.covYZ, zz: estimate.covZZ))
    }
}
