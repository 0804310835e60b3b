import Foundation
import Positioning
import Testing
@testable import Store

@Suite("HistoryWriter")
struct HistoryWriterTests {
    @Test("positions written in several batches read back exactly, per tag and at the range edges", arguments: StoreKind.allCases)
    func batchesReadBack(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 64)
            let tags = ["T1", "T2", "forklift-7", "ünïcode tag"]
            var expected: [String: [PositionEstimate]] = [:]
            for step in 0..<500 {
                for tag in tags {
                    let estimate = makeEstimate(tag: tag, time: 1_000_000_000 + Int64(step) * 100_000_000,
                                                threeD: tag == "T2")
                    writer.append(estimate)
                    expected[tag, default: []].append(estimate)
                }
                if step % 125 == 124 { writer.flush() }  // at least four transactions
            }
            #expect(writer.flush() == 2000)
            let stats = writer.stats
            #expect(stats.positionsWritten == 2000 && stats.pending == 0 && stats.droppedRows == 0)
            #expect(stats.batches >= 4)
            for tag in tags {
                #expect(try store.positions(site: "demo-warehouse", tag: tag) == expected[tag])
            }
            #expect(try store.positionCount() == 2000)
            #expect(try store.positionCount(site: "demo-warehouse", tag: "T1") == 500)
            #expect(try store.positionCount(site: "elsewhere") == 0)

