/// Fast decimal formatting of doubles into a byte buffer, with integer arithmetic (no `String(format:)`).
///
/// Output is plain decimal (`-12.3456`, `0`, `1000000000`; never an exponent), with trailing zeros
/// and a bare `.` trimmed, and never `-0`. Rounding is correct (round half to even on exact ties, like
/// `printf`) while `|value| · 10^decimals < 2^52`; beyond that, decimals are dropped until it holds
/// (a double has no more digits to give: `0.1` with 17 decimals is written `0.1`).
/// Never emits NaN or infinity: NaN is written as `0`, ±infinity and magnitudes above `limit` as
/// ±`limit`. Encoders check finiteness first, so this clamping is a last line of defence.
public enum FixedDecimal {
    /// Largest magnitude written; larger values (and infinities) are clamped to it.
    public static let limit: Double = 1e18
    /// Largest number of decimals honoured.
    public static let maxDecimals = 17

    private static let exact: Double = 4_503_599_627_370_496 // 2^52
    /// The most bytes that one number written here takes (sign, point and 36 digits at most).
    static let maxLength = 48

    /// Appends `value` rounded to `decimals` places, trailing zeros trimmed.
    /// - Parameters:
    ///   - value: the number; see the type's notes on non-finite and huge values.
    ///   - decimals: places after the point, clamped to 0…`maxDecimals`.
    ///   - buffer: receives ASCII bytes.
    public static func append(_ value: Double, decimals: Int, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { scratch in
            let count = write(value, decimals: decimals, to: scratch.baseAddress!)
            buffer.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress!, count: count))
        }
    }

    /// Writes what `append(_:decimals:to:)` appends to `out` (room for `maxLength` bytes); returns the
    /// number of bytes written.
    @inline(__always)
    static func write(_ value: Double, decimals: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        // The usual case first: a finite value that keeps all its decimals (|value|·10^d < 2^52, which
        // NaN fails). The general path below then changes nothing before rounding.
        let d = Swift.max(0, Swift.min(decimals, maxDecimals))
        let scale = NumberParsing.pow10(d)
        let magnitude = value.magnitude
        if magnitude * scale < exact {
            return writeScaled(roundedScaled(magnitude, scale), decimals: d, negative: value < 0, to: out)
        }
        return writeClamped(value, decimals: decimals, to: out)
    }

    /// `write(_:decimals:to:)` for NaN, infinities and values too large to keep their decimals.
    private static func writeClamped(_ value: Double, decimals: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let a = value.isNaN ? 0 : Swift.min(value.magnitude, limit)
        var d = Swift.max(0, Swift.min(decimals, maxDecimals))
        while d > 0 && a * NumberParsing.pow10(d) >= exact { d -= 1 }
        let n: UInt64 = a >= exact ? UInt64(a) : roundedScaled(a, NumberParsing.pow10(d))
        return writeScaled(n, decimals: d, negative: value < 0, to: out)
    }

    /// Writes `n / 10^d` in plain decimal, trailing zeros of the fraction and a bare `.` trimmed, with a
    /// `-` when `negative` and `n > 0`. Digits go straight to `out`, right to left and two at a time,
    /// once their count is known. Returns the number of bytes written.
    @inline(__always)
    static func writeScaled(_ n: UInt64, decimals d: Int, negative: Bool, to out: UnsafeMutablePointer<UInt8>)
        -> Int {
        if n == 0 {
            out[0] = ASCII.zero
            return 1
        }
        var k = 0
        if negative {
            out[0] = ASCII.minus
            k = 1
        }
        var rest = n, fractionDigits = d
        while fractionDigits > 0 && rest % 10 == 0 {
            rest /= 10
            fractionDigits &-= 1
        }
        if fractionDigits == 0 {
            return k &+ writeDigits(rest, to: out + k)
        }
        let integerDigits = Swift.max(1, digitCount(rest) &- fractionDigits)
        let dot = out + k + integerDigits
        let pairs = digitPairs
        var f = fractionDigits
        while f >= 2 {
            let r = Int(truncatingIfNeeded: rest % 100)
            rest /= 100
            dot[f &- 1] = pairs[2 &* r]
            dot[f] = pairs[2 &* r &+ 1]
            f &-= 2
        }
        if f == 1 {
            dot[1] = ASCII.zero &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        dot[0] = ASCII.dot
        writeDigits(rest, count: integerDigits, to: out + k)
        return k &+ integerDigits &+ 1 &+ fractionDigits
    }

    /// 10^k as an integer, for k in 0…19.
    @inline(__always)
    static func powerOfTen(_ k: Int) -> UInt64 { powersOfTen[k] }

    /// A table, not a `switch`: the optimiser turns this one into a load, a `switch` into a jump table.
    private static let powersOfTen: InlineArray<20, UInt64> = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
        10_000_000_000_000_000_000,
    ]

    /// The number of decimal digits of `n` (1 for 0): the bit length gives ⌊log10⌋ or one less.
    /// (`n | 1` has as many digits as `n` for n > 0, since the powers of ten above 1 are even.)
    @inline(__always)
    static func digitCount(_ n: UInt64) -> Int {
        let m = n | 1
        let t = ((64 &- m.leadingZeroBitCount) &* 1233) >> 12
        return t &+ (m >= powerOfTen(t) ? 1 : 0)
    }

    /// "00", "01", … "99": two digits per table entry.
    @inline(__always)
    private static var digitPairs: UnsafePointer<UInt8> {
        let table: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        return table.utf8Start
    }

    /// Writes the last `count` decimal digits of `n` (zero-padded on the left) to `out[0..<count]`.
    @inline(__always)
    static func writeDigits(_ n: UInt64, count: Int, to out: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs
        var rest = n
        var k = count
        while k >= 2 {
            let r = Int(truncatingIfNeeded: rest % 100)
            rest /= 100
            k &-= 2
            out[k] = pairs[2 &* r]
            out[k &+ 1] = pairs[2 &* r &+ 1]
        }
        if k == 1 { out[0] = ASCII.zero &+ UInt8(truncatingIfNeeded: rest % 10) }
    }

    /// Writes the decimal digits of `n` to `out`; returns their count.
    @inline(__always)
    static func writeDigits(_ n: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let count = digitCount(n)
        writeDigits(n, count: count, to: out)
        return count
    }

    /// Appends `value` with about `significantDigits` significant digits in plain decimal (at least the
    /// integer part; at most `maxDecimals` places, so magnitudes below ~1e-12 lose digits or print `0`).
    /// - Parameters:
    ///   - value: the number; non-finite values as in `append(_:decimals:to:)`.
    ///   - significantDigits: digits to keep, 1…17.
    ///   - buffer: receives ASCII bytes.
    public static func append(_ value: Double, significantDigits: Int, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { scratch in
            let count = write(value, significantDigits: significantDigits, to: scratch.baseAddress!)
            buffer.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress!, count: count))
        }
    }

    /// Writes what `append(_:significantDigits:to:)` appends to `out` (room for `maxLength` bytes);
    /// returns the number of bytes written.
    static func write(_ value: Double, significantDigits: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let a = value.magnitude
        guard a.isFinite, a > 0 else { return write(value, decimals: 0, to: out) }
        // e = floor(log10(a)), found by comparison with exact powers of ten (−23 below 1e-22), from a
        // first guess that the binary exponent E of a gives and that is never past the answer:
        // a ≥ 2^E ≥ 10^⌊E·log10 2⌋ for a ≥ 1, and a·10^k < 10^(k − x) ≤ 0.1 for k ≤ ⌊x⌋ − 1 with
        // x = −(E+1)·log10 2 for a < 1. The comparisons are monotonic in k, so stepping on from the
        // guess finds what stepping from 0 finds.
        // E comes from the exponent bits (a subnormal's −1023 only lowers the guess), and
        // ⌊E·1233/4096⌋ never exceeds ⌊E·log10 2⌋ for E ≥ 0, nor ⌊x⌋ for x ≥ 0.
        var e: Int
        let binaryExponent = Int(truncatingIfNeeded: a.bitPattern >> 52) &- 1023
        if a >= 1 {
            e = Swift.min(22, (binaryExponent &* 1233) >> 12)
            while e < 22 && a >= NumberParsing.pow10(e + 1) { e += 1 }
        } else {
            var k = Swift.min(23, Swift.max(1, (-(binaryExponent &+ 1) &* 1233) >> 12))
            while k <= 22 && a * NumberParsing.pow10(k) < 1 { k += 1 }
            e = -k
        }
        let digits = Swift.max(1, Swift.min(significantDigits, 17))
        // What write(value, decimals:) does, without its first steps when they change nothing: a is
        // finite and below `limit`, and a·10^d < 2^52 keeps all d decimals (the usual case).
        let d = Swift.max(0, Swift.min(digits - 1 - e, maxDecimals))
        let scale = NumberParsing.pow10(d)
        guard a <= limit, a * scale < exact else { return write(value, decimals: digits - 1 - e, to: out) }
        return writeScaled(roundedScaled(a, scale), decimals: d, negative: value < 0, to: out)
    }

    /// `value` formatted with `append(_:decimals:to:)`, as a String.
    public static func string(_ value: Double, decimals: Int) -> String {
        var bytes: [UInt8] = []
        append(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `round(a · scale)` for `a ≥ 0` with `a · scale < 2^52`, correctly rounded: the product's rounding
    /// error is recovered with a fused multiply-add and decides ties.
    @inline(__always)
    static func roundedScaled(_ a: Double, _ scale: Double) -> UInt64 {
        let p = a * scale
        // Truncation is floor (p ≥ 0), and p < 2^52 converts through Int64 in one instruction.
        var n = UInt64(bitPattern: Int64(p))
        let fraction = p - Double(Int64(bitPattern: n))
        if fraction > 0.5 {
            n += 1
        } else if fraction == 0.5 {
            let error = (-p).addingProduct(a, scale)   // a·scale − p, exactly (only a tie needs it)
            if error > 0 || (error == 0 && n & 1 == 1) { n += 1 }
        }
        return n
    }

    /// Appends the decimal digits of `n`, left-padded with zeros to `minWidth`.
    @inline(__always)
    static func appendDigits(_ n: UInt64, minWidth: Int = 1, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { scratch in
            let count = writeDigits(n, minWidth: minWidth, to: scratch.baseAddress!)
            buffer.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress!, count: count))
        }
    }

    /// Writes the decimal digits of `n`, left-padded with zeros to `minWidth` (at most 24 bytes in
    /// all), to `out`; returns the number of bytes written.
    @inline(__always)
    static func writeDigits(_ n: UInt64, minWidth: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let count = Swift.max(digitCount(n), Swift.min(minWidth, 24))
        writeDigits(n, count: count, to: out)
        return count
    }
}
