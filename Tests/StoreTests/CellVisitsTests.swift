import Testing
@testable import Store

@Suite("CellVisits: which rows the history writer stores a grid-cell visit for")
struct CellVisitsTests {
    static let second: Int64 = 1_000_000_000

    @Test("the first row of a tag in a cell and bucket starts a visit; later ones there do not, until the next bucket")
    func firstPerCellAndBucket() {
        var v = CellVisits()
        v.begin(prunedBefore: .min)
        let rows: [(Int64, Int64, Bool)] = [(0, 7, true), (2, 7, false), (3, 8, true), (4, 7, false),
                                            (10, 7, true), (11, 8, true), (12, 8, false)]
        for (s, cell, starts) in rows {
            do { let started = v.starts(tagID: 1, time: s * Self.second, cell: cell); #expect(started == starts, "\(s) s, cell \(cell)") }
        }
        do { let started = v.starts(tagID: 2, time: 12 * Self.second, cell: 8); #expect(started, "another tag: its own visits") }
        v.commit()
        v.begin(prunedBefore: .min)
        do { let started = v.starts(tagID: 1, time: 13 * Self.second, cell: 8); #expect(!started, "committed: relied on in the next batch") }
        do { let started = v.starts(tagID: 1, time: 13 * Self.second, cell: 9); #expect(started) }
    }

    @Test("an attempt that did not commit is not relied on")
    func failedAttemptForgotten() {
        var v = CellVisits()
        v.begin(prunedBefore: .min)
        do { let started = v.starts(tagID: 1, time: 0, cell: 7); #expect(started) }
        v.begin(prunedBefore: .min)   // the attempt failed: the next one starts over
        do { let started = v.starts(tagID: 1, time: Self.second, cell: 7); #expect(started) }
        v.commit()
        v.forget()
        v.begin(prunedBefore: .min)
        do { let started = v.starts(tagID: 1, time: 2 * Self.second, cell: 7); #expect(started, "forgotten: a new connection") }
    }

    @Test("a row earlier than the visit recorded, or in an older bucket, starts one; so does one after its visit was pruned")
    func outOfOrderAndPruned() {
        var v = CellVisits()
        v.begin(prunedBefore: .min)
        do { let started = v.starts(tagID: 1, time: 15 * Self.second, cell: 7); #expect(started) }
        v.commit()
        v.begin(prunedBefore: .min)
        do { let started = v.starts(tagID: 1, time: 12 * Self.second, cell: 7); #expect(started, "before the recorded visit") }
        do { let started = v.starts(tagID: 1, time: 14 * Self.second, cell: 7); #expect(!started, "after the earlier one") }
        do { let started = v.starts(tagID: 1, time: 5 * Self.second, cell: 7); #expect(started, "an older bucket") }
        do { let started = v.starts(tagID: 1, time: 16 * Self.second, cell: 7); #expect(!started, "the older row left the newest bucket's record alone") }
        v.commit()
        v.begin(prunedBefore: 13 * Self.second)
        do { let started = v.starts(tagID: 1, time: 17 * Self.second, cell: 7); #expect(started, "its visit at 12 s may be pruned") }
        do { let started = v.starts(tagID: 1, time: 18 * Self.second, cell: 7); #expect(!started) }
    }

    @Test("buckets are floor divisions by 10 s, also before 1970 and at the ends of Int64")
    func buckets() {
        let b = CellVisits.bucketNanoseconds
        #expect(CellVisits.bucket(0) == 0 && CellVisits.bucket(b - 1) == 0 && CellVisits.bucket(b) == 1)
        #expect(CellVisits.bucket(-1) == -1 && CellVisits.bucket(-b) == -1 && CellVisits.bucket(-b - 1) == -2)
        #expect(CellVisits.bucket(.max) == Int64.max / b && CellVisits.bucket(.min) == Int64.min / b - 1)
    }

    @Test("records of tags not written in the newest two buckets are dropped, and their next rows start visits")
    func staleRecordsDropped() {
        var v = CellVisits()
        v.begin(prunedBefore: .min)
        for id in 1...100 { _ = v.starts(tagID: Int64(id), time: 0, cell: 7) }
        v.commit()
        #expect(v.count == 100)
        // Tag 1 goes on in buckets 1 and 2; the others are not heard again.
        for k in 1..<CellVisits.dropInterval {
            v.begin(prunedBefore: .min)
            _ = v.starts(tagID: 1, time: (k < 10 ? 10 : 20) * Self.second + Int64(k), cell: 7)
            v.commit()
        }
        #expect(v.count == 1)
        v.begin(prunedBefore: .min)
        do { let started = v.starts(tagID: 1, time: 29 * Self.second, cell: 7); #expect(!started, "tag 1 is still recorded") }
        do { let started = v.starts(tagID: 2, time: 29 * Self.second, cell: 7); #expect(started) }
    }
}
