internal import Positioning

/// The unit of the timestamps on ingest lines, as InfluxDB's `precision`: nanoseconds (the default),
/// microseconds, milliseconds or seconds since the Unix epoch. The decoder turns each timestamp into
/// nanoseconds; a line's missing timestamp (the receive time) is already in nanoseconds.
public enum TimestampPrecision: String, Sendable, CaseIterable {
    case ns, us, ms, s

    /// Nanoseconds per unit.
    @inlinable
    public var nanosecondsPerUnit: Int64 {
        switch self {
        case .ns: 1
        case .us: 1_000
        case .ms: 1_000_000
        case .s: 1_000_000_000
        }
    }

    /// The names, for messages: `ns, us, ms or s`.
    public static let names = "ns, us, ms or s"

    /// `timestamp` (in this unit) in nanoseconds.
    /// - Throws: `timestampOutOfRange` when it is beyond what `Int64` nanoseconds hold (year 2262).
    @inline(__always)
    func nanoseconds(_ timestamp: Int64) throws(RejectReason) -> Nanoseconds {
        if self == .ns { return timestamp }
        return try scaled(timestamp)
    }

    /// `nanoseconds` for a unit other than `ns`, out of the hot path.
    @inline(never)
    func scaled(_ timestamp: Int64) throws(RejectReason) -> Nanoseconds {
        let (t, overflow) = timestamp.multipliedReportingOverflow(by: nanosecondsPerUnit)
        if overflow { throw .timestampOutOfRange(timestamp, precision: self) }
        return t
    }
}
