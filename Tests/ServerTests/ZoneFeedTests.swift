import Foundation
import Testing
import Positioning
import Store
import SextantTestSupport
@testable import Server

@Suite(.serialized) struct ZoneFeedTests {
    /// The demo warehouse with one more zone covering the whole floor, so that every tag enters it.
    static var siteFile: SiteFile {
        let base = Site.demoWarehouse
        let floor = Zone(id: "floor", name: "Whole floor", polygon: [(-5, -5), (45, -5), (45, 30), (-5, 30)])
        let site = Site(id: base.id, name: base.name, dimensions: base.dimensions, tagHeight: base.tagHeight,
                        bounds: base.bounds, anchors: base.anchors, zones: base.zones + [floor])
        return SiteFile(site: site, json: site.jsonBytes(), path: "test")
    }

    /// Zone lines reach a feed client subscribed to `kinds=zone` and the `zone_events` table.
    @Test func zoneEventsReachFeedAndHistory() throws {
        let t = try TestService(imports: [Self.siteFile])
        defer { try? FileManager.default.removeItem(atPath: t.directory) }
        let feed = try t.subscribedFeed("subscribe kinds=zone")
        let stream = demoLines(tags: 3, seconds: 3)
        try t.gateway().writeAll(stream)
        t.waitFor { $0.linesIn >= stream.filter { $0 == 10 }.count }
        let lines = feed.lines(timeout: 0.5).filter { !$0.hasPrefix("#") }
        let floorEnters = lines.filter { $0.contains("zone=floor event=\"enter\"") }
        #expect(floorEnters.count == 3, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("zone,site=demo-warehouse,tag=T") })
        // Every zone line produced is counted, and '#stats' reports the counter.
        #expect(t.service.stats().zoneEventsOut == lines.count)
        let stats = ServiceStats.parse(commentLines: try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort))
        #expect(stats.first { $0.0 == "zone_events_out" }?.1 == "\(lines.count)")
        t.stop(removeData: false)
        let store = try HistoryStore(directory: t.directory)
        let stored = try store.zoneEvents(site: "demo-warehouse").filter { $0.zone == "floor" }
        #expect(stored.map(\.tag).sorted() == ["T0", "T1", "T2"])
        #expect(stored.allSatisfy { $0.event == .enter })
    }
}
