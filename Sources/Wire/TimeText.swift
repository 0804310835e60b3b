public import Positioning

/// Times as users type them: ISO 8601 date-times or Unix nanoseconds.
public enum TimeText {
    /// Parses a time, exactly to the nanosecond.
    ///
    /// Accepts Unix nanoseconds (`1795961100000000000`, optionally negative) or an ISO 8601 date-time
    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` (a space may replace `T`; up to 9 fraction
    /// digits; an offset is required, so that a time never depends on the machine's zone), and the
    /// date alone (`YYYY-MM-DD`, midnight UTC).
    /// - Parameter text: the time.
    /// - Returns: Unix nanoseconds, or nil when the text is neither form or out of range.
    public static func parse(_ text: String) -> Nanoseconds? {
        if let ns = Int64(text) { return ns }
        let b = Array(text.utf8)
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var v = 0
            for k in i..<(i + count) {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += count
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        if i == b.count { return days * 86_400_000_000_000 }
        guard expect(84) || expect(116) || expect(32), let hour = digits(2), expect(58), let minute = digits(2),
              expect(58), let second = digits(2), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction: Int64 = 0
        if expect(46) || expect(44) {
            var count = 0
            while i < b.count, b[i] >= 48 && b[i] <= 57 {
                guard count < 9 else { return nil }
                fraction = fraction * 10 + Int64(b[i] - 48)
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<9 { fraction *= 10 }
        }
        var offset = 0
        if expect(90) || expect(122) {
        } else if i < b.count, b[i] == 43 || b[i] == 45 {
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = expect(58)
            guard let om = digits(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (total, overflow2) = ns.addingReportingOverflow(fraction)
        return overflow2 ? nil : total
    }

    /// Formats Unix nanoseconds as ISO 8601 UTC, e.g. `2026-11-30T14:05:00.000000000Z`, the fraction
    /// truncated to `fractionDigits` digits (`2026-11-30T14:05:00.000Z` with 3; none with 0).
    /// - Parameters:
    ///   - time: Unix nanoseconds.
    ///   - fractionDigits: digits of the fraction of a second, 0 to 9 (default 9: exact).
    public static func iso8601(_ time: Nanoseconds, fractionDigits: Int = 9) -> String {
        // Floor division by remainder: `seconds * 1e9` would overflow for the earliest `Int64` times.
        var seconds = time / 1_000_000_000, fraction = time % 1_000_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000_000 }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds + 1) / 86_400 - 1
        let rest = Int(seconds - days * 86_400)
        let (y, m, d) = civilFromDays(Int(days))
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let digits = min(max(fractionDigits, 0), 9)
        var divisor = 1
        for _ in digits..<9 { divisor *= 10 }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2))"
            + (digits == 0 ? "" : ".\(pad(Int(fraction) / divisor, digits))") + "Z"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
