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
    static func write(_ value: Double, decimals: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let negative = value < 0
        let a = value.isNaN ? 0 : Swift.min(value.magnitude, limit)
        var d = Swift.max(0, Swift.min(decimals, maxDecimals))
        while d > 0 && a * NumberParsing.pow10(d) >= exact { d -= 1 }
        let n: UInt64
        if a >= exact {
            n = UInt64(a)   // already an integer
        } else {
            n = roundedScaled(a, NumberParsing.pow10(d))
        }
        if n == 0 {
            out[0] = ASCII.zero
            return 1
        }
        // Digits are produced from the right into a stack buffer, then copied at once.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { digits in
            var k = 48
            var rest = n
            var trimming = true
            for _ in 0..<d {
                let digit = UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
                if trimming && digit == 0 { continue }
                trimming = false
                k -= 1
                digits[k] = ASCII.zero &+ digit
            }
            if !trimming {
                k -= 1
                digits[k] = ASCII.dot
            }
            repeat {
                k -= 1
                digits[k] = ASCII.zero &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            if negative {
                k -= 1
                digits[k] = ASCII.minus
            }
            out.update(from: digits.baseAddress! + k, count: 48 - k)
            return 48 - k
        }
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
        // e = floor(log10(a)), found by comparison with exact powers of ten.
        var e = 0
        if a >= 1 {
            while e < 22 && a >= NumberParsing.pow10(e + 1) { e += 1 }
        } else {
            e = -23
            for k in 1...22 where a * NumberParsing.pow10(k) >= 1 {
                e = -k
                break
            }
        }
        let digits = Swift.max(1, Swift.min(significantDigits, 17))
        return write(value, decimals: digits - 1 - e, to: out)
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
        let error = (-p).addingProduct(a, scale)   // a·scale − p, exactly
        var n = UInt64(p)              // truncation is floor: p ≥ 0
        let fraction = p - Double(n)
        if fraction > 0.5 || (fraction == 0.5 && (error > 0 || (error == 0 && n & 1 == 1))) {
            n += 1
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
    static func writeDigits(_ n: UInt64, minWidth: Int = 1, to out: UnsafeMutablePointer<UInt8>) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var k = 24
            var rest = n
            repeat {
                k -= 1
                digits[k] = ASCII.zero &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            while 24 - k < minWidth && k > 0 {
                k -= 1
                digits[k] = ASCII.zero
            }
            out.update(from: digits.baseAddress! + k, count: 24 - k)
            return 24 - k
        }
    }
}
