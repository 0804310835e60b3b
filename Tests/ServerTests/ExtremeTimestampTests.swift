import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// The lines that ended the service with SIGILL: timestamps at the ends of `Int64`, alone, after a
/// current line, and with no limit ahead. Each is answered or applied, and the service goes on.
@Suite(.serialized) struct ExtremeTimestampTests {
    private func line(_ tag: String, _ time: Int64) -> String {
        "ranging,site=demo-warehouse,anchor=U1,tag=\(tag) distance=3 \(time)\n"
    }

    private func survives(_ text: String, lines: Int, configure: (inout ServiceConfig) -> Void = { _ in }) throws {
        let t = try TestService(configure)
        defer { t.stop() }
        let g = try t.gateway()
        try g.writeAll(Array(text.utf8))
        // The loop's clock sweep (once a second) and the anchor watch run with the extreme time in place.
        let after = t.waitFor { $0.linesIn >= lines }
        #expect(after.linesIn == lines)
        let stats = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort)
        #expect(!stats.isEmpty)
        _ = try StatsClient.request("#anchors", host: "127.0.0.1", port: t.service.feedPort)
        // A current line after them is still taken.
        try g.writeAll(Array(line("Z", ServiceClock.wallNow()).utf8))
        #expect(t.waitFor { $0.linesIn >= lines + 1 }.linesIn == lines + 1)
    }

    @Test("a line stamped Int64.min")
    func minimum() throws {
        try survives(line("T1", .min), lines: 1)
    }

    @Test("a line stamped -7.5e18 after a current one")
    func farPastAfterCurrent() throws {
        try survives(line("T1", ServiceClock.wallNow()) + line("T1", -7_500_000_000_000_000_000), lines: 2)
    }

    @Test("a line stamped Int64.max with no limit ahead")
    func maximumWithoutLimit() throws {
        try survives(line("T1", .max) + line("T2", .max - 1), lines: 2) { $0.maxClockAhead = 0 }
    }
}
