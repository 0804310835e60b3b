import Positioning
import Testing
@testable import Store

@Suite("Retention")
struct RetentionTests {
    @Test("a generated 100 s history at 10 Hz: old rows deleted, middle thinned to 1 Hz, recent kept, in small batches", arguments: StoreKind.allCases)
    func generatedHistory(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter()
            let second: Int64 = 1_000_000_000
            let base: Int64 = 1_700_000_000 * second
            for step in 0..<1000 {  // 0.1 s steps over 100 s, with a 7 ms offset so no row sits on a second
                let t = base + Int64(step) * second / 10 + 7_000_000
                for tag in ["T1", "T2"] { writer.append(makeEstimate(tag: tag, time: t)) }
                if step % 10 == 0 {
                    writer.append(measurementLine: Array("line \(step)".utf8), site: "demo-warehouse", time: t)
                    writer.appendZoneEvent(site: "demo-warehouse", tag: "T1", zone: "dock", event: .enter, time: t)
                }
            }
            writer.close()
            let now = base + 100 * second
            // Full rate for the last 10 s (and raw lines as long), 1 Hz until 60 s old, deleted after.
            let policy = RetentionPolicy(fullRate: 10 * second, keep: 60 * second)
            let result = try store.applyRetention(policy, now: now, batchSize: 7)
            #expect(result.positionsDeleted == 2 * 400)
            #expect(result.positionsThinned == 2 * 450)
            #expect(result.measurementsDeleted == 90)
            #expect(result.zoneEventsDeleted == 40)
            #expect(result.batches > 100, "bounded batches: \(result.batches)")
            for tag in ["T1", "T2"] {
                let rows = try store.positions(site: "demo-warehouse", tag: tag)
                #expect(rows.count == 50 + 100)
                #expect(rows.first?.time == base + 40 * second + 7_000_000, "from now - keep on, inclusive")
                let thinned = rows.filter { $0.time < now - 10 * second }
                #expect(Set(thinned.map { $0.time / second }).count == thinned.count, "one per second")
                #expect(thinned.allSatisfy { $0.time % second == 7_000_000 }, "the first of each second is kept")
            }
            #expect(try store.measurementCount() == 10)
            #expect(try store.zoneEvents(site: "demo-warehouse").count == 60)
            #expect(try store.lastPositions().count == 2)
            // A second run with the same clock removes nothing more.
            #expect(try store.applyRetention(policy, now: now, batchSize: 7) == RetentionResult())
        }
    }
}

@Suite("Retention, incremental")
struct IncrementalRetentionTests {
    /// 100 s of one tag at 10 Hz (7 ms past each tenth), as in `RetentionTests`.
    static func fill(_ store: TestStore, base: Int64) {
        let writer = store.makeWriter()
        for step in 0..<1000 {
            writer.append(makeEstimate(tag: "T1", time: base + Int64(step) * 100_000_000 + 7_000_000))
        }
        writer.close()
    }

    @Test("a run that starts where the previous one stopped thinning ends like one run over everything",
          arguments: StoreKind.allCases)
    func secondRunContinues(_ kind: StoreKind) throws {
        try withStore(kind) { (stepwise: TestStore) throws in try withStore(kind) { (once: TestStore) throws in
            let second: Int64 = 1_000_000_000
            let base: Int64 = 1_700_000_000 * second
            // 10.55 s at full rate: the first run's thinning ends mid-second (at 69.45 s).
            let policy = RetentionPolicy(fullRate: 10 * second + 550_000_000, keep: 60 * second)
            Self.fill(stepwise, base: base)
            let first = base + 80 * second
            _ = try stepwise.applyRetention(policy, now: first, batchSize: 7)
            let r = try stepwise.applyRetention(policy, now: base + 100 * second, batchSize: 7,
                                                thinnedBefore: first - policy.fullRate)
            #expect(r.positionsThinned > 0)
            Self.fill(once, base: base)
            _ = try once.applyRetention(policy, now: base + 100 * second, batchSize: 7)
            let a = try stepwise.positions(site: "demo-warehouse", tag: "T1").map(\.time)
            let b = try once.positions(site: "demo-warehouse", tag: "T1").map(\.time)
            #expect(a == b)
            #expect(a.count == 50 + 105, "seconds 40-89 at 1 Hz, then 89.507-99.907 s at 10 Hz")
        } }
    }

    @Test("a cancelled run stops between tags", arguments: StoreKind.allCases)
    func cancelled(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            Self.fill(store, base: 0)
            let r = try store.applyRetention(RetentionPolicy(fullRate: 0, keep: 0), now: 1_000_000_000_000,
                                             isCancelled: { true })
            #expect(r == RetentionResult())
            #expect(try store.positionCount() == 1000)
        }
    }
}
