import Testing
import Positioning
import CScan
@testable import Wire

/// What the decoder makes of one line: its event, or its rejection, or nothing (a blank line).
private func decoded(_ line: [UInt8], fast: Bool, ids: inout IdCache) -> String {
    var decoder = IngestDecoder()
    decoder.rangingFastPath = fast
    var out = "nothing"
    line.withUnsafeBytes { b in
        do throws(Rejection) {
            try decoder.decode(b, lineNumber: 1, timestamps: .defaultTo(42), ids: &ids) { out = "\($0)" }
        } catch {
            out = "rejected \(error.reason)"
        }
    }
    return out
}

/// What `sextant_scan_ranging` finds in a line, or nil when it leaves the line to the general scanner.
private func scannedUsual(_ line: [UInt8]) -> sextant_ranging_line? {
    var r = sextant_ranging_line()
    let taken = line.withUnsafeBytes { sextant_scan_ranging($0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count, &r) }
    return taken == 1 ? r : nil
}

/// The usual ranging line's one-pass scanner (`sextant_scan_ranging`) against the general scanner:
/// the same event, bit for bit, or the same rejection, for every line, valid or not.
@Suite("Ranging fast path agrees with the general path")
struct RangingFastPathTests {
    static let usual = "ranging,site=hall,anchor=H16,tag=T1324,tech=uwb distance=28.675,std=0.1 1700000000000139440"

    private func expectSame(_ line: [UInt8], _ fastIds: inout IdCache, _ generalIds: inout IdCache) -> Bool {
        let fast = decoded(line, fast: true, ids: &fastIds), general = decoded(line, fast: false, ids: &generalIds)
        #expect(fast == general, "\(String(decoding: line, as: UTF8.self))")
        return fast == general
    }

    @Test(arguments: [
        usual, usual + "\n", usual + "\r\n", usual + " ", usual + "\t",
        "ranging,site=hall,anchor=H16,tag=T1324 distance=28.675 1700000000000139440",
        "ranging,tag=T1,anchor=A,site=s distance=1 1", "ranging,site=s,anchor=A,tag=T,tech=cs std=0.3,distance=2.5 7",
        "ranging,site=s,anchor=A,tag=T,tech=bogus distance=1 1", "ranging,site=s,anchor=A,tag=T distance=-1 1",
        "ranging,site=s,anchor=A,tag=T distance=-0 1", "ranging,site=s,anchor=A,tag=T distance=-0.0,std=0 1",
        "ranging,site=s,anchor=A,tag=T distance=1000.5 1", "ranging,site=s,anchor=A,tag=T distance=1000 1",
        "ranging,site=s,anchor=A,tag=T distance=1,std=-0.1 1", "ranging,site=s,anchor=A,tag=T distance=.5 1",
        "ranging,site=s,anchor=A,tag=T distance=5. 1", "ranging,site=s,anchor=A,tag=T distance=- 1",
        "ranging,site=s,anchor=A,tag=T distance=1e3 1", "ranging,site=s,anchor=A,tag=T distance=5i 1",
        "ranging,site=s,anchor=A,tag=T distance=123456789012345 1",
        "ranging,site=s,anchor=A,tag=T distance=1234567890123456 1",
        "ranging,site=s,anchor=A,tag=T distance=0.000000000000001 1",
        "ranging,site=s,anchor=A,tag=T distance=1,distance=2 1", "ranging,site=s,anchor=A,tag=T std=0.1 1",
        "ranging,site=s,anchor=A,tag=T distance=1,azimuth=0.5 1", "ranging,site=s,anchor=A,tag=T,site=t distance=1 1",
        "ranging,site=s,anchor=A,tag=T,floor=2 distance=1 1", "ranging,site=s,anchor=A distance=1 1",
        "ranging,site=s,anchor=A,tag=T distance=1", "ranging,site=s,anchor=A,tag=T  distance=1 1",
        "ranging,site=s,anchor=A,tag=T distance=1  1", "ranging,site=s,anchor=A,tag=T distance=1 9223372036854775807",
        "ranging,site=s,anchor=A,tag=T distance=1 9223372036854775808", "ranging,site=s,anchor=A,tag=T distance=1 01",
        "ranging,site=s,anchor=A,tag=T distance=1 00000000000000000001", "ranging,site=s,anchor=A,tag=T distance=1 -5",
        "ranging,site=s,anchor=A,tag=T distance=1 1x", "ranging,site=s\\ x,anchor=A,tag=T distance=1 1",
        "ranging,site=s,anchor=A=B,tag=T distance=1 1", "ranging,site=,anchor=A,tag=T distance=1 1",
        "ranging,=s,anchor=A,tag=T distance=1 1", "ranging,site=s,anchor=A,tag=T distance=1,std=0.1,std=0.2 1",
        "ranging,site=a-site-name-long-enough-to-push-the-tags-past-64-bytes,anchor=A,tag=T distance=1 1",
        "ranging distance=1 1", "ranging, distance=1 1", "rangingX,site=s,anchor=A,tag=T distance=1 1",
        "ranging,site=s,anchor=A,tag=T distance=1,std=0.1 1700000000000139440\r",
        "ranging,site=s,anchor=A,tag=T distance=1,std=0.1\t1", "ranging,site=s,anchor=A,tag=T\tdistance=1 1",
        "ranging,site=s,anchor=A,tag=T,tech=uwb distance=17.944,std=0.1,azimuth=-0.5816,elevation=0.3268 5",
        "ranging,site=s,anchor=A,tag=T elevation=0.2,azimuth=3.1,distance=2 5",
        "ranging,site=s,anchor=A,tag=T distance=2,elevation=-1.5 5", "ranging,site=s,anchor=A,tag=T distance=2,azimuth=-0 5",
        "ranging,site=s,anchor=A,tag=T distance=2,azimuth=3.2 5", "ranging,site=s,anchor=A,tag=T distance=2,azimuth=-3.2 5",
        "ranging,site=s,anchor=A,tag=T distance=2,elevation=1.6 5", "ranging,site=s,anchor=A,tag=T distance=2,elevation=-1.6 5",
        "ranging,site=s,anchor=A,tag=T distance=-2,azimuth=9 5", "ranging,site=s,anchor=A,tag=T distance=2,std=9,azimuth=9 5",
        "ranging,site=s,anchor=A,tag=T distance=2,azimuth=9,elevation=9 5",
        "ranging,site=s,anchor=A,tag=T distance=2,azimuth=0.1,azimuth=0.2 5",
        "ranging,site=s,anchor=A,tag=T distance=2,elevation=0.1,elevation=0.2 5",
        "ranging,site=s,anchor=A,tag=T distance=2,azimuth=1e0 5", "ranging,site=s,anchor=A,tag=T distance=2,azimuth=1i 5",
        "ranging,site=s,anchor=A,tag=T distance=2,azimuth= 5", "ranging,site=s,anchor=A,tag=T distance=2,azimuth 5",
        "ranging,site=s,anchor=A,tag=T azimuth=0.5 5", "ranging,site=s,anchor=A,tag=T distance=2,elevation 5",
        "ranging,site=s,anchor=A,tag=T distance=2,azimuth=0.1,dir_x=1,dir_y=0,dir_z=0 5",
        "ranging,site=s,anchor=A,tag=T,tech=aoa distance=2,azimuth=0.1,elevation=0.2 5",
        "ranging,site=s,anchor=A,tag=T,tech=cs distance=2,azimuth=0.1 5",
    ])
    func cases(line: String) {
        var a = IdCache(), b = IdCache()
        _ = expectSame(Array(line.utf8), &a, &b)
    }

