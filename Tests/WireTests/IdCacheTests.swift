import Testing
import Positioning
import Wire

/// Decodes `line` with the cache (the events it gives, or the rejection).
private func cached(_ line: String, _ ids: inout IdCache) -> Result<Event?, Rejection> {
    var bytes = Array(line.utf8)
    return bytes.withUnsafeMutableBytes { raw in
        var event: Event?
        do throws(Rejection) {
            try IngestDecoder().decode(UnsafeRawBufferPointer(raw), lineNumber: 3, timestamps: .requireTimestamp,
                                       ids: &ids) { event = $0 }
            return .success(event)
        } catch {
            return .failure(error)
        }
    }
}

private func fresh(_ line: String) -> Result<Event?, Rejection> {
    Result { () throws(Rejection) in try IngestDecoder().decode(line, lineNumber: 3, timestamps: .requireTimestamp) }
}

@Suite("Id cache")
struct IdCacheTests {
    /// Ids of every length around the 8 and 16 bytes the cache keeps, escaped ids, non-ASCII and NUL bytes,
    /// many more ids than slots (so slots are taken over), each decoded many times: the cache never
    /// changes an event.
    @Test func eventsAreTheSameWithAndWithoutTheCache() {
        var rng = SeededRandom(seed: 31)
        let alphabet = Array("abcXYZ019_-é\\ ,=".unicodeScalars).map(String.init) + ["\0"]
        var ids: [String] = []
        for _ in 0..<20_000 {
            let length = 1 + Int(rng.next() % 20)
            var id = ""
            for _ in 0..<length { id += alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            // Escape what the line protocol requires in a tag value; avoid a trailing backslash.
            var escaped = ""
            for ch in id {
                if ch == " " || ch == "," || ch == "=" { escaped += "\\" }
                escaped.append(ch)
            }
            if escaped.hasSuffix("\\") { escaped += "x" }
            ids.append(escaped)
        }
        var cache = IdCache()
        for _ in 0..<60_000 {
            let site = ids[Int(rng.next() % 3)], anchor = ids[Int(rng.next() % 40)]
            let tag = ids[Int(rng.next() % UInt64(ids.count))]
            let line = "ranging,site=\(site),anchor=\(anchor),tag=\(tag) distance=1.5 \(rng.next() % 1000)"
            let a = cached(line, &cache), b = fresh(line)
            #expect(a == b, "\(line)")
            if case .success(.ranging(let r)?) = a, case .success(.ranging(let s)?) = b {
                // Equal Strings could still differ in how they store their bytes: compare the bytes.
                #expect(Array(r.tag.utf8) == Array(s.tag.utf8) && Array(r.site.utf8) == Array(s.site.utf8))
            }
        }
    }

    @Test func idsThatDifferOnlyInLengthOrInATrailingNulByte() {
        var cache = IdCache()
        for tag in ["T1", "T1\0", "T1\0\0", "T1", "T10", "T1\0", "12345678", "123456789", "12345678",
                    "123456789\0", "123456789", "demo-warehouse", "demo-warehouse\0", "demo-warehouse",
                    "1234567890123456", "12345678901234567", "1234567890123456", "123456789012345\0",
                    "123456789012345", "warehouse-1", "warehouse-2", "warehouse-1", "12345678abcdefgh",
                    "12345678abcdefgX", "12345678abcdefgh"] {
            let line = "motion,site=S,tag=\(tag) state=\"moving\" 5"
            #expect(cached(line, &cache) == fresh(line), "\(tag.utf8.map { $0 })")
        }
    }

    @Test func thePlaceholderKeepsNothingAndStillDecodes() {
        var cache = IdCache.placeholder
        let line = "removed,site=S,anchor=A,tag=T reason=\"timeout\" 9"
        #expect(cached(line, &cache) == fresh(line))
        #expect(cached(line, &cache) == fresh(line))
    }
}
