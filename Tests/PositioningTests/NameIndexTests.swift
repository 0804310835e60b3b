import Testing
@testable import Positioning

/// `NameIndex` and `TrackTable` against a `Dictionary` model: numbers stay dense and every name is
/// found after any mix of inserts and removals (removal shifts probe runs back, without tombstones).
@Suite struct NameIndexTests {
    @Test func randomInsertsAndRemovalsMatchADictionary() {
        var rng = SeededRandom(seed: 3)
        var index = NameIndex()
        var model: [String: Int] = [:]   // name → number, as the index should have it
        for _ in 0..<20_000 {
            // Short names collide in the table often; some are long (not small strings).
            let k = Int(rng.next() % 600)
            let name = k % 7 == 0 ? "a-much-longer-tag-identifier-\(k)" : "T\(k)"
            if model[name] == nil {
                #expect(index.number(of: name) == nil)
                let n = index.insert(name)
                #expect(n == model.count)
                model[name] = n
            } else {
                let r = index.remove(name)
                #expect(r?.removed == model[name])
                let last = model.count - 1
                model[name] = nil
                if let from = r?.movedFrom {
                    #expect(from == last)
                    let moved = index.names[r!.removed]
                    model[moved] = r!.removed
                } else {
                    #expect(r?.removed == last)
                }
            }
        }
        #expect(index.count == model.count)
        for (name, n) in model {
            #expect(index.number(of: name) == n)
            #expect(index.names[n] == name)
        }
        #expect(index.number(of: "absent") == nil)
    }

    /// The hash reads every byte of names of every length (the short paths read overlapping words, or
    /// the first, middle and last bytes): changing any one byte changes it. It depends on the bytes
    /// only, not on how the String is stored (small, or native on the heap).
    @Test func hashReadsEveryByteAndOnlyTheBytes() {
        for length in 1...24 {
            let base = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let h = base.withUnsafeBytes { NameIndex.hash($0) }
            for k in 0..<length {
                var changed = base
                changed[k] ^= 0x01
                #expect(changed.withUnsafeBytes { NameIndex.hash($0) } != h, "length \(length), byte \(k)")
            }
            let small = String(decoding: base, as: UTF8.self)
            var native = String(repeating: "x", count: 32)   // a heap String, then shortened in place
            native.removeAll(keepingCapacity: true)
            native.append(small)
            #expect(NameIndex.hash(small) == NameIndex.hash(native))
            #expect(NameIndex.hash(small) == Int(truncatingIfNeeded: h))
        }
    }

    /// Tag ids that differ in one digit spread over the table: of 2,000 names in a table of 4,096
    /// slots, most sit in their home slot (a poor hash would pile them into runs).
    @Test func sequentialIdsSpreadOverTheTable() {
        let names = (0..<2000).map { "T" + String(String($0 + 10_000).dropFirst()) }
        var homes = Set<Int>()
        for name in names { homes.insert(NameIndex.hash(name) & 4095) }
        #expect(homes.count > 1500)   // uniform hashing gives about 1,580 distinct slots
    }

    @Test func duplicateNamesKeepTheirFirstNumber() {
        let index = NameIndex(["A1", "A2", "A1", "A3"])
        #expect(index.names == ["A1", "A2", "A3"])
        #expect(index.number(of: "A1") == 0)
        #expect(index.number(of: "A3") == 2)
    }

    @Test func trackTableKeepsTracksWithTheirTags() {
        var table = TrackTable()
        for k in 0..<50 { table["T\(k)"] = TagTrack(anchorCount: 2, time: Int64(k)) }
        for k in stride(from: 0, to: 50, by: 3) { table["T\(k)"] = nil }
        #expect(table.count == 50 - 17)
        for (tag, track) in table.all { #expect(tag == "T\(track.lastSeen)") }
        #expect(table["T3"] == nil)
        #expect(table["T4"]?.lastSeen == 4)
    }
}
