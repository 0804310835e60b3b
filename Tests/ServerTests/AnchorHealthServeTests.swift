import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// A ranging line of the demo warehouse from `anchor`, stamped `t0 + ms` milliseconds.
private func ranging(_ anchor: String, _ ms: Int64) -> String {
    "ranging,site=demo-warehouse,anchor=\(anchor),tag=T1 distance=3 \(1_700_000_000_000_000_000 + ms * 1_000_000)\n"
}

@Suite(.serialized) struct AnchorHealthServeTests {
    /// `#anchors` answers one `anchor_health` line per anchor of the site, with its lines counted and
    /// the seconds since its latest one, then closes; `sextant status --anchors` reads this.
    @Test func anchorsRequestReportsEveryAnchor() throws {
        let t = try TestService()
        defer { t.stop() }
        let g = try t.gateway()
        try g.writeAll(Array((ranging("U1", 0) + ranging("U1", 100) + ranging("U2", 200)).utf8))
        _ = t.waitFor { $0.eventsApplied >= 3 }
        let text = try StatsClient.request("#anchors", host: "127.0.0.1", port: t.service.feedPort)
        let lines = text.split(separator: "\n").compactMap { try? ParsedLine.parse(String($0)) }
        #expect(lines.count == Site.demoWarehouse.anchors.count)
        #expect(lines.allSatisfy { $0.measurement == "anchor_health" && $0.tag("site") == "demo-warehouse" })
        let byAnchor = Dictionary(uniqueKeysWithValues: lines.map { ($0.tag("anchor") ?? "", $0) })
        #expect(byAnchor["U1"]?.field("lines") == .integer(2))
        #expect(byAnchor["U2"]?.field("lines") == .integer(1))
        #expect(byAnchor["U3"]?.field("lines") == .integer(0) && byAnchor["U3"]?.field("silent_s") == nil)
        // U1's latest line is 0.1 s older than U2's, the newest.
        let u1 = try #require(byAnchor["U1"]?.field("silent_s")?.doubleValue)
        let u2 = try #require(byAnchor["U2"]?.field("silent_s")?.doubleValue)
        #expect(abs((u1 - u2) - 0.1) < 0.01, "\(u1) \(u2)")
    }

    /// An anchor heard and then silent for `anchorSilence` (by the gateways' clock: its lines stop while
    /// another anchor's go on) is logged once and counted in `anchors_silent`; when it is heard again,
    /// that is logged and the count falls back. The site's anchors never heard are counted and logged
    /// too, once each.
    @Test func aSilentAnchorIsWarnedAboutAndCounted() throws {
        let t = try TestService { $0.anchorSilence = 2 }
        let log = t.log
        defer { t.stop() }
        let g = try t.gateway()
        try g.writeAll(Array((ranging("U1", 0) + ranging("U2", 0)).utf8))
        var text = ""
        for k in 1...50 { text += ranging("U2", Int64(k) * 100) }   // U2 goes on for 5 s, U1 does not
        try g.writeAll(Array(text.utf8))
        // U1, and the 9 anchors never heard since the site's first line.
        let others = Site.demoWarehouse.anchors.count - 2
        let silent = t.waitFor(timeout: 5) { $0.anchorsSilent == 1 + others }
        #expect(silent.anchorsSilent == 1 + others)
        #expect(log.all.filter { $0.contains("anchor silent") }.count == 1)
        #expect(log.all.contains { $0.contains("anchor silent") && $0.contains("anchor=U1") })
        #expect(log.all.filter { $0.contains("anchor never heard") }.count == others)
        #expect(!log.all.contains { $0.contains("anchor=U2") })

        try g.writeAll(Array(ranging("U1", 5_100).utf8))
        let back = t.waitFor(timeout: 5) { $0.anchorsSilent == others }
        #expect(back.anchorsSilent == others)
        #expect(log.all.contains { $0.contains("anchor heard again") && $0.contains("anchor=U1") })
    }
}
