import Testing
import Positioning
@testable import Wire

/// Everything the scanner hands out for one line: the tags and fields in order, and the outcome or
/// the error.
private struct Recording: LineVisitor, Equatable {
    var tags: [ByteSpan] = []
    var fields: [ByteSpan] = []
    var values: [RawFieldValue] = []
    var outcome = ""

    mutating func tag(key: ByteSpan, value: ByteSpan) { tags += [key, value] }
    mutating func field(key: ByteSpan, value: RawFieldValue) {
        fields.append(key)
        values.append(value)
    }
}

private func record(_ line: [UInt8], fast: Bool) -> Recording {
    var r = Recording()
    line.withUnsafeBytes { b in
        do throws(LineError) {
            switch try LineScanner.scan(b, into: &r, seriesFastPath: fast) {
            case .skip: r.outcome = "skip"
            case .line(let m, let t): r.outcome = "line \(m.start)..<\(m.end) \(m.escape) \(t.map(String.init) ?? "-")"
            }
        } catch {
            // A refused line hands out nothing the caller keeps; the error must be the same.
            r = Recording(outcome: "error \(error.message) at \(error.column)")
        }
    }
    return r
}

/// The measurement-and-tags fast path (separator masks) against the general byte-by-byte path: the
/// same spans, fields, outcome and error for every line, valid or not.
@Suite("Series key fast path agrees with the general path")
struct SeriesKeyFastPathTests {
    @Test(arguments: [
        "ranging,site=hall,anchor=H16,tag=T1324,tech=uwb distance=28.675,std=0.1 1700000000000139440",
        "m f=1", "m,a=b f=1 2", "m=x,a=b f=1", "m,a=b=c f=1", "m,=b f=1", "m,a= f=1", "m,a f=1", "m,,a=b f=1",
        "m,a=b, f=1", ",a=b f=1", "m\\ n,a=b f=1", "m,a=b\\,c f=1", "m,a\\=x=b f=1", "m,a=b", "m", "  m,a=b f=1",
        "\tm,a=b f=1", "m,a=b\tc f=1", "m,a=b  f=1", "# comment", "", " ", "m,a=b,c=d,e=f,g=h,i=j,k=l,m=n,o=p,q=r f=1",
        "measurement-with-a-long-name-of-more-than-sixty-four-bytes-in-all,a=b f=1",
        "m,tag=a-value-that-ends-after-the-sixty-fourth-byte-of-the-line-xxxxxxxx f=1",
    ])
    func cases(line: String) {
        let bytes = Array(line.utf8)
        #expect(record(bytes, fast: true) == record(bytes, fast: false), "\(line)")
        let lf = bytes + [0x0A]
        #expect(record(lf, fast: true) == record(lf, fast: false), "\(line)\\n")
    }

    /// Random lines over an alphabet heavy in separators, and valid lines with one byte changed.
    @Test func randomLines() {
        var rng = SeededRandom(seed: 2026)
        let alphabet = Array("ab,= \\\t1.#xyz\"".utf8)
        let valid = Array("ranging,site=hall,anchor=H16,tag=T1324,tech=uwb distance=28.675,std=0.1 1700000000000139440".utf8)
        for round in 0..<60_000 {
            var line: [UInt8]
            if round % 2 == 0 {
                line = (0..<Int(rng.next() % 90)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            } else {
                line = valid
                for _ in 0..<(1 + Int(rng.next() % 2)) {
                    line[Int(rng.next() % UInt64(line.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                }
            }
            let fast = record(line, fast: true), general = record(line, fast: false)
            #expect(fast == general, "\(String(decoding: line, as: UTF8.self))")
            if fast != general { return }
        }
    }
}
