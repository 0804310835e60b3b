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
