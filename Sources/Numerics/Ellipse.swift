/// A 2-D uncertainty ellipse: semi-axes (metres) and the orientation of the major axis.
public struct Ellipse2: Sendable, Equatable {
    /// Standard deviation along the major axis, metres.
    public var major: Double
    /// Standard deviation along the minor axis, metres.
    public var minor: Double
    /// Angle of the major axis from the site +x axis, radians, counter-clockwise.
    public var angle: Double

    /// The 1-σ ellipse of a 2×2 covariance `[[xx, xy], [xy, yy]]` (m²), computed in closed form.
    public init(xx: Double, xy: Double, yy: Double) {
        let mean = 0.5 * (xx + yy)
        let d = (0.25 * (xx - yy) * (xx - yy) + xy * xy).squareRoot()
        major = max(mean + d, 0).squareRoot()
        minor = max(mean - d, 0).squareRoot()
        angle = 0.5 * atan2(2 * xy, xx - yy)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
