import Testing
import Positioning
@testable import Wire

/// The formatter as it was before digits were written two at a time straight into the output (one
/// digit per division, into a scratch buffer, then copied): the oracle the fast path must match byte
/// for byte, since the service's output must not change.
private enum ReferenceFixedDecimal {
    static func string(_ value: Double, decimals: Int) -> String {
        let negative = value < 0
        let a = value.isNaN ? 0 : min(value.magnitude, FixedDecimal.limit)
        var d = max(0, min(decimals, FixedDecimal.maxDecimals))
        let exact: Double = 4_503_599_627_370_496
        while d > 0 && a * NumberParsing.pow10(d) >= exact { d -= 1 }
        let n: UInt64
        if a >= exact {
            n = UInt64(a)
        } else {
            let scale = NumberParsing.pow10(d)
            let p = a * scale
            let error = (-p).addingProduct(a, scale)
            var m = UInt64(p)
            let fraction = p - Double(m)
            if fraction > 0.5 || (fraction == 0.5 && (error > 0 || (error == 0 && m & 1 == 1))) { m += 1 }
            n = m
        }
        if n == 0 { return "0" }
        var digits: [UInt8] = []
        var rest = n
        var trimming = true
        for _ in 0..<d {
            let digit = UInt8(rest % 10)
            rest /= 10
            if trimming && digit == 0 { continue }
            trimming = false
            digits.append(48 + digit)
        }
        if !trimming { digits.append(46) }
        repeat {
            digits.append(48 + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if negative { digits.append(45) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    static func string(_ value: Double, significantDigits: Int) -> String {
        let a = value.magnitude
        guard a.isFinite, a > 0 else { return string(value, decimals: 0) }
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
        return string(value, decimals: max(1, min(significantDigits, 17)) - 1 - e)
    }
}

private func fast(_ value: Double, decimals: Int) -> String {
    var bytes: [UInt8] = []
    FixedDecimal.append(value, decimals: decimals, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

private func fast(_ value: Double, significantDigits: Int) -> String {
    var bytes: [UInt8] = []
    FixedDecimal.append(value, significantDigits: significantDigits, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

@Suite("Fixed-decimal formatter against the reference")
struct FixedDecimalReferenceTests {
    /// Values around every power of ten, the 2^52 limit, ties, and the clamps.
    static let edges: [Double] = {
        var values: [Double] = [0, -0.0, .nan, .infinity, -.infinity, 1e18, 1e18.nextUp, 4_503_599_627_370_496,
                                4_503_599_627_370_495.5, 9_007_199_254_740_994, 0.5, 1.5, 2.5, 0.125, 0.375,
                                .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e-300, 99.99995, 9.99995]
        for k in -25...20 {
            let p = NumberParsing.pow10(abs(k))
            let v = k < 0 ? 1 / p : p
            values += [v, v.nextUp, v.nextDown, v * 0.999999, v * 1.000001, v * 0.5]
        }
        return values + values.map { -$0 }
    }()

    @Test func edgeValuesMatch() {
        for value in Self.edges {
            for decimals in -1...18 {
                #expect(fast(value, decimals: decimals) == ReferenceFixedDecimal.string(value, decimals: decimals),
                        "\(value) with \(decimals) decimals")
            }
            for digits in 0...18 {
                #expect(fast(value, significantDigits: digits)
                        == ReferenceFixedDecimal.string(value, significantDigits: digits),
                        "\(value) with \(digits) significant digits")
            }
        }
    }

    @Test func randomValuesMatch() {
        var rng = SeededRandom(seed: 2026)
        for _ in 0..<100_000 {
            let exponent = Int(rng.next() % 40) - 20
            let scale = exponent < 0 ? 1 / NumberParsing.pow10(-exponent) : NumberParsing.pow10(exponent)
            let value = Double.random(in: -1...1, using: &rng) * scale
            let decimals = Int(rng.next() % 18)
            #expect(fast(value, decimals: decimals) == ReferenceFixedDecimal.string(value, decimals: decimals),
                    "\(value) with \(decimals) decimals")
            #expect(fast(value, significantDigits: 6) == ReferenceFixedDecimal.string(value, significantDigits: 6),
                    "\(value) with 6 significant digits")
        }
    }

    @Test func digitCountsAtEveryPowerOfTen() {
        #expect(FixedDecimal.digitCount(0) == 1)
        #expect(FixedDecimal.digitCount(UInt64.max) == 20)
        for k in 1...19 {
            let p = FixedDecimal.powerOfTen(k)
            #expect(FixedDecimal.digitCount(p) == k + 1)
            #expect(FixedDecimal.digitCount(p - 1) == k)
        }
    }
}