    /// The usual line is taken by the fast path (a test of the test: a path never taken agrees trivially).
    @Test func usualLineTakesTheFastPath() {
        let r = scannedUsual(Array(Self.usual.utf8))
        #expect(r != nil)
        #expect(r?.distance == 28.675 && r?.std == 0.1 && r?.time == 1_700_000_000_000_139_440)
        #expect(r?.has_azimuth == 0 && r?.has_elevation == 0)
        let angles = scannedUsual(Array("ranging,site=s,anchor=A,tag=T distance=2,azimuth=-0.5816,elevation=0.3268 5".utf8))
        #expect(angles != nil)
        #expect(angles?.has_azimuth == 1 && angles?.azimuth == -0.5816 && angles?.has_elevation == 1
                && angles?.elevation == 0.3268)
    }

    /// Random ranging lines: valid ones with random ids, numbers and order, and the same with one or two
    /// bytes changed to separators, digits and signs, through one id cache per path.
    @Test func randomLines() {
        var rng = SeededRandom(seed: 7)
        let alphabet = Array("ab,= \\\t1.-#9e\"\r\n".utf8)
        var fastIds = IdCache(), generalIds = IdCache()
        var taken = 0
        for round in 0..<60_000 {
            func pick(_ options: [String]) -> String { options[Int(rng.next() % UInt64(options.count))] }
            func number() -> String {
                let whole = String(rng.next() % 100_000), fraction = String(rng.next() % 10_000)
                return pick(["", "-"]) + pick([whole, whole + "." + fraction, "." + fraction, whole + "."])
            }
            var tags = ["site=" + pick(["hall", "s", "warehouse-7"]), "anchor=" + pick(["H1", "A12", "anchor-0042"]),
                        "tag=T" + String(rng.next() % 3000)]
            if rng.next() % 3 != 0 { tags.append("tech=" + pick(["uwb", "cs", "x"])) }
            if rng.next() % 4 == 0 { tags.shuffle(using: &rng) }
            var fields = ["distance=" + number()]
            if rng.next() % 2 == 0 { fields.append("std=" + number()) }
            // Angles in radians: the random numbers are mostly outside the valid ranges, so small ones too.
            func angle() -> String { pick(["", "-"]) + pick(["0." + String(rng.next() % 10_000), "1.5", "3.2", number()]) }
            if rng.next() % 3 == 0 { fields.append("azimuth=" + angle()) }
            if rng.next() % 3 == 0 { fields.append("elevation=" + angle()) }
            if rng.next() % 4 == 0 { fields.reverse() }
            let time = pick([String(rng.next() % 10_000_000_000_000_000_000), String(rng.next() % 1000), ""])
            var line = Array(("ranging," + tags.joined(separator: ",") + " " + fields.joined(separator: ",")
                              + (time.isEmpty ? "" : " " + time)).utf8)
            if round % 2 == 1 {
                for _ in 0..<(1 + Int(rng.next() % 2)) {
                    line[Int(rng.next() % UInt64(line.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                }
            }
            if scannedUsual(line) != nil { taken += 1 }
            if !expectSame(line, &fastIds, &generalIds) { return }
        }
        // Both kinds of line are met: those the fast path takes and those it leaves to the general one.
        #expect(taken > 10_000 && taken < 50_000, "fast path took \(taken) of 60,000")
    }
}
