import Foundation
import Positioning
import Testing
@testable import Store

@Suite("HistoryWriter, sorted multi-row inserts")
struct HistoryWriterOrderTests {
    @Test("one batch of 37 interleaved tags, out of order, with repeats: every row read back, the later repeat wins", arguments: StoreKind.allCases)
    func interleavedBatch(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 100_000, maxDelay: .seconds(30))
            let tags = (0..<37).map { "T\($0)" }
            var expected: [String: [Int64: PositionEstimate]] = [:]
            for step in [3, 0, 4, 1, 2, 6, 5] {  // 259 rows: 16 rows per statement and a remainder
                for tag in tags.reversed() {
                    let estimate = makeEstimate(tag: tag, time: Int64(step) * 100_000_000, threeD: tag == "T5")
                    writer.append(estimate)
                    expected[tag, default: [:]][estimate.time] = estimate
                }
            }
            // A repeat of (T7, 0.2 s) with other values, appended later in the same batch, replaces it.
            var repeated = makeEstimate(tag: "T7", time: 200_000_000)
            repeated.position.x = 99
            writer.append(repeated)
            expected["T7"]![200_000_000] = repeated
            writer.close()
            #expect(writer.stats.batches == 1 && writer.stats.positionsWritten == 260)
            for tag in tags {
                let want = expected[tag]!.keys.sorted().map { expected[tag]![$0]! }
                #expect(try store.positions(site: "demo-warehouse", tag: tag) == want)
            }
            let last = try store.lastPositions(site: "demo-warehouse")
            #expect(last.map(\.tag) == tags.sorted())
            #expect(last.allSatisfy { $0.time == 600_000_000 })
        }
    }
}