            // from is inclusive, to exclusive; limit caps the rows; unknown tags give nothing.
            let t1 = try #require(expected["T1"])
            let window = try store.positions(site: "demo-warehouse", tag: "T1", from: t1[10].time, to: t1[20].time)
            #expect(window == Array(t1[10..<20]))
            #expect(try store.positions(site: "demo-warehouse", tag: "T1", from: t1[10].time + 1, limit: 3)
                == Array(t1[11..<14]))
            #expect(try store.positionCount(site: "demo-warehouse", tag: "T1", from: t1[10].time, to: t1[20].time) == 10)
            #expect(try store.positions(site: "demo-warehouse", tag: "nobody").isEmpty)
            #expect(try store.tags().map(\.tag) == tags.sorted())
            writer.close()
        }
    }

    @Test("a batch handed over at once is committed without a flush: below the batch size by the delay, above it at once", arguments: StoreKind.allCases)
    func appendContentsOfWakesTheWriter(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 100, maxDelay: .milliseconds(50))
            writer.append(contentsOf: (0..<10).map { makeEstimate(tag: "A", time: Int64($0)) })
            // No flush: the first rows started the delay clock.
            #expect(writer.waitUntilWritten(10, timeout: .seconds(5)) == 10)
            writer.append(contentsOf: (0..<250).map { makeEstimate(tag: "B", time: Int64($0)) })
            #expect(writer.flush() == 260)
            #expect(try store.positions(site: "demo-warehouse", tag: "B").map(\.time) == (0..<250).map(Int64.init))
            writer.close()
        }
    }

    @Test("lastPositions holds the newest row per tag after several batches, even if an older one comes later", arguments: StoreKind.allCases)
    func lastPositionsNewestPerTag(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter()
            for batch in 0..<5 {
                for tag in ["A", "B", "C"] {
                    for step in 0..<10 { writer.append(makeEstimate(tag: tag, time: Int64(batch * 100 + step))) }
                }
                writer.append(makeEstimate(site: "other", tag: "A", time: Int64(batch)))
                writer.flush()
            }
            writer.append(makeEstimate(tag: "B", time: 3))  // late and old: history only
            writer.flush()
            writer.close()
            let last = try store.lastPositions()
            #expect(last == [makeEstimate(tag: "A", time: 409), makeEstimate(tag: "B", time: 409),
                             makeEstimate(tag: "C", time: 409), makeEstimate(site: "other", tag: "A", time: 4)])
            #expect(try store.lastPositions(site: "other").map(\.tag) == ["A"])
            #expect(writer.stats.batches >= 6)  // one per flush at least (more if maxDelay fires mid-loop)
        }
    }

    @Test("reopening the data directory keeps sites, history, last positions and measurements",
          arguments: StoreKind.allCases)
    func reopenKeepsEverything(_ kind: StoreKind) throws {
        try withStore(kind) { (first: TestStore) throws in
            do {
                let store = first
                try store.saveSite(Site.demoWarehouse)
                let writer = store.makeWriter()
                for step in 0..<100 { writer.append(makeEstimate(tag: "T\(step % 7)", time: Int64(step))) }
                writer.append(measurementLine: Array("ranging,site=demo-warehouse x=1 5".utf8),
                              site: "demo-warehouse", time: 5)
                writer.close()
            }
            let store = try first.reopen()
            #expect(try store.loadSites() == [Site.demoWarehouse])
            #expect(try store.positionCount() == 100)
            #expect(try store.lastPositions().count == 7)
            #expect(try store.lastPositions().first == makeEstimate(tag: "T0", time: 98))
            #expect(try store.measurementCount() == 1)
        }
    }

    @Test("flush returns only after the rows are committed and visible to another connection", arguments: StoreKind.allCases)
    func flushCommits(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            // A long delay and a large batch: only flush can start this write.
            let writer = store.makeWriter(batchSize: 1_000_000, maxDelay: .seconds(3600))
            let reader = try store.reopen()  // another connection
            for step in 0..<1000 { writer.append(makeEstimate(tag: "T", time: Int64(step))) }
            #expect(writer.flush() == 1000)
            #expect(try reader.positionCount() == 1000)
            #expect(writer.flush() == 1000)  // nothing new: returns at once
            writer.close()
        }
    }

    @Test("rows are written after maxDelay without a flush", arguments: StoreKind.allCases)
    func maxDelayWrites(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 1000, maxDelay: .milliseconds(20))
            writer.append(makeEstimate(tag: "T", time: 1))
            #expect(writer.waitUntilWritten(1, timeout: .seconds(10)) == 1)
            writer.close()
        }
    }

    @Test("a closed writer drops and counts further appends without crashing", arguments: StoreKind.allCases)
    func closedWriterIgnoresAppends(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter()
            writer.append(makeEstimate(tag: "T", time: 1))
            writer.close()
            #expect(writer.stats.rowsWritten == 1)  // close flushed it
            writer.append(makeEstimate(tag: "T", time: 2))
            writer.append(measurementLine: [0x61], site: "s", time: 2)
            #expect(writer.flush() == 1)
            writer.close()
            let stats = writer.stats
            #expect(stats.droppedRows == 2 && stats.pending == 0 && stats.rowsWritten == 1)
            #expect(try store.positionCount() == 1)
        }
    }

    @Test("raw measurement lines are recorded with their site and time, in order", arguments: StoreKind.allCases)
    func measurementRecording(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 10)
            var expected: [RecordedMeasurement] = []
            for step in 0..<50 {
                let site = step % 2 == 0 ? "north" : "south"
                let line = Array("ranging,site=\(site),anchor=A1,tag=T distance=\(step).5 \(step)".utf8) + [0, 0xFF]
                writer.append(measurementLine: line, site: site, time: Int64(step / 5))  // repeated times
                expected.append(RecordedMeasurement(site: site, time: Int64(step / 5), line: line))
            }
            writer.append(measurementLine: [], site: "north", time: 100)
            #expect(writer.flush() == 51)
            #expect(writer.stats.measurementsWritten == 51 && writer.stats.positionsWritten == 0)
            writer.close()
            #expect(try store.measurementCount() == 51)
            #expect(try store.measurements(to: 100) == expected)
            #expect(try store.measurements(site: "south", from: 2, to: 4) == expected.filter {
                $0.site == "south" && (2..<4).contains($0.time)
            })
            #expect(try store.measurements(from: 100) == [RecordedMeasurement(site: "north", time: 100, line: [])])
            #expect(try store.measurements(limit: 3) == Array(expected.prefix(3)))
        }
    }

    @Test("NaN values are stored as NULL and read back as NaN", arguments: StoreKind.allCases)
    func nanRoundTrip(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter()
            var estimate = makeEstimate(tag: "T", time: 1)
            estimate.covXY = .nan
            writer.append(estimate)
            writer.close()
            #expect(writer.stats.rowsWritten == 1 && writer.stats.lastError == nil)
            let read = try #require(try store.positions(site: estimate.site, tag: "T").first)
            #expect(read.covXY.isNaN && read.position == estimate.position)
        }
    }
}
