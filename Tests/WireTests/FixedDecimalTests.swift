#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import Positioning
import Wire

/// `printf("%.*f")`, normalised the way FixedDecimal writes: trailing zeros and `.` trimmed, no `-0`.
private func printfReference(_ value: Double, _ decimals: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 400)
    _ = withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
    var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    if text == "-0" { text = "0" }
    return text
}

private func significant(_ value: Double, _ digits: Int) -> String {
    var bytes: [UInt8] = []
    FixedDecimal.append(value, significantDigits: digits, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

@Suite("Fixed-decimal formatter")
struct FixedDecimalTests {
    @Test(arguments: [
        (0.0, 4, "0"), (-0.0, 4, "0"), (-0.00004, 4, "0"), (-0.00005, 4, "-0.0001"), (0.00005, 4, "0.0001"),
        (1e9, 4, "1000000000"), (1.5, 4, "1.5"), (2.0, 4, "2"), (-2.0, 0, "-2"), (0.125, 2, "0.12"),
        (0.375, 2, "0.38"), (2.5, 0, "2"), (3.5, 0, "4"), (1.005, 2, "1"), (123.456789, 4, "123.4568"),
        (-3.14159265, 4, "-3.1416"), (0.1, 17, "0.1"), (0.1234567890123456, 15, "0.123456789012346"), (9.99995, 4, "10"),
        (9.99994, 4, "9.9999"), (1e-9, 8, "0"), (123456789.123456789, 8, "123456789.1234568"),
        (4.0e15, 4, "4000000000000000"), (1e17, 2, "100000000000000000"), (12.34, -3, "12"),
    ])
    func cases(value: Double, decimals: Int, expected: String) {
        #expect(FixedDecimal.string(value, decimals: decimals) == expected)
    }

    @Test func nonFiniteAndHugeValuesAreClamped() {
        #expect(FixedDecimal.string(.nan, decimals: 4) == "0")
        #expect(FixedDecimal.string(.infinity, decimals: 4) == "1000000000000000000")
        #expect(FixedDecimal.string(-.infinity, decimals: 4) == "-1000000000000000000")
        #expect(FixedDecimal.string(1e300, decimals: 2) == "1000000000000000000")
        #expect(FixedDecimal.string(-1e300, decimals: 2) == "-1000000000000000000")
    }

    @Test func matchesPrintfOnRandomValues() {
        var rng = SeededRandom(seed: 99)
        for _ in 0..<50_000 {
            let decimals = Int(rng.next() % 9)
            let magnitude = Double(Int(rng.next() % 14) - 6)   // 1e-6 … 1e7
            var value = Double.random(in: -1...1, using: &rng)
            for _ in 0..<Int(magnitude.magnitude) { value = magnitude < 0 ? value / 10 : value * 10 }
            #expect(FixedDecimal.string(value, decimals: decimals) == printfReference(value, decimals),
                    "\(value) with \(decimals) decimals")
        }
    }

    @Test func matchesPrintfOnExactTies() {
        // Values k/2^n are exact in binary, so their decimal ties are real ties: half to even, like printf.
        var rng = SeededRandom(seed: 5)
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 12)
            let value = Double(Int64(rng.next() % 2_000_001) - 1_000_000) / Double(1 << n)
            let decimals = Int(rng.next() % 6)
            #expect(FixedDecimal.string(value, decimals: decimals) == printfReference(value, decimals),
                    "\(value) with \(decimals) decimals")
        }
    }

    @Test func readsBackWithinHalfAUnit() throws {
        var rng = SeededRandom(seed: 17)
        for _ in 0..<10_000 {
            let value = Double.random(in: -1e6...1e6, using: &rng)
            let text = FixedDecimal.string(value, decimals: 4)
            let read = try #require(Double(text))
            // Half a unit in the 4th decimal, plus the double's own spacing near 1e6.
            #expect(abs(read - value) <= 0.5e-4 + 1e-9)
        }
    }

    @Test func significantDigits() {
        #expect(significant(0.000123456789, 6) == "0.000123457")
        #expect(significant(-0.0123456789, 6) == "-0.0123457")
        #expect(significant(123456.789, 6) == "123457")
        #expect(significant(1234567.89, 6) == "1234568")
        #expect(significant(9.9999996, 6) == "10")
        #expect(significant(1.0, 6) == "1")
        #expect(significant(0.1, 6) == "0.1")
        #expect(significant(0, 6) == "0")
        #expect(significant(1e-20, 6) == "0")
        #expect(significant(1.23456789e-12, 6) == "0.00000000000123457")
        #expect(significant(.nan, 6) == "0")
    }
}
