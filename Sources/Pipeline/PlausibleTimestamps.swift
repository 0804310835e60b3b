public import Positioning
public import Wire

/// The timestamps the live service takes as real: from 2000-01-01 to 2100-01-01 (UTC) once in
/// nanoseconds. A timestamp outside, sent in another unit than the connection's precision (a
/// millisecond clock on a nanosecond connection was stored as 1970), is refused before the engine
/// sees it, with a key that says which unit would have made it plausible: `timestamp_looks_like_s`,
/// `_ms`, `_us` or `_ns`, or `timestamp_implausible` when none does.
public struct PlausibleTimestamps: Sendable, Equatable {
    /// 2000-01-01T00:00:00Z and 2100-01-01T00:00:00Z, Unix nanoseconds.
    public static let earliest: Nanoseconds = 946_684_800_000_000_000
    public static let latest: Nanoseconds = 4_102_444_800_000_000_000

    /// Every key `rejection` may give, for counters made up front.
    public static let keys = TimestampPrecision.allCases.map { "timestamp_looks_like_\($0.rawValue)" } + ["timestamp_implausible"]

    /// The accepted range; always holds `reference` (the receive time given to lines without a
    /// timestamp), so a server clock outside it refuses no line that has none.
    public let range: ClosedRange<Nanoseconds>

    /// - Parameter reference: the server's receive time, Unix nanoseconds.
    public init(reference: Nanoseconds) {
        range = min(Self.earliest, reference)...max(Self.latest, reference)
    }

    @inline(__always)
    public func contains(_ time: Nanoseconds) -> Bool { range.contains(time) }

    /// The refusal of a line whose timestamp (`time`, decoded with `precision`) is outside the range.
    /// - Parameters:
    ///   - line: the line's number on its connection.
    ///   - time: the decoded timestamp, Unix nanoseconds.
    ///   - precision: the connection's precision.
    public func rejection(line: Int, time: Nanoseconds, precision: TimestampPrecision) -> LineRejection {
        let raw = time / precision.nanosecondsPerUnit
        let unit = TimestampPrecision.allCases.first { u in
            let (t, overflow) = raw.multipliedReportingOverflow(by: u.nanosecondsPerUnit)
            return !overflow && range.contains(t)
        }
        let stamp = TimeText.iso8601(time, fractionDigits: 3)
        var message = "line \(line): timestamp \(raw) read in \(precision.rawValue) is \(stamp), outside 2000–2100"
        if let unit {
            message += "; it looks like \(unit.name): send '#precision \(unit.rawValue)' first on the connection, "
                + "or set the gateway's unit to \(precision.rawValue)"
            return LineRejection(line: line, key: "timestamp_looks_like_\(unit.rawValue)", message: message)
        }
        message += " in every unit (ns, us, ms, s); is the gateway's clock set?"
        return LineRejection(line: line, key: "timestamp_implausible", message: message)
    }
}

extension TimestampPrecision {
    /// The unit's name, for messages: `milliseconds`.
    var name: String {
        switch self {
        case .ns: "nanoseconds"
        case .us: "microseconds"
        case .ms: "milliseconds"
        case .s: "seconds"
        }
    }
}
