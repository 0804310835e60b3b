/// Time arithmetic that cannot trap. Timestamps come from outside (gateways, files), so any of them
/// may be near either end of `Int64`: sums and differences saturate there instead of overflowing.
extension Nanoseconds {
    /// `self + other`, held at `Int64.min` / `Int64.max` instead of overflowing.
    @inline(__always)
    public func saturatingAdd(_ other: Nanoseconds) -> Nanoseconds {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at `Int64.min` / `Int64.max` instead of overflowing.
    @inline(__always)
    public func saturatingSubtract(_ other: Nanoseconds) -> Nanoseconds {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }

    /// Seconds from `earlier` to `self` (negative when `earlier` is later): exact in `Int64` when the
    /// difference fits, in `Double` beyond.
    @inline(__always)
    public func seconds(since earlier: Nanoseconds) -> Double {
        let (difference, overflow) = subtractingReportingOverflow(earlier)
        return (overflow ? Double(self) - Double(earlier) : Double(difference)) * 1e-9
    }

    /// A duration in seconds as nanoseconds, rounded toward zero and held at the ends of `Int64`
    /// (NaN gives 0): a setting of 1e300 s means "for ever", not a trap.
    /// - Parameter seconds: the duration, seconds.
    @inline(__always)
    public init(saturatingSeconds seconds: Double) {
        let ns = seconds * 1e9
        if ns.isNaN { self = 0 } else if ns >= 9.223372036854775e18 { self = .max }
        else if ns <= -9.223372036854775e18 { self = .min } else { self = Nanoseconds(ns) }
    }
}
