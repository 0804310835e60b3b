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
}
