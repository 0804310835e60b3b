public import Positioning
import Wire

/// The timestamps the live service accepts: at most `ahead` after the time it received the lines,
/// and at most `behind` before it. A line outside is refused as `clock_skew` before the engine sees it,
/// so that a gateway whose clock is wrong cannot move its tags' filters into the future.
///
/// A line without a timestamp gets the receive time (`TimestampPolicy.defaultTo(reference)`), which
/// is inside every window.
public struct TimestampWindow: Sendable, Equatable {
    /// The server's receive time, Unix nanoseconds.
    public let reference: Nanoseconds
    /// How far after `reference` a timestamp may be, nanoseconds (nil: no limit).
    public let ahead: Nanoseconds?
    /// How far before `reference` a timestamp may be, nanoseconds (nil: no limit).
    public let behind: Nanoseconds?
    /// The latest and earliest accepted timestamps (saturated at the ends of `Int64`).
    let latest: Nanoseconds
    let earliest: Nanoseconds

    /// - Parameters:
    ///   - reference: the server's receive time, Unix nanoseconds.
    ///   - ahead: the largest accepted lead, nanoseconds, not negative (nil: no limit).
    ///   - behind: the largest accepted lag, nanoseconds, not negative (nil: no limit).
    public init(reference: Nanoseconds, ahead: Nanoseconds?, behind: Nanoseconds?) {
        self.reference = reference
        self.ahead = ahead.map { max($0, 0) }
        self.behind = behind.map { max($0, 0) }
        latest = self.ahead.map { let (t, o) = reference.addingReportingOverflow($0); return o ? .max : t } ?? .max
        earliest = self.behind.map { let (t, o) = reference.subtractingReportingOverflow($0); return o ? .min : t } ?? .min
    }

    /// True when `time` (Unix nanoseconds) is inside the window.
    @inline(__always)
    public func contains(_ time: Nanoseconds) -> Bool { time <= latest && time >= earliest }

    /// The refusal of a line stamped `time`, outside the window: the timestamp, how far it is from the
    /// server's clock, the limit, and what to check.
    /// - Parameters:
    ///   - line: the line's number on its connection.
    ///   - time: the line's timestamp, Unix nanoseconds.
    public func rejection(line: Int, time: Nanoseconds) -> LineRejection {
        // Exact in Int64 when it fits (Doubles of Unix times are 256 ns apart); in Double only beyond.
        let (difference, overflow) = time.subtractingReportingOverflow(reference)
        let offset = (overflow ? Double(time) - Double(reference) : Double(difference)) / 1e9
        let isAhead = offset > 0
        let limit = Double((isAhead ? ahead : behind) ?? 0) / 1e9
        let stamp = TimeText.iso8601(time, fractionDigits: 3)
        let message = "line \(line): timestamp \(stamp) is \(Self.tenths(offset.magnitude)) s "
            + (isAhead ? "ahead of" : "behind") + " the server's clock (limit \(Self.seconds(limit)) s); "
            + (isAhead ? "is the gateway's clock set (NTP)?" : "is the gateway's clock set (NTP), or is it sending stored lines?")
        return LineRejection(line: line, key: "clock_skew", message: message, clockOffset: offset)
    }

    /// `3600.0`: seconds to one decimal (below 1.9e19 ns, the largest gap of two `Int64` times).
    static func tenths(_ seconds: Double) -> String {
        let t = Int64((seconds * 10).rounded())
        return "\(t / 10).\(t % 10)"
    }

    /// `2` for a whole number of seconds, `0.25` otherwise.
    static func seconds(_ s: Double) -> String {
        s == s.rounded() && s.magnitude < 1e15 ? String(Int64(s)) : String(s)
    }
}
