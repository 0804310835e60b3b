public import Positioning
internal import Numerics

/// Encodes engine outputs as JSON objects, one per output, for the web, MQTT and REST transports:
///
///     {"type":"position","site":"S","tag":"T","time":"2026-12-02T03:04:05.123456789Z","timeNs":"1796180645123456789",
///      "x":..,"y":..,"z":..,"vx":..,"vy":..,"vz":..,"sigma":..,"cov":{"xx":..,"xy":..,"yy":..[,"xz":..,"yz":..,"zz":..]},
///      "anchors":4,"motion":"moving"[,"mirror":{"x":..,"y":..,"z":..}]}
///     {"type":"proximity","site":"S","tag":"T","anchor":"A","time":..,"timeNs":..,"distance":..[,"azimuth":..]}
///     {"type":"removed","site":"S","tag":"T","time":..,"timeNs":..,"reason":"timeout"|"peerEnded"}
///     {"type":"zone","site":"S","tag":"T","zone":"Z","time":..,"timeNs":..,"event":"enter"|"exit"}
///
/// Numbers have the line protocol's precision (`OutputEncoder`): metres and m/s with 4 decimals,
/// `sigma` (m) and covariances (m²) with 6 significant digits, the azimuth (radians, anchor frame) with
/// 6 decimals; the 3-D covariance terms only when `covZZ > 0`. `time` is ISO 8601 UTC with all nine
/// fraction digits; `timeNs` the same instant as Unix nanoseconds in a string, so that JavaScript,
/// whose numbers are doubles, loses no precision. No newline is appended.
public enum OutputJSON {
    /// Appends one output as a JSON object.
    /// - Parameters:
    ///   - output: the engine output.
    ///   - buffer: receives the object.
    /// - Returns: false, with nothing appended, when a number is not finite (JSON has no NaN).
    @discardableResult
    public static func append(_ output: Output, to buffer: inout [UInt8]) -> Bool {
        switch output {
        case .position(let p):
            guard p.position.isFinite, p.velocity.isFinite, p.covXX.isFinite, p.covXY.isFinite, p.covYY.isFinite,
                  p.covXZ.isFinite, p.covYZ.isFinite, p.covZZ.isFinite else { return false }
            head("position", site: p.site, tag: p.tag, to: &buffer)
            time(p.time, to: &buffer)
            metres("x", p.position.x, &buffer)
            metres("y", p.position.y, &buffer)
            metres("z", p.position.z, &buffer)
            metres("vx", p.velocity.x, &buffer)
            metres("vy", p.velocity.y, &buffer)
            metres("vz", p.velocity.z, &buffer)
            // As in line protocol: sigma from the clamped variances.
            significant("sigma", (0.5 * (max(0, p.covXX) + max(0, p.covYY))).squareRoot(), &buffer)
            buffer.append(",\"cov\":{")
            significant("xx", p.covXX, &buffer, first: true)
            significant("xy", p.covXY, &buffer)
            significant("yy", p.covYY, &buffer)
            if p.covZZ > 0 {
                significant("xz", p.covXZ, &buffer)
                significant("yz", p.covYZ, &buffer)
                significant("zz", p.covZZ, &buffer)
            }
            buffer.append("},\"anchors\":")
            buffer.appendInteger(Int64(p.anchors))
            buffer.append(",\"motion\":")
            switch p.motion {
            case .moving: buffer.append("\"moving\"")
            case .stationary: buffer.append("\"stationary\"")
            case .unknown: buffer.append("\"unknown\"")
            }
            if let m = p.mirror, m.isFinite {
                buffer.append(",\"mirror\":{")
                metres("x", m.x, &buffer, first: true)
                metres("y", m.y, &buffer)
                metres("z", m.z, &buffer)
                buffer.append(0x7D /* } */)
            }
        case .proximity(let site, let tag, let anchor, let distance, let azimuth, let t):
            guard distance.isFinite, azimuth?.isFinite ?? true else { return false }
            head("proximity", site: site, tag: tag, to: &buffer)
            buffer.append(",\"anchor\":")
            JSONText.appendQuoted(anchor, to: &buffer)
            time(t, to: &buffer)
            metres("distance", distance, &buffer)
            if let azimuth {
                key("azimuth", &buffer)
                FixedDecimal.append(azimuth, decimals: OutputEncoder.angleDecimals, to: &buffer)
            }
        case .removed(let site, let tag, let reason, let t):
            head("removed", site: site, tag: tag, to: &buffer)
            time(t, to: &buffer)
            buffer.append(",\"reason\":")
            JSONText.appendQuoted(reason.rawValue, to: &buffer)
        case .zone(let site, let tag, let zone, let event, let t):
            head("zone", site: site, tag: tag, to: &buffer)
            buffer.append(",\"zone\":")
            JSONText.appendQuoted(zone, to: &buffer)
            time(t, to: &buffer)
            buffer.append(",\"event\":")
            JSONText.appendQuoted(event.rawValue, to: &buffer)
        }
        buffer.append(0x7D /* } */)
        return true
    }

