import Positioning
import Testing
@testable import Store

@Suite("Zone events")
struct ZoneEventTests {
    @Test("zone events written by the history writer read back by site and time range", arguments: StoreKind.allCases)
    func writeAndRead(_ kind: StoreKind) throws {
        try withStore(kind) { (store: TestStore) throws in
            let writer = store.makeWriter(batchSize: 2)
            writer.append(makeEstimate(tag: "T1", time: 5))
            writer.appendZoneEvent(site: "demo-warehouse", tag: "T1", zone: "dock", event: .enter, time: 10)
            writer.appendZoneEvent(site: "demo-warehouse", tag: "T1", zone: "dock", event: .exit, time: 20)
            writer.appendZoneEvent(site: "other", tag: "T1", zone: "dock", event: .enter, time: 15)
            #expect(writer.flush() == 4)
            #expect(writer.stats.droppedRows == 0)
            let all = try store.zoneEvents(site: "demo-warehouse")
            #expect(all == [
                ZoneEventRecord(site: "demo-warehouse", tag: "T1", zone: "dock", event: .enter, time: 10),
                ZoneEventRecord(site: "demo-warehouse", tag: "T1", zone: "dock", event: .exit, time: 20),
            ])
            // from inclusive, to exclusive.
            #expect(try store.zoneEvents(site: "demo-warehouse", from: 10, to: 20).map(\.time) == [10])
            #expect(try store.zoneEvents(site: "demo-warehouse", from: 11).map(\.time) == [20])
            #expect(try store.measurementCount() == 0, "zone events are not recorded lines")
            writer.close()
        }
    }

    @Test("dwell: closed stays, a stay open at the end counts to `to`, an exit first counts from `from`")
    func summary() {
        func e(_ tag: String, _ zone: String, _ event: ZoneEvent, _ t: Nanoseconds) -> ZoneEventRecord {
            ZoneEventRecord(site: "S", tag: tag, zone: zone, event: event, time: t)
        }
        let events = [e("A", "dock", .enter, 10), e("B", "dock", .exit, 12), e("A", "dock", .exit, 30),
                      e("A", "dock", .enter, 40), e("A", "gate", .enter, 50), e("A", "gate", .exit, 55)]
        let open = ZoneDwell.summarize(events, from: nil, to: nil)
        #expect(open == [
            ZoneDwell(tag: "A", zone: "dock", entries: 2, exits: 1, dwell: 20, inside: true),
            ZoneDwell(tag: "A", zone: "gate", entries: 1, exits: 1, dwell: 5, inside: false),
            ZoneDwell(tag: "B", zone: "dock", entries: 0, exits: 1, dwell: 0, inside: false),
        ])
        let bounded = ZoneDwell.summarize(events, from: 0, to: 100)
        #expect(bounded.map(\.dwell) == [80, 5, 12])
    }
}
