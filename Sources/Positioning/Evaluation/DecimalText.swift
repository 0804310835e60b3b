/// Byte-level number parsing and fixed-point formatting for the CSV files of the evaluation, without
/// Foundation and without a `String` per field on the common path.
enum DecimalText {
    /// Exact powers of ten representable in a Double (10^0 … 10^22).
    private static let powersOfTen: [Double] = (0...22).map { e in
        var p = 1.0
        for _ in 0..<e { p *= 10 }
        return p
    }

    /// Parses an optionally signed decimal integer; nil on any other byte or on overflow.
    static func parseInt64(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = s.startIndex
        guard i < s.endIndex else { return nil }
        let negative = s[i] == UInt8(ascii: "-")
        if negative || s[i] == UInt8(ascii: "+") { i += 1 }
        guard i < s.endIndex else { return nil }
        var value: Int64 = 0
        while i < s.endIndex {
            let d = s[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (v, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            value = v
            i += 1
        }
        return value
    }

    /// Parses a finite decimal number ("-1.25", "3", "1e-5"); nil when malformed or not finite.
    /// Plain decimals of up to 15 significant digits are converted exactly (one correctly rounded
    /// division); anything else falls back to the standard library's parser.
    static func parseDouble(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = s.startIndex
        guard i < s.endIndex else { return nil }
        let negative = s[i] == UInt8(ascii: "-")
        if negative || s[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0, digits = 0, fraction = 0, seenDot = false, simple = true
        while i < s.endIndex {
            let c = s[i]
            if c == UInt8(ascii: ".") && !seenDot {
                seenDot = true
            } else if c &- UInt8(ascii: "0") < 10 {
                if mantissa != 0 || c != UInt8(ascii: "0") { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(c &- UInt8(ascii: "0"))
                if seenDot { fraction += 1 }
            } else {
                simple = false
                break
            }
            i += 1
        }
        if simple && digits <= 15 && fraction <= 22 && (i - s.startIndex) > (negative ? 1 : 0) + (seenDot ? 1 : 0) {
            let v = Double(mantissa) / powersOfTen[fraction]
            return negative ? -v : v
        }
        guard let v = Double(String(decoding: s, as: UTF8.self)), v.isFinite else { return nil }
        return v
    }

    /// Appends `v` with exactly `decimals` digits after the point ("-1.2500"); values too large for the
    /// fixed-point path, and non-finite ones, use the shortest round-trip form.
    static func appendFixed(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        let d = Swift.max(0, Swift.min(decimals, 15))
        let scale = powersOfTen[d]
        guard v.isFinite, abs(v) * scale < 9e15 else {
            out.append(contentsOf: v.description.utf8)
            return
        }
        let scaled = Int64((v * scale).rounded())
        if scaled < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = UInt64(scaled.magnitude)
        let unit = UInt64(scale)
        appendDigits(magnitude / unit, minimumWidth: 1, to: &out)
        if d > 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(magnitude % unit, minimumWidth: d, to: &out)
        }
    }

    /// Appends a non-negative integer, left-padded with zeros to `minimumWidth` digits.
    static func appendDigits(_ value: UInt64, minimumWidth: Int, to out: inout [UInt8]) {
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes of scratch: 20 digits suffice
        withUnsafeMutableBytes(of: &buffer) { raw in
            var n = value, end = raw.count
            repeat {
                end -= 1
                raw[end] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0 || raw.count - end < minimumWidth
            out.append(contentsOf: raw[end...])
        }
    }

    /// Appends a signed integer.
    static func appendInt(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumWidth: 1, to: &out)
    }
}
