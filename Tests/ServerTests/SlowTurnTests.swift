import Foundation
import Testing
import Positioning
import SextantTestSupport
@testable import Server

/// A history sink that holds the event loop once, on the first position, until the test releases
/// it: a stand-in for a long loop turn (a backlog on many gateways).
final class StallingSink: HistorySink, @unchecked Sendable {
    let stalled = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    // Invariant: `done` is touched only on the loop thread (append runs there).
    private var done = false
    func append(_ estimate: PositionEstimate) {
        guard !done else { return }
        done = true
        stalled.signal()
        _ = release.wait(timeout: .now() + 30)   // bounded: a test that fails early still ends
    }
    func append(measurementLine: [UInt8], site: String, time: Int64) {}
    func appendZoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64) {}
    func flush() -> Int { 0 }
    func close() {}
    var sinkStats: HistorySinkStats { HistorySinkStats() }
}

@Suite struct SlowTurnTests {
    /// A `#stats` request sent in time is answered as `#stats` even when the loop turn that accepted the
    /// connection outlasted the subscription wait (here 0 s): the request is read before the client is
    /// taken for a silent subscriber.
    @Test func statsRequestSurvivesALongTurn() throws {
        let sink = StallingSink()
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        config.subscriptionWait = 0
        let service = try Service(config: config, sites: [.demoWarehouse], history: sink, logger: .silent)
        try service.start()
        defer { service.shutdown() }
        try Socket.connect(host: "127.0.0.1", port: service.ingestPort).writeAll(demoLines(tags: 2, seconds: 2))
        #expect(sink.stalled.wait(timeout: .now() + 10) == .success)
        // The loop is held: the connection and its request wait in the kernel until the next turn.
        let s = try Socket.connect(host: "127.0.0.1", port: service.feedPort)
        try s.writeAll(Array("#stats\n".utf8))
        sink.release.signal()   // the turn ends long after the subscription wait (0 s) passed
        let reader = LineReader(s)
        let lines = reader.lines(timeout: 5) { $0 == "# end" }
        #expect(lines.first?.hasPrefix("# lines_in=") == true)
        #expect(lines.last == "# end")
        #expect(positionLines(lines).isEmpty)
    }
}
