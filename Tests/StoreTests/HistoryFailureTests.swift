import Foundation
import Positioning
import Testing
@testable import Store

/// A flag shared with the writer thread's `beforeBatch` seam.
final class SharedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised: Bool
    init(_ raised: Bool) { self.raised = raised }
    var value: Bool {
        get { lock.withLock { raised } }
        set { lock.withLock { raised = newValue } }
    }
}

@Suite("HistoryWriter failures")
struct HistoryFailureTests {
    @Test("on a full disk rows stay pending up to the bound, the error is reported, and writing resumes")
    func diskFullThenResumes() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            let full = SharedFlag(true)
            // max_page_count at the current size makes SQLite fail with SQLITE_FULL on growth.
            let writer = HistoryWriter(path: store.path, batchSize: 4096, maxDelay: .milliseconds(10),
                                       maxPending: 2500, retryDelay: .milliseconds(10)) { database in
                let count = try database.prepare(sql: "PRAGMA page_count")
                let pages = try count.step() ? count.int64(at: 0) : 0
                try database.execute(sql: "PRAGMA max_page_count = \(full.value ? pages : 1_073_741_823)")
            }
            for step in 0..<2000 { writer.append(makeEstimate(tag: "T\(step % 50)", time: Int64(step))) }
            writer.flush()
            var stats = writer.stats
            #expect(stats.rowsWritten == 0 && stats.pending == 2000 && stats.failedBatches >= 1)
            #expect(stats.lastError?.contains("full") == true, "\(stats.lastError ?? "nil")")

            for step in 2000..<3000 { writer.append(makeEstimate(tag: "T\(step % 50)", time: Int64(step))) }
            stats = writer.stats
            #expect(stats.pending == 2500 && stats.droppedRows == 500)  // the bound holds

            full.value = false  // space comes back
            // An attempt already under way may still have seen the disk full: the writer retries.
            #expect(writer.waitUntilWritten(2500, timeout: .seconds(10)) == 2500)
            stats = writer.stats
            #expect(stats.pending == 0 && stats.lastError == nil && stats.droppedRows == 500)
            writer.close()
            #expect(try store.positionCount() == 2500)
            // Tags first inserted by the rolled-back batches were inserted again on retry.
            #expect(try store.lastPositions().count == 50)
            #expect(try store.lastPositions().first { $0.tag == "T49" }?.time == 2499)
        }
    }

    @Test("the writer retries on its own, without a flush, once the disk has room again")
    func retriesWithoutFlush() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            let full = SharedFlag(true)
            let writer = HistoryWriter(path: store.path, batchSize: 10, maxDelay: .milliseconds(5),
                                       maxPending: 1000, retryDelay: .milliseconds(20)) { _ in
                if full.value { throw DatabaseError(extendedCode: 13, message: "database or disk is full") }
            }
            for step in 0..<100 { writer.append(makeEstimate(tag: "T", time: Int64(step))) }
            writer.flush()
            #expect(writer.stats.pending == 100)
            full.value = false
            #expect(writer.waitUntilWritten(100, timeout: .seconds(10)) == 100)
            #expect(writer.stats.lastError == nil)
            writer.close()
        }
    }

    @Test("a permanent error drops that batch only, counted, and later batches are written")
    func permanentErrorDropsBatch() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            let broken = SharedFlag(true)
            let writer = HistoryWriter(path: store.path, batchSize: 4096, maxDelay: .milliseconds(10),
                                       maxPending: 1000) { _ in
                if broken.value { throw DatabaseError(extendedCode: 1, message: "SQL logic error") }
            }
            for step in 0..<10 { writer.append(makeEstimate(tag: "T", time: Int64(step))) }
            writer.flush()
            #expect(writer.stats.droppedRows == 10 && writer.stats.pending == 0)
            #expect(writer.stats.lastError?.contains("SQL logic error") == true)
            broken.value = false
            writer.append(makeEstimate(tag: "T", time: 10))
            #expect(writer.flush() == 1)
            writer.close()
        }
    }

    @Test("close gives up on rows a failing disk will not take, and says so in the counters")
    func closeOnFailingDisk() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            let writer = HistoryWriter(path: store.path, batchSize: 4096, maxDelay: .milliseconds(10),
                                       maxPending: 1000) { _ in
                throw DatabaseError(extendedCode: 13, message: "database or disk is full")
            }
            for step in 0..<10 { writer.append(makeEstimate(tag: "T", time: Int64(step))) }
            writer.close()
            let stats = writer.stats
            #expect(stats.droppedRows == 10 && stats.pending == 0 && stats.rowsWritten == 0)
        }
    }

    @Test("appends from many threads while the writer commits: every accepted row is written once")
    func concurrentAppends() throws {
        try withTemporaryDirectory { directory in
            let store = try HistoryStore(directory: directory.path("data"))
            let writer = store.makeWriter(batchSize: 256, maxDelay: .milliseconds(1))
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for step in 0..<2000 { writer.append(makeEstimate(tag: "T\(thread)", time: Int64(step))) }
            }
            #expect(writer.flush() == 16_000)
            writer.close()
            #expect(try store.positionCount() == 16_000)
            #expect(try store.lastPositions().map(\.time) == Array(repeating: 1999, count: 8))
        }
    }
}