    /// One output as a JSON string, or nil when it cannot be written (see `append`).
    public static func encode(_ output: Output) -> String? {
        var bytes: [UInt8] = []
        guard append(output, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends Unix nanoseconds as ISO 8601 UTC with nine fraction digits, unquoted:
    /// `2026-12-02T03:04:05.123456789Z` (the proleptic Gregorian calendar, years of four digits or more).
    public static func appendISO8601(_ t: Nanoseconds, to buffer: inout [UInt8]) {
        // Floor division: the remainder of a negative time is negative.
        var seconds = t / 1_000_000_000, fraction = t % 1_000_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000_000 }
        var days = seconds / 86_400, rest = seconds % 86_400
        if rest < 0 { days -= 1; rest += 86_400 }
        let (y, m, d) = TimeText.civilFromDays(Int(days))
        if y < 0 { buffer.append(ASCII.minus) }
        digits(Int64(abs(y)), width: 4, &buffer)
        buffer.append(ASCII.minus)
        digits(Int64(m), width: 2, &buffer)
        buffer.append(ASCII.minus)
        digits(Int64(d), width: 2, &buffer)
        buffer.append(0x54) // T
        digits(rest / 3600, width: 2, &buffer)
        buffer.append(0x3A /* : */)
        digits(rest / 60 % 60, width: 2, &buffer)
        buffer.append(0x3A /* : */)
        digits(rest % 60, width: 2, &buffer)
        buffer.append(ASCII.dot)
        digits(fraction, width: 9, &buffer)
        buffer.append(0x5A) // Z
    }

    // MARK: - Pieces

    private static func head(_ type: StaticString, site: String, tag: String, to buffer: inout [UInt8]) {
        buffer.append("{\"type\":\"")
        buffer.append(type)
        buffer.append("\",\"site\":")
        JSONText.appendQuoted(site, to: &buffer)
        buffer.append(",\"tag\":")
        JSONText.appendQuoted(tag, to: &buffer)
    }

    private static func time(_ t: Nanoseconds, to buffer: inout [UInt8]) {
        buffer.append(",\"time\":\"")
        appendISO8601(t, to: &buffer)
        buffer.append("\",\"timeNs\":\"")
        buffer.appendInteger(t)
        buffer.append(ASCII.quote)
    }

    @inline(__always)
    private static func key(_ name: StaticString, _ buffer: inout [UInt8], first: Bool = false) {
        if !first { buffer.append(ASCII.comma) }
        buffer.append(ASCII.quote)
        buffer.append(name)
        buffer.append("\":")
    }

    @inline(__always)
    private static func metres(_ name: StaticString, _ value: Double, _ buffer: inout [UInt8], first: Bool = false) {
        key(name, &buffer, first: first)
        FixedDecimal.append(value, decimals: OutputEncoder.metreDecimals, to: &buffer)
    }

    @inline(__always)
    private static func significant(_ name: StaticString, _ value: Double, _ buffer: inout [UInt8],
                                    first: Bool = false) {
        key(name, &buffer, first: first)
        FixedDecimal.append(value, significantDigits: OutputEncoder.covarianceDigits, to: &buffer)
    }

    /// Appends `value` (≥ 0) in decimal, zero-padded to at least `width` digits.
    private static func digits(_ value: Int64, width: Int, _ buffer: inout [UInt8]) {
        var count = 1, power: Int64 = 1  // power = 10^(count-1) ≤ value
        while count < 18 && value / power >= 10 { count += 1; power *= 10 }
        while count < width { count += 1; power *= 10 }
        var v = value
        for _ in 0..<count {
            buffer.append(ASCII.zero + UInt8(v / power))
            v %= power
            power /= 10
        }
    }
}
