import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// A sink whose `close()` loses rows, as the history writer does when the disk is still full at
/// shutdown.
private final class FullDiskSink: HistorySink, @unchecked Sendable {
    // Invariant: `current` is read and written only with `lock` held.
    private let lock = NSLock()
    private var current = HistorySinkStats(rowsWritten: 10, pending: 0, dropped: 0, lastError: nil)
    func append(_ estimate: PositionEstimate) {}
    func append(measurementLine: [UInt8], site: String, time: Int64) {}
    func appendZoneEvent(site: String, tag: String, zone: String, event: ZoneEvent, time: Int64) {}
    func flush() -> Int { 0 }
    func close() {
        lock.withLock {
            current = HistorySinkStats(rowsWritten: 10, pending: 0, dropped: 1300,
                                       lastError: "SQLITE_FULL (13): database or disk is full")
        }
    }
    var sinkStats: HistorySinkStats { lock.withLock { current } }
}

@Suite(.serialized) struct HostileClientTests {
    /// 8,839 wrong tokens a second from one client were each logged, with no back-off.
    @Test("wrong tokens from one address earn a back-off and one log line a second")
    func authenticationFlood() throws {
        let t = try TestService { c in
            c.ingestTokens = AccessList([AccessToken(name: "gw", secret: gatewaySecret)])
        }
        defer { t.stop() }
        let log = t.log
        var replies: [String] = []
        for _ in 0..<12 {
            let g = try t.gateway()
            try? g.writeAll(Array("auth wrong-token-0123456789\n".utf8))
            replies.append(LineReader(g).lines(timeout: 3).first ?? "")
        }
        let failures = AuthBackoff.freeFailures + 1   // the sixth failure starts the back-off
        #expect(replies.prefix(failures).allSatisfy { $0 == "# error: authentication failed: unknown token" }, "\(replies)")
        #expect(replies.dropFirst(failures).allSatisfy { $0.hasPrefix("# error: too many failed authentications from 127.0.0.1; retry in ") },
                "\(replies)")
        let s = t.waitFor { $0.authBackoffRefused >= 12 - failures }
        #expect(s.authFailures == failures)
        #expect(s.authBackoffRefused == 12 - failures)
        let stats = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort)
        #expect(stats.contains("auth_backoff_refused=\(12 - failures)") || stats.contains("auth_backoff_refused \(12 - failures)"), "\(stats)")
        // One warning per second at most: the first one, and the others counted in the next.
        let warnings = log.all.filter { $0.contains("msg=\"authentication failed\"") }
        #expect(warnings.count >= 1 && warnings.count <= 2, "\(warnings)")
        // The right token is let in once the back-off has passed (the gate's clock moved on by the
        // back-off's memory and longest wait, rather than waited out).
        t.service.onLoop { $0.gate.everySecond(now: ServiceClock.monotonicNow() + AuthBackoff.memory + AuthBackoff.maxDelay) }
        let g = try t.gateway()
        try g.writeAll(Array("auth \(gatewaySecret)\n\(oneRange)".utf8))
        #expect(t.waitFor { $0.eventsApplied >= 1 }.eventsApplied == 1)
        #expect(t.service.stats().authBackoffRefused == 12 - failures)
    }

    /// Without authentication nothing closed a connection that never sends.
    @Test("an ingest connection idle for ingestIdleTimeout is told and closed; a talking one stays")
    func idleTimeout() throws {
        let t = try TestService { $0.ingestIdleTimeout = 0.5 }
        defer { t.stop() }
        let idle = try t.gateway()
        let reader = LineReader(idle)
        let lines = reader.lines(timeout: 5 * testTimeScale)
        #expect(lines == ["# error: idle for 0.5 s (ingestIdleTimeout); closing"])
        #expect(reader.closed)
        #expect(t.waitFor { $0.ingestConnections == 0 }.ingestConnections == 0)
    }

    @Test("--bind takes an IPv6 address: ::1 and [::1]")
    func ipv6() throws {
        for address in ["::1", "[::1]"] {
            let t = try TestService { $0.bindAddress = address }
            defer { t.stop() }
            let g = try Socket.connect(host: "::1", port: t.service.ingestPort)
            try g.writeAll(Array("ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3\n".utf8))
            #expect(t.waitFor { $0.eventsApplied >= 1 }.eventsApplied == 1, "\(address)")
            let stats = try StatsClient.request(host: "[::1]", port: t.service.feedPort)
            #expect(stats.contains("events_applied"), "\(stats)")
        }
        var c = ServiceConfig()
        c.bindAddress = "[::1]:7400"
        #expect(throws: ConfigError(key: "bind", message: "'[::1]:7400' is not an IPv4 or IPv6 address")) { try c.validate() }
    }

    /// Lines stamped in milliseconds were stored as 1970-01-01.
    @Test("a millisecond timestamp on a nanosecond connection is refused as timestamp_looks_like_ms; '#precision ms' takes it")
    func precision() throws {
        let t = try TestService()
        defer { t.stop() }
        let g = try t.gateway()
        let ms = ServiceClock.wallNow() / 1_000_000
        var text = "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(ms)\n"           // 1: refused
        text += "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(ms / 1000)\n"       // 2: seconds
        text += "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 12\n"                  // 3: nothing fits
        text += "#precision ms\n"                                                               // 4
        text += "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(ms)\n"               // 5: taken
        text += "#precision minutes\n"                                                          // 6: refused
        text += "ranging,site=demo-warehouse,anchor=U1,tag=T2 distance=3 \(ms + 1)\n"           // 7: still ms
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= 7 }
        #expect(s.rejected["timestamp_looks_like_ms"] == 1)
        #expect(s.rejected["timestamp_looks_like_s"] == 1)
        #expect(s.rejected["timestamp_implausible"] == 1)
        #expect(s.rejected["bad_value"] == 1)
        #expect(s.eventsApplied == 2)
        let replies = LineReader(g).lines(timeout: 3) { $0.contains("line 6:") }
        #expect(replies.first?.hasPrefix("# rejected line 1: timestamp \(ms) read in ns is 1970-01-01T") == true, "\(replies)")
        #expect(replies.first?.contains("it looks like milliseconds: send '#precision ms' first on the connection") == true,
                "\(replies)")
        #expect(replies.first?.hasSuffix("[timestamp_looks_like_ms]") == true, "\(replies)")
        #expect(replies.last?.contains("'#precision' has unknown value 'minutes'") == true, "\(replies)")
        // The positions are stamped in nanoseconds.
        let positions = t.service.lastPositions()
        #expect(positions.allSatisfy { $0.time >= ms * 1_000_000 })
    }

    @Test("timestampPrecision sets every connection's default")
    func precisionSetting() throws {
        let t = try TestService { $0.timestampPrecision = .s }
        defer { t.stop() }
        let g = try t.gateway()
        let now = ServiceClock.wallNow()
        var text = "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(now / 1_000_000_000)\n"   // taken
        text += "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(now)\n"   // nanoseconds: too large in s
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= 2 }
        #expect(s.eventsApplied == 1)
        #expect(s.rejected["timestamp_out_of_range"] == 1)
    }

    /// At SIGTERM with the disk still full, 1,300 dropped rows showed only on an info line.
    @Test("rows lost at shutdown are logged as an error with their count")
    func rowsLostAtShutdown() throws {
        let log = LogLines()
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        let service = try Service(config: config, sites: [.demoWarehouse], history: FullDiskSink(),
                                  logger: log.logger())
        try service.start()
        service.shutdown()
        #expect(!log.waitFor("level=error msg=\"history rows lost at shutdown: they could not be written\" dropped=1300").isEmpty,
                "\(log.all)")
        #expect(log.all.contains { $0.contains("database or disk is full") })
    }
}
