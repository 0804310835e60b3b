#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An 8-bit sRGB colour.
public struct RGB: Sendable, Equatable, Hashable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }

    public static let white = RGB(255, 255, 255)
    public static let black = RGB(0, 0, 0)
}

/// The colour scale of accuracy maps: σ in metres on a logarithmic axis from `low` to `high`, dark
/// green (good) through yellow (0.3 m) to dark red (bad); places without a fix are grey.
public struct ColorScale: Sendable, Equatable {
    /// The σ at the two ends of the scale, metres; values beyond are clamped.
    public var low: Double = 0.03, high: Double = 3
    /// The colour of places where no fix is possible.
    public static let noFix = RGB(150, 150, 150)
    /// Colour stops at fractions of the logarithmic axis (0.1 m, 0.3 m and 1 m fall near 0.26, 0.5, 0.76).
    static let stops: [(Double, RGB)] = [
        (0.0, RGB(0, 104, 55)), (0.26, RGB(102, 189, 99)), (0.5, RGB(254, 224, 139)),
        (0.76, RGB(244, 109, 67)), (1.0, RGB(165, 0, 38)),
    ]

    public init() {}

    /// The position of σ on the axis, 0…1 (clamped).
    public func fraction(_ sigma: Double) -> Double {
        let t = (log10(sigma) - log10(low)) / (log10(high) - log10(low))
        return max(0, min(1, t))
    }

    /// The σ at a position of the axis (0…1), metres.
    public func sigma(atFraction t: Double) -> Double {
        pow(10, log10(low) + t * (log10(high) - log10(low)))
    }

    /// The colour of an accuracy σ (metres); grey for an infinite or NaN σ (no fix).
    public func color(_ sigma: Double) -> RGB {
        guard sigma.isFinite else { return Self.noFix }
        return color(atFraction: fraction(sigma))
    }

    /// The colour at a position of the axis, 0…1.
    public func color(atFraction t: Double) -> RGB {
        let stops = Self.stops
        var i = 1
        while i < stops.count - 1 && t > stops[i].0 { i += 1 }
        let (t0, c0) = stops[i - 1], (t1, c1) = stops[i]
        let f = max(0, min(1, (t - t0) / (t1 - t0)))
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + f * (Double(b) - Double(a))).rounded()) }
        return RGB(mix(c0.r, c1.r), mix(c0.g, c1.g), mix(c0.b, c1.b))
    }

    /// Round values for the legend's ticks, metres.
    public var ticks: [Double] { [0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 3].filter { $0 >= low && $0 <= high } }
}
