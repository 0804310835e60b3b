import Foundation
import Testing
import SextantTestSupport
@testable import Server

/// An HTTP stream whose client stops reading: its socket fills, then its outbox, then its queue in the
/// hub, where the feed's overflow policy applies as it does to a TCP feed client.
@Suite(.serialized) struct HTTPOverflowTests {
    /// A service with a queue of 100 lines and `policy`, an SSE stream of every position opened on a
    /// raw socket with a small receive buffer that reads nothing, and 20 tags' lines sent to it.
    static func stalledStream(_ policy: OverflowPolicy) throws -> (TestService, Socket) {
        let t = try TestService.withHTTP { $0.outputInterval = 0; $0.feedQueueLines = 100; $0.overflow = policy }
        let s = try Socket.connect(host: "127.0.0.1", port: t.httpPort)
        s.setReceiveBufferSize(4096)
        try s.writeAll(Array("GET /api/v1/feed/sse?kinds=position HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(!t.log.waitFor("http stream subscribed", timeout: 10).isEmpty)
        try t.gateway().writeAll(demoLines(tags: 20, seconds: 10))
        return (t, s)
    }

    @Test("drop-oldest: a stalled stream skips what overflowed, says how much, and goes on when read again")
    func dropOldest() throws {
        let (t, stalled) = try Self.stalledStream(.dropOldest)
        defer { t.stop() }
        #expect(t.waitFor { $0.feedLinesDropped > 0 }.feedLinesDropped > 0, "the stream's queue overflowed")
        // Read again: the lines that waited, the marker where the dropped ones were, whole events.
        let lines = LineReader(stalled).lines(timeout: 10) { $0.hasPrefix("data: {\"type\":\"dropped\"") }
        let marker = try #require(lines.first { $0.hasPrefix("data: {\"type\":\"dropped\"") }, "\(lines.suffix(3))")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(marker.dropFirst(6).utf8)) as? [String: Any])
        #expect((object["lines"] as? Int ?? 0) > 0)
        // The stream is live again: a new position reaches it.
        try t.gateway().writeAll(demoLines(tags: 1, seconds: 1, prefix: "U"))
        let after = LineReader(stalled).lines(timeout: 10) { $0.contains("\"tag\":\"U0\"") }
        #expect(after.contains { $0.contains("\"tag\":\"U0\"") }, "\(after.suffix(3))")
        #expect(try metricValue(t.httpPort, "sextant_http_streams") == 1)
    }

    @Test("disconnect: a stalled stream is closed and counted, and the port goes on serving")
    func disconnect() throws {
        let (t, stalled) = try Self.stalledStream(.disconnect)
        defer { t.stop() }
        #expect(!t.log.waitFor("http stream too slow; disconnected", timeout: 10).isEmpty)
        #expect(try metricValue(t.httpPort, "sextant_http_streams_disconnected_total") == 1)
        #expect(try metricValue(t.httpPort, "sextant_http_streams") == 0)
        // What was written before the close ends with the reason, then the connection closes.
        let lines = LineReader(stalled).lines(timeout: 10) { $0.hasPrefix("data: too slow") }
        #expect(lines.contains("event: error"), "\(lines.suffix(3))")
        #expect(try curl(t.httpPort, "/healthz").status == 200)
    }
}
