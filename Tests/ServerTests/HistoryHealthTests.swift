import Foundation
import Testing
import Positioning
import SextantTestSupport
@testable import Server

/// A history sink whose counters the test sets; it stores nothing.
final class ScriptedSink: HistorySink, @unchecked Sendable {
    // Invariant: `current` is read and written only with `lock` held.
    private let lock = NSLock()
    private var current = HistorySinkStats()
    func set(_ stats: HistorySinkStats) { lock.withLock { current = stats } }
    func append(_ estimate: PositionEstimate) {}
    func append(measurementLine: [UInt8], site: String, time: Int64) {}
    func appendZoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64) {}
    func flush() -> Int { sinkStats.rowsWritten }
    func close() {}
    var sinkStats: HistorySinkStats { lock.withLock { current } }
}

@Suite struct HistoryHealthTests {
    /// A storage error of the history (disk full) is logged once when it appears, dropped rows are
    /// logged, and the recovery is logged when batches commit again; the service runs on throughout.
    @Test func historyErrorsAndRecoveryAreLogged() throws {
        let sink = ScriptedSink()
        let log = LogLines()
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        let service = try Service(config: config, sites: [.demoWarehouse], history: sink,
                                  logger: log.logger())
        try service.start()
        defer { service.shutdown() }
        func waitForLine(_ text: String) -> Bool { !log.waitFor(text).isEmpty }
        sink.set(HistorySinkStats(rowsWritten: 10, pending: 500, dropped: 0,
                                  lastError: "SQLITE_FULL (13): database or disk is full"))
        #expect(waitForLine("level=error msg=\"history write failed"))
        #expect(log.all.contains { $0.contains("database or disk is full") })
        sink.set(HistorySinkStats(rowsWritten: 10, pending: 0, dropped: 3,
                                  lastError: "SQLITE_FULL (13): database or disk is full"))
        #expect(waitForLine("msg=\"history rows dropped\" dropped=3"))
        sink.set(HistorySinkStats(rowsWritten: 600, pending: 0, dropped: 3, lastError: nil))
        #expect(waitForLine("msg=\"history writing resumed\""))
        #expect(log.all.filter { $0.contains("history write failed") }.count == 1)
    }

    /// A failure that a retry overcame between two health checks (a database restart shorter than a
    /// second) is still logged, with its cause and the number of failed attempts.
    @Test func failureBetweenChecksIsLogged() throws {
        let sink = ScriptedSink()
        let log = LogLines()
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        let service = try Service(config: config, sites: [.demoWarehouse], history: sink, logger: log.logger())
        try service.start()
        defer { service.shutdown() }
        sink.set(HistorySinkStats(rowsWritten: 700, pending: 0, dropped: 0, lastError: nil, failures: 2,
                                  lastFailure: "PostgreSQL error 57P01: terminating connection due to administrator command"))
        let lines = log.waitFor("msg=\"history write failed; the rows were kept and written on retry\"")
        #expect(lines.first?.contains("57P01") == true, "\(lines)")
        #expect(lines.first?.contains("failures=2") == true, "\(lines)")
        #expect(service.stats().historyFailures == 2)
    }
}
