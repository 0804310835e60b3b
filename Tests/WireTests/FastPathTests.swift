import Testing
import Positioning
import CScan
@testable import Wire

/// The value of field `f` on the line `m f=<text> 1`, read by the scanner (its plain-decimal fast path
/// when the text fits it), or nil when the line is refused.
private func scanned(_ text: String) -> FieldValue? {
    guard let line = try? ParsedLine.parse("m f=\(text) 1") else { return nil }
    return line.field("f")
}

/// The value the general path gives the same text (what the scanner did before the fast path).
private func general(_ text: String) -> FieldValue? {
    let bytes = Array(text.utf8)
    guard !bytes.isEmpty else { return nil }
    let value = bytes.withUnsafeBytes { NumberParsing.fieldValue($0, 0, bytes.count) }
    return switch value {
    case .float(let v)?: .float(v)
    case .integer(let v)?: .integer(v)
    case .unsigned(let v)?: .unsigned(v)
    case .boolean(let v)?: .boolean(v)
    case .string?, nil: nil
    }
}

/// Equal values, with floats compared bit for bit (so `-0` differs from `0`).
private func same(_ a: FieldValue?, _ b: FieldValue?) -> Bool {
    switch (a, b) {
    case (.float(let x)?, .float(let y)?): x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    default: a == b
    }
}

@Suite("Decoder fast paths agree with the general ones")
struct FastPathTests {
    @Test(arguments: [
        "0", "-0", "0.0", "-0.0", "0.000", "-0.000", "1.", "-1.", ".5", "-.5", ".", "-", "-.", "1.2.3", "007.50",
        "23.533", "-23.533", "0.1", "123456789012345", "12345678901234.5", "1234567890123456", "0.1234567890123456789",
        "9007199254740993", "1e5", "1.5e-3", "-2E+2", "+1.5", "+0", "1i", "-7i", "3u", "t", "FALSE", "nan", "-inf",
        "1_0", "1-", "0x10", "999999999999999", "0.000000000000001", "0.0000000000000001", "4.35", "1.005",
    ])
    func edgeCases(text: String) {
        #expect(same(scanned(text), general(text)), "\(text)")
    }

    @Test func randomDecimals() {
        var rng = SeededRandom(seed: 77)
        for _ in 0..<50_000 {
            var text = rng.next() % 3 == 0 ? "-" : ""
            let integerDigits = Int(rng.next() % 10), fractionDigits = Int(rng.next() % 12)
            for _ in 0..<integerDigits { text += String(rng.next() % 10) }
            if rng.next() % 4 != 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(rng.next() % 10) }
            }
            #expect(same(scanned(text), general(text)), "\(text)")
        }
    }

    @Test(arguments: [
        ("1700000000000029783", Int64(1_700_000_000_000_029_783)), ("0", 0), ("12345678", 12_345_678),
        ("123456789", 123_456_789), ("0000000000000000001", 1), ("9223372036854775807", Int64.max),
        ("-5", -5), ("-9223372036854775808", Int64.min), ("1234567890123456", 1_234_567_890_123_456),
    ])
    func timestamps(text: String, expected: Int64) throws {
        #expect(try parsed("m f=1 \(text)").timestamp == expected)
        #expect(try parsed("m f=1 \(text)  ").timestamp == expected)
    }

    @Test(arguments: ["9223372036854775808", "12345678901234567890", "1234567a", "12345678a", "1.5", "+1"])
    func badTimestamps(text: String) {
        #expect(lineError("m f=1 \(text)") != nil, "\(text)")
    }

    @Test func eightDigitsMatchesAByteLoop() {
        var rng = SeededRandom(seed: 8)
        for _ in 0..<20_000 {
            var bytes = (0..<8).map { _ in UInt8(48 + rng.next() % 10) }
            if rng.next() % 2 == 0 { bytes[Int(rng.next() % 8)] = UInt8(truncatingIfNeeded: rng.next()) }
            let expected: UInt64? = bytes.allSatisfy({ $0 >= 48 && $0 <= 57 })
                ? bytes.reduce(0) { $0 * 10 + UInt64($1 - 48) } : nil
            let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            var value: UInt64 = 0
            let digits: UInt64? = sextant_eight_digits(word, &value) != 0 ? value : nil
            #expect(digits == expected, "\(bytes)")
        }
    }

    @Test func nameWordsAreTheWordsOfTheirNames() {
        let names: [(String, UInt64)] = [
            ("ranging", NameWord.ranging), ("motion", NameWord.motion), ("removed", NameWord.removed),
            ("session", NameWord.session), ("tag", NameWord.tag), ("site", NameWord.site), ("tech", NameWord.tech),
            ("anchor", NameWord.anchor), ("std", NameWord.std), ("dir_x", NameWord.dirX), ("dir_y", NameWord.dirY),
            ("dir_z", NameWord.dirZ), ("state", NameWord.state), ("reason", NameWord.reason),
            ("azimuth", NameWord.azimuth), ("distance", NameWord.distance), ("elevatio", NameWord.elevatio),
        ]
        for (name, word) in names {
            // At the end of a buffer (byte loop) and with bytes after it (one 8-byte load, masked).
            for suffix in ["", "=value,more"] {
                let bytes = Array((name + suffix).utf8)
                let w = bytes.withUnsafeBytes { $0.word(ByteSpan(start: 0, end: name.utf8.count, escape: .none)) }
                #expect(w == word, "\(name)\(suffix)")
            }
        }
    }

    @Test func namesDifferingOnlyInLengthOrANulByteAreNotConfused() throws {
        let decoder = IngestDecoder()
        #expect(throws: Rejection.self) { try decoder.decode("ranging\0,site=s,anchor=a,tag=t distance=1 1",
                                                            timestamps: .requireTimestamp) }
        #expect(throws: Rejection.self) { try decoder.decode("rangin,site=s,anchor=a,tag=t distance=1 1",
                                                            timestamps: .requireTimestamp) }
        // A tag key "tag\0" is an unknown tag, so the line lacks its tag.
        #expect(throws: Rejection.self) { try decoder.decode("ranging,site=s,anchor=a,tag\0=t distance=1 1",
                                                            timestamps: .requireTimestamp) }
        let event = try decoder.decode("ranging,site=s,anchor=a,tag=t,tags=u elevation=0.5,elevatioN=9 1",
                                       timestamps: .requireTimestamp)
        guard case .ranging(let r)? = event else { Issue.record("no ranging"); return }
        #expect(r.tag == "t")
        #expect(r.direction == .angles(azimuth: nil, elevation: 0.5))
    }

    @Test func theClosureFormCallsNothingForCommentsAndBlankLines() throws {
        let decoder = IngestDecoder()
        for line in ["# comment", "", "   "] {
            var calls = 0
            try Array(line.utf8).withUnsafeBytes { bytes in
                try decoder.decode(bytes, lineNumber: 1, timestamps: .requireTimestamp) { _ in calls += 1 }
            }
            #expect(calls == 0)
        }
    }
}
