/// Byte-level parsing of field values and timestamps, without going through `String` on the common path.
enum NumberParsing {
    /// 10^k for k in 0…22: the powers of ten that are exact doubles (1e22 for any other k).
    @inline(__always)
    static func pow10(_ k: Int) -> Double {
        UInt(bitPattern: k) <= 22 ? powersOfTen[k] : 1e22
    }

    /// A table, not a `switch`: the optimiser turns this one into a load, a `switch` into a jump table.
    private static let powersOfTen: InlineArray<23, Double> = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// Classifies and decodes an unquoted field value in `b[s..<e]` (non-empty): boolean, `12i`, `12u`
    /// or a float. Returns nil when it is none of those.
    static func fieldValue(_ b: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> RawFieldValue? {
        if let flag = boolean(b, s, e) { return .boolean(flag) }
        switch b[e - 1] {
        case 0x69: return int64(b, s, e - 1).map(RawFieldValue.integer)   // 'i'
        case 0x75: return uint64(b, s, e - 1).map(RawFieldValue.unsigned) // 'u'
        default: return double(b, s, e).map(RawFieldValue.float)
        }
    }

    /// `t T true True TRUE f F false False FALSE`.
    static func boolean(_ b: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Bool? {
        let span = ByteSpan(start: s, end: e, escape: .none)
        switch e - s {
        case 1:
            switch b[s] {
            case 0x74, 0x54: return true  // t T
            case 0x66, 0x46: return false // f F
            default: return nil
            }
        case 4:
            if b.matches(span, "true") || b.matches(span, "True") || b.matches(span, "TRUE") { return true }
            return nil
        case 5:
            if b.matches(span, "false") || b.matches(span, "False") || b.matches(span, "FALSE") { return false }
            return nil
        default:
            return nil
        }
    }

    /// `-?[0-9]+` as Int64; nil on bad syntax or overflow.
    static func int64(_ b: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Int64? {
        var j = s
        let negative = j < e && b[j] == ASCII.minus
        if negative { j += 1 }
        guard let magnitude = uint64(b, j, e) else { return nil }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// `[0-9]+` as UInt64; nil on bad syntax or overflow.
    static func uint64(_ b: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> UInt64? {
        guard s < e else { return nil }
        var value: UInt64 = 0
        if e - s <= 19 {
            // Up to 19 digits cannot overflow (10¹⁹ − 1 < 2⁶⁴): no overflow checks (nanosecond timestamps).
            for j in s..<e {
                let d = b[j] &- ASCII.zero
                guard d < 10 else { return nil }
                value = value &* 10 &+ UInt64(d)
            }
            return value
        }
        for j in s..<e {
            let d = b[j] &- ASCII.zero
            guard d < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(d))
            if o1 || o2 { return nil }
            value = sum
        }
        return value
    }

    /// A float: `[-+]?(d+(.d*)?|.d+)([eE][-+]?d+)?`, plus `nan`, `inf` and `infinity` in any case (so a
    /// gateway's non-finite value is reported as such rather than as a syntax error).
    /// Correctly rounded: an exact, allocation-free fast path for ≤ 15 significant digits and
    /// |exponent| ≤ 22 (every value a gateway sends with a few decimals); otherwise the standard library's
    /// parser, which costs a short-lived String when the text is longer than 15 bytes.
    static func double(_ b: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Double? {
        var j = s
        var negative = false
        if j < e, b[j] == ASCII.minus || b[j] == ASCII.plus {
            negative = b[j] == ASCII.minus
            j += 1
        }
        guard j < e else { return nil }
        if b[j] | 0x20 == 0x6E || b[j] | 0x20 == 0x69 { // n or i
            guard let special = nonFinite(b, j, e) else { return nil }
            return negative ? -special : special
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        var inexact = false
        while j < e, b[j] &- ASCII.zero < 10 {
            let d = UInt64(b[j] &- ASCII.zero)
            sawDigit = true
            if mantissa != 0 || d != 0 {
                if digits < 19 { mantissa = mantissa * 10 + d; digits += 1 } else { exponent += 1; inexact = true }
            }
            j += 1
        }
        if j < e, b[j] == ASCII.dot {
            j += 1
            while j < e, b[j] &- ASCII.zero < 10 {
                let d = UInt64(b[j] &- ASCII.zero)
                sawDigit = true
                if mantissa == 0 && d == 0 {
                    exponent -= 1
                } else if digits < 19 {
                    mantissa = mantissa * 10 + d; digits += 1; exponent -= 1
                } else {
                    inexact = true
                }
                j += 1
            }
        }
        guard sawDigit else { return nil }
        if j < e, b[j] | 0x20 == 0x65 { // e or E
            j += 1
            var expNegative = false
            if j < e, b[j] == ASCII.minus || b[j] == ASCII.plus {
                expNegative = b[j] == ASCII.minus
                j += 1
            }
            guard j < e else { return nil }
            var value = 0
            while j < e, b[j] &- ASCII.zero < 10 {
                if value < 100_000 { value = value * 10 + Int(b[j] &- ASCII.zero) }
                j += 1
            }
            exponent += expNegative ? -value : value
        }
        guard j == e else { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if !inexact && digits <= 15 && exponent >= -22 && exponent <= 22 {
            let m = Double(mantissa)
            let v = exponent < 0 ? m / pow10(-exponent) : m * pow10(exponent)
            return negative ? -v : v
        }
        return Double(b.text(s, e))
    }

    /// `nan`, `inf`, `infinity`, case-insensitive.
    private static func nonFinite(_ b: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> Double? {
        var lower: [UInt8] = []
        for j in s..<e { lower.append(b[j] | 0x20) }
        switch lower {
        case Array("nan".utf8): return .nan
        case Array("inf".utf8), Array("infinity".utf8): return .infinity
        default: return nil
        }
    }
}
