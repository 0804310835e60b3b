import Positioning
import Testing
@testable import Store

@Suite("Retention")
struct RetentionTests {
    @Test("a generated 100 s history at 10 Hz: old rows deleted, middle thinned to 1 Hz, recent kept, in small batches")
    func generatedHistory() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
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
