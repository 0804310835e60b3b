import Foundation
import Testing
import Positioning
import Store
import SextantTestSupport
@testable import Server

@Suite(.serialized) struct PersistenceTests {
    /// A restart with the same data directory keeps the sites, the history and each tag's last
    /// position; a new feed client's snapshot holds the reloaded last positions.
    @Test func restartKeepsSitesHistoryAndLastPositions() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try TestService(directory: dir)
        let stream = demoLines(tags: 3, seconds: 3)
        try first.gateway().writeAll(stream)
        let s1 = first.waitFor { $0.linesIn >= stream.filter { $0 == 10 }.count }
        let before = first.service.lastPositions().sorted { $0.tag < $1.tag }
        first.stop(removeData: false)
        let written = first.service.stats()
        #expect(written.historyRowsWritten == written.positionsOut)
        #expect(s1.positionsOut > 0)

        let second = try TestService(directory: dir, imports: [])
        defer { second.stop(removeData: false) }
        #expect(second.service.sites.map(\.id) == ["demo-warehouse"])
        #expect(try second.host.store.positionCount() == written.positionsOut)
        let after = second.service.lastPositions().sorted { $0.tag < $1.tag }
        #expect(after.map(\.tag) == before.map(\.tag))
        #expect(after.map(\.time) == before.map(\.time))
        for (a, b) in zip(after, before) {
            // The store keeps doubles exactly (REAL is IEEE 754 binary64).
            #expect(a.position == b.position)
        }
        let snapshot = try second.feed("").lines(timeout: 0.6)
        #expect(positionLines(snapshot).map { $0.tag("tag")! }.sorted() == before.map(\.tag))
    }

    /// SIGTERM (here SIGUSR2 through the same `ShutdownSignals` path, so the test runner survives) loses
    /// no acknowledged history: every position a feed client received is in the store afterwards.
    @Test func signalShutdownLosesNoAcknowledgedHistory() throws {
        let t = try TestService { $0.outputInterval = 0; $0.historyMaxDelay = 5 }   // long delay: flush must do it
        let service = t.service
        let signals = ShutdownSignals([SIGUSR2]) { _ in service.shutdown() }
        let feed = try t.subscribedFeed("subscribe kinds=position")
        let stream = demoLines(tags: 3, seconds: 3)
        try t.gateway().writeAll(stream)
        let s = t.waitFor { $0.linesIn >= stream.filter { $0 == 10 }.count }
        var seen = positionLines(feed.lines(timeout: 0.5))
        #expect(!seen.isEmpty)
        #expect(s.positionsOut > 0)
        kill(getpid(), SIGUSR2)   // process-directed, as `kill -TERM` would be
        if !service.waitUntilShutdown(timeout: 10) {
            Issue.record("the signal did not shut the service down")
            service.shutdown()
        }
        #expect(service.state == .shutdown)
        seen += positionLines(feed.lines(timeout: 0.5))
        let final = service.stats()
        #expect(final.historyRowsWritten == final.positionsOut)
        let store = try HistoryStore(directory: t.directory)
        #expect(try store.positionCount() == final.positionsOut)
        var byTag: [String: Set<Int64>] = [:]
        for tag in ["T0", "T1", "T2"] {
            byTag[tag] = Set(try store.positions(site: "demo-warehouse", tag: tag).map(\.time))
        }
        for line in seen {
            #expect(byTag[line.tag("tag")!]?.contains(line.timestamp!) == true)
        }
        withExtendedLifetime(signals) {}
        try? FileManager.default.removeItem(atPath: t.directory)
    }

    /// With recording on, accepted raw lines are stored (a line without timestamp gets the receive time).
    @Test func recordsRawMeasurements() throws {
        let t = try TestService { $0.recordMeasurements = true }
        let g = try t.gateway()
        try g.writeAll(Array("ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000000000000\nranging,site=demo-warehouse,anchor=U2,tag=T1 distance=4\nbad line\n".utf8))
        t.waitFor { $0.linesIn >= 3 }
        t.stop(removeData: false)
        defer { try? FileManager.default.removeItem(atPath: t.directory) }
        let store = try HistoryStore(directory: t.directory)
        let rows = try store.measurements()
        #expect(rows.count == 2)
        #expect(rows.first.map { String(decoding: $0.line, as: UTF8.self) }
                == "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000000000000")
        let second = rows.last.map { String(decoding: $0.line, as: UTF8.self) } ?? ""
        #expect(second.hasPrefix("ranging,site=demo-warehouse,anchor=U2,tag=T1 distance=4 "))
        #expect(second.hasSuffix(" \(rows.last!.time)"))
    }
}
