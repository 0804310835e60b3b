import Testing
import Positioning
@testable import Wire

/// The decoder's key for a line, or "ok", through both the fast path and the general scanner, with
/// and without the id cache.
private func outcome(_ line: [UInt8], precision: TimestampPrecision = .ns, fast: Bool = true,
                     cached: Bool = true) -> (key: String, event: Event?) {
    var decoder = IngestDecoder()
    decoder.rangingFastPath = fast
    decoder.precision = precision
    var ids = IdCache()
    var event: Event?
    var key = "ok"
    line.withUnsafeBytes { b in
        do throws(Rejection) {
            if cached {
                try decoder.decode(b, lineNumber: 1, timestamps: .defaultTo(42), ids: &ids) { event = $0 }
            } else {
                try decoder.decode(b, lineNumber: 1, timestamps: .defaultTo(42)) { event = $0 }
            }
        } catch {
            key = error.reason.key
        }
    }
    if key != "ok" { return (key, nil) }
    return ("ok", event)
}

/// Every combination of paths must give the same key.
private func key(_ line: String, precision: TimestampPrecision = .ns) -> String {
    let bytes = Array(line.utf8)
    let keys = [(true, true), (true, false), (false, true), (false, false)].map {
        outcome(bytes, precision: precision, fast: $0.0, cached: $0.1).key
    }
    #expect(Set(keys).count == 1, "\(line.debugDescription): \(keys)")
    return keys[0]
}

@Suite struct HostileLineTests {
    /// A NUL byte in a tag name reached the feed raw (a stock parser then refused the line) and a tag
    /// with CR was stored but never sent: ids with a control character are refused at ingest.
    @Test("ids with NUL, CR, tab, ESC, DEL or another control byte are refused as control_character")
    func controlCharactersInIds() {
        for c in [0x00, 0x01, 0x09, 0x0D, 0x1B, 0x1F, 0x7F] as [UInt8] {
            let ch = String(decoding: [c], as: UTF8.self)
            for line in ["ranging,site=S,anchor=A,tag=T\(ch)1 distance=3 5",
                         "ranging,site=S,anchor=A\(ch),tag=T distance=3 5",
                         "ranging,site=S\(ch),anchor=A,tag=T distance=3,std=0.1 5",
                         "ranging,site=S,anchor=A,tag=a-long-tag-name-\(ch)-beyond-eight distance=3 5",
                         "ranging,site=S,anchor=A,tag=T\(ch),tech=cs distance=3,azimuth=0.1 5",
                         "motion,site=S,tag=\(ch)T state=\"moving\" 5",
                         "removed,site=S,anchor=A,tag=T\(ch) reason=\"timeout\" 5",
                         "session,site=S,anchor=A,tag=T\(ch) state=\"resumed\" 5"] {
                #expect(key(line) == "control_character", "\(line.debugDescription)")
            }
        }
        let r = try? IngestDecoder().decode("ranging,site=S,anchor=A,tag=T\u{1B}[2J distance=3 5", timestamps: .requireTimestamp)
        #expect(r == nil)
        do {
            _ = try IngestDecoder().decode("ranging,site=S,anchor=A,tag=T\u{1B}[2J distance=3 5", timestamps: .requireTimestamp)
        } catch {
            // The message shows the byte escaped, never raw.
            #expect(error.message == "line 1: tag 'tag' holds a control character (T\\x1B[2J); ids may not contain NUL, "
                    + "tab, CR, LF, ESC or other control characters", "\(error.message)")
        }
        // Ids of printable ASCII and of UTF-8 are taken.
        #expect(key("ranging,site=S,anchor=A,tag=Tür-7 distance=3 5") == "ok")
        #expect(key("ranging,site=S,anchor=A,tag=a-long-tag-name~beyond-eight distance=3 5") == "ok")
    }

    /// The word test finds a control byte in every position of a word, and nothing in printable bytes.
    @Test("the eight-byte control test agrees with the byte test for every byte in every position")
    func controlWordTest() {
        for position in 0..<8 {
            for byte in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(byte)
                let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                let expected = byte < 0x20 || byte == 0x7F
                #expect(UnsafeRawBufferPointer.controlBytes(word) == expected, "byte \(byte) at \(position)")
            }
        }
    }

    /// std=1e-300 on every line kept a tag from ever being placed; std and rangeStd are accepted from
    /// 0.1 mm to 1 km only.
    @Test("std outside 0.0001 ... 1000 m is refused as bad_std")
    func stdRange() {
        for std in ["1e-320", "1e-300", "0.00009", "1000.5", "1e308", "0", "-0.1"] {
            #expect(key("ranging,site=S,anchor=A,tag=T distance=3,std=\(std) 5") == "bad_std", "\(std)")
        }
        for std in ["0.0001", "0.05", "1000"] {
            #expect(key("ranging,site=S,anchor=A,tag=T distance=3,std=\(std) 5") == "ok", "\(std)")
        }
    }

    /// Timestamps in us, ms or s are scaled to nanoseconds; the line without one keeps the receive time.
    @Test("a precision scales the timestamps; beyond Int64 nanoseconds is timestamp_out_of_range")
    func precision() {
        let line = "ranging,site=S,anchor=A,tag=T distance=3 1700000000123"
        for fast in [true, false] {
            for (p, expected) in [(TimestampPrecision.ns, Int64(1_700_000_000_123)), (.us, 1_700_000_000_123_000),
                                  (.ms, 1_700_000_000_123_000_000)] {
                let e = outcome(Array(line.utf8), precision: p, fast: fast).event
                guard case .ranging(let r)? = e else { Issue.record("\(p): \(String(describing: e))"); continue }
                #expect(r.time == expected, "\(p)")
            }
            let s = outcome(Array("motion,site=S,tag=T state=\"moving\" 1700000000".utf8), precision: .s, fast: fast).event
            #expect(s == .motion(site: "S", tag: "T", state: .moving, time: 1_700_000_000_000_000_000))
            let none = outcome(Array("ranging,site=S,anchor=A,tag=T distance=3".utf8), precision: .ms, fast: fast).event
            if case .ranging(let r)? = none { #expect(r.time == 42) } else { Issue.record("no event") }
        }
        #expect(key(line, precision: .s) == "timestamp_out_of_range")
        #expect(key("ranging,site=S,anchor=A,tag=T distance=3 -9223372036854775808", precision: .us) == "timestamp_out_of_range")
        #expect(key("ranging,site=S,anchor=A,tag=T distance=3 9223372036854", precision: .ms) == "ok")
        #expect(key("ranging,site=S,anchor=A,tag=T distance=3 9223372036855", precision: .ms) == "timestamp_out_of_range")
    }
}
