import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// The `#anchors` lines by site and anchor: each anchor's `lines`.
private func anchorLines(_ t: TestService) throws -> [String: Int64] {
    let text = try StatsClient.request("#anchors", host: "127.0.0.1", port: t.service.feedPort)
    var out: [String: Int64] = [:]
    for raw in text.split(separator: "\n") {
        guard let line = try? ParsedLine.parse(String(raw)), case .integer(let n)? = line.field("lines") else { continue }
        out["\(line.tag("site") ?? "")/\(line.tag("anchor") ?? "")"] = n
    }
    return out
}

@Suite(.serialized) struct SiteReloadTests {
    /// `Service.reload(sites:)` (what SIGHUP does in `sextant serve`): the same map keeps the site's
    /// state, a changed map restarts its tracker, a new site is added; each reload is logged.
    @Test func reloadKeepsSameMapsAndReplacesChangedOnes() throws {
        let t = try TestService()
        let log = t.log
        defer { t.stop() }
        let g = try t.gateway()
        try g.writeAll(Array(("ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000000000000\n"
                              + "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000100000000\n").utf8))
        _ = t.waitFor { $0.eventsApplied >= 2 }
        #expect(try anchorLines(t)["demo-warehouse/U1"] == 2)

        t.service.reload(sites: [demoSiteFile])
        #expect(try anchorLines(t)["demo-warehouse/U1"] == 2)
        #expect(log.all.contains { $0.contains("sites reloaded") && $0.contains("unchanged=demo-warehouse") })

        var moved = Site.demoWarehouse
        moved.anchors[0].position.x += 1
        t.service.reload(sites: [SiteFile(site: moved, json: moved.jsonBytes(), path: "moved"), otherSiteFile])
        let after = try anchorLines(t)
        #expect(after["demo-warehouse/U1"] == 0)
        #expect(after["other/U1"] == 0)
        #expect(t.service.stats().sites == 2)
        #expect(log.all.contains { $0.contains("sites reloaded") && $0.contains("replaced=demo-warehouse")
            && $0.contains("added=other") })
        // The service goes on with the new map.
        try g.writeAll(Array("ranging,site=other,anchor=U1,tag=T9 distance=3 1700000000200000000\n".utf8))
        #expect(t.waitFor { $0.eventsApplied >= 3 }.eventsApplied == 3)
    }
}
