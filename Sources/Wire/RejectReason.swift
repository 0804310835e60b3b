/// Why an ingest line was rejected. Each case has a stable snake_case `key` (for counters and logs) and a
/// `message` a user can act on.
///
/// These are the decoder's reasons. The engine refuses decoded events for its own reasons
/// (`EngineRejection` in Positioning: `unknown_site`, `unknown_anchor`, …) with keys in the same style;
/// count both in one `RejectionCounter` (`record(_:)` for these, `record(key:)` for the engine's).
public enum RejectReason: Error, Sendable, Equatable {
    /// The line is not valid line protocol; the detail says where and why.
    case malformed(LineError)
    /// The line was longer than the splitter's limit (bytes) and was skipped.
    case lineTooLong(limit: Int)
    /// The measurement is none of `ranging`, `motion`, `removed`, `session`.
    case unknownMeasurement(String)
    case missingTag(String)
    case missingField(String)
    /// A field has the wrong type, e.g. a string where a number is expected.
    case badFieldType(field: String, expected: String, found: String)
    case negativeDistance(Double)
    /// A numeric field is NaN or infinite.
    case nonFinite(field: String, value: Double)
    /// A distance above the decoder's limit (metres).
    case absurdDistance(Double, limit: Double)
    /// `std` outside `Anchor.rangeStdLimits` (0.1 mm … 1 km).
    case badStd(Double)
    /// `azimuth` outside [-π, π] or `elevation` outside [-π/2, π/2] (radians).
    case badAngle(field: String, value: Double)
    /// `dir_x, dir_y, dir_z` has a norm outside 1 ± 0.05.
    case directionNotUnit(norm: Double)
    /// A `ranging` line with neither a distance nor a direction.
    case noMeasurement
    /// A tag or string field has a value outside its set, e.g. `tech=wifi`.
    case badValue(name: String, value: String, expected: String)
    /// No timestamp where one is required (replay).
    case missingTimestamp
    /// A timestamp in `precision` units beyond what `Int64` nanoseconds hold.
    case timestampOutOfRange(Int64, precision: TimestampPrecision)
    /// An id (`site`, `anchor`, `tag`) holds a control character (NUL, tab, CR, LF, ESC, DEL…).
    case controlCharacter(name: String, value: String)

    /// Every key, in declaration order, so counters can be created up front.
    public static let allKeys: [String] = [
        "malformed", "line_too_long", "unknown_measurement", "missing_tag", "missing_field",
        "bad_field_type", "negative_distance", "non_finite", "absurd_distance", "bad_std", "bad_angle",
        "direction_not_unit", "no_measurement", "bad_value", "missing_timestamp", "control_character", "timestamp_out_of_range",
    ]

    /// The stable snake_case name of the reason, e.g. `negative_distance`.
    public var key: String {
        switch self {
        case .malformed: "malformed"
        case .lineTooLong: "line_too_long"
        case .unknownMeasurement: "unknown_measurement"
        case .missingTag: "missing_tag"
        case .missingField: "missing_field"
        case .badFieldType: "bad_field_type"
        case .negativeDistance: "negative_distance"
        case .nonFinite: "non_finite"
        case .absurdDistance: "absurd_distance"
        case .badStd: "bad_std"
        case .badAngle: "bad_angle"
        case .directionNotUnit: "direction_not_unit"
        case .noMeasurement: "no_measurement"
        case .badValue: "bad_value"
        case .missingTimestamp: "missing_timestamp"
        case .controlCharacter: "control_character"
        case .timestampOutOfRange: "timestamp_out_of_range"
        }
    }

    /// What is wrong, without the line number, e.g. `field 'distance' is negative (-143.0)`.
    public var message: String {
        switch self {
        case .malformed(let e): "malformed line: \(e)"
        case .lineTooLong(let limit): "line is longer than \(limit) bytes; skipped"
        case .unknownMeasurement(let m):
            "unknown measurement '\(m)' (expected ranging, motion, removed or session)"
        case .missingTag(let t): "missing tag '\(t)'"
        case .missingField(let f): "missing field '\(f)'"
        case .badFieldType(let f, let expected, let found): "field '\(f)' must be \(expected), not \(found)"
        case .negativeDistance(let d): "field 'distance' is negative (\(d))"
        case .nonFinite(let f, let v): "field '\(f)' is not finite (\(v))"
        case .absurdDistance(let d, let limit): "field 'distance' is \(d) m, above the \(limit) m limit"
        case .badStd(let s): "field 'std' must be between 0.0001 and 1000 metres (\(s))"
        case .badAngle(let f, let v):
            "field '\(f)' is outside \(f == "elevation" ? "[-π/2, π/2]" : "[-π, π]") radians (\(v))"
        case .directionNotUnit(let n): "direction (dir_x, dir_y, dir_z) has norm \(n), not within 1 ± 0.05"
        case .noMeasurement: "ranging line has neither 'distance' nor a direction"
        case .badValue(let name, let value, let expected): "'\(name)' has unknown value '\(value)' (expected \(expected))"
        case .missingTimestamp: "missing timestamp (required when replaying)"
        case .timestampOutOfRange(let t, let precision):
            "timestamp \(t) in \(precision.rawValue) is beyond the year 2262, the last time Int64 nanoseconds hold"
        case .controlCharacter(let name, let value):
            "tag '\(name)' holds a control character (\(Self.escaped(value))); ids may not contain NUL, tab, CR, LF, "
                + "ESC or other control characters"
        }
    }

    /// `value` with each control character written as `\xNN`, safe to print or log.
    static func escaped(_ value: String) -> String {
        var out = ""
        for u in value.unicodeScalars {
            if u.value < 0x20 || u.value == 0x7F {
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}

/// A rejected line: where and why.
public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line number in the stream or file.
    public var line: Int
    public var reason: RejectReason

    public init(line: Int, reason: RejectReason) {
        self.line = line
        self.reason = reason
    }

    /// E.g. `line 812: field 'distance' is negative (-143.0)`.
    public var message: String { "line \(line): \(reason.message)" }
    public var description: String { message }
}
