import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

@Suite(.serialized) struct FeedTests {
    /// Filters by tag, kind and site; the snapshot holds the last position of the selected tags only.
    /// The tags time out after the stream (2 s without a line), so the `kinds=removed` client gets
    /// their `removed` lines and nothing else.
    @Test func subscriptionFiltersAndSnapshot() throws {
        let t = try TestService { $0.outputInterval = 0; $0.tagTimeout = 2 }
        defer { t.stop() }
        let onlyT1 = try t.feed("subscribe tags=T1 kinds=position")
        let otherSite = try t.feed("subscribe sites=elsewhere")
        let removedOnly = try t.feed("subscribe kinds=removed")
        let everything = try t.feed()          // sends nothing: everything after the wait
        #expect(t.log.waitFor(TestService.subscribed, count: 4).count == 4)
        let stream = demoLines(tags: 3, seconds: 3)
        try t.gateway().writeAll(stream)
        t.waitFor { $0.linesIn >= lineCount(stream) }

        // A new client gets at once the last position of each selected tag (before the tags time out).
        let late = try t.feed("subscribe tags=T0,T2")
        let snapshot = late.lines(timeout: 0.5)
        #expect(snapshot.count == 2)
        let last = Dictionary(uniqueKeysWithValues: t.service.lastPositions().map { ($0.tag, $0) })
        for line in positionLines(snapshot) {
            let tag = line.tag("tag")!
            #expect(line.timestamp == last[tag]?.time)
        }

        // The live lines wait in each client's socket until it reads them.
        let a = onlyT1.lines(timeout: 1)
        #expect(!a.isEmpty)
        #expect(a.allSatisfy { $0.hasPrefix("position,site=demo-warehouse,tag=T1 ") })
        #expect(otherSite.lines(timeout: 0.3).isEmpty)
        let all = everything.lines(timeout: 1)
        #expect(Set(positionLines(all).compactMap { $0.tag("tag") }) == ["T0", "T1", "T2"])
        // A bad subscription is answered and closed.
        let bad = try t.feed("subscribe colour=red")
        let reply = bad.lines(timeout: 1)
        #expect(reply.first?.hasPrefix("# error: unknown key 'colour'") == true)
        #expect(bad.closed)

        // The three tags time out: the removed-only client reads exactly their three `removed` lines.
        #expect(t.waitFor { $0.removedOut >= 3 }.removedOut == 3)
        var read = 0
        let gone = removedOnly.lines(timeout: 5) { _ in
            read += 1
            return read == 3
        }
        #expect(gone.count == 3)
        #expect(gone.allSatisfy { $0.hasPrefix("removed,site=demo-warehouse,tag=T") }, "\(gone)")
        #expect(Set(gone.compactMap { (try? ParsedLine.parse($0))?.tag("tag") }) == ["T0", "T1", "T2"])
    }

    /// A subscriber that never reads while ingest goes on at full speed: ingest is not slowed (every
    /// line is processed), its queue drops the oldest lines, and when it reads it sees the marker.
    @Test func stalledSubscriberDoesNotSlowIngest() throws {
        let t = try TestService { $0.outputInterval = 0; $0.feedQueueLines = 200 }
        defer { t.stop() }
        let stalled = try Socket.connect(host: "127.0.0.1", port: t.service.feedPort)
        stalled.setReceiveBufferSize(4096)
        try stalled.writeAll(Array("\n".utf8))
        let reader = try t.feed("subscribe kinds=removed")
        #expect(t.log.waitFor(TestService.subscribed, count: 2).count == 2)
        let stream = demoLines(tags: 20, seconds: 20)
        let expected = stream.filter { $0 == 10 }.count
        let started = Date()
        try t.gateway().writeAll(stream)
        let s = t.waitFor(timeout: 20 * testTimeScale) { $0.linesIn >= expected }
        let seconds = Date().timeIntervalSince(started)
        #expect(s.linesIn == expected)
        #expect(s.feedLinesDropped > 0)
        #expect(s.feedClients == 2)
        #expect(seconds < 15 * testTimeScale)
        _ = reader
        let lines = LineReader(stalled).lines(timeout: 2) { $0.hasPrefix("# dropped ") }
        #expect(lines.contains { $0.hasPrefix("# dropped ") && $0.hasSuffix(" lines") })
        // Every other line is a whole feed line.
        #expect(lines.filter { !$0.hasPrefix("#") }.allSatisfy { (try? ParsedLine.parse($0)) != nil })
    }

    /// With the `disconnect` policy, a stalled subscriber is closed and counted.
    @Test func overflowDisconnectPolicy() throws {
        let t = try TestService { $0.outputInterval = 0; $0.feedQueueLines = 100; $0.overflow = .disconnect }
        defer { t.stop() }
        let stalled = try Socket.connect(host: "127.0.0.1", port: t.service.feedPort)
        stalled.setReceiveBufferSize(4096)
        try stalled.writeAll(Array("\n".utf8))
        #expect(t.log.waitFor(TestService.subscribed).count == 1)
        try t.gateway().writeAll(demoLines(tags: 20, seconds: 10))
        let s = t.waitFor { $0.feedClientsDisconnected >= 1 }
        #expect(s.feedClientsDisconnected == 1)
        #expect(s.feedClients == 0)
    }

    /// `#stats` as the first line: `# key=value` lines then close; `#stats lp`: one parseable line.
    @Test func statsRequests() throws {
        let t = try TestService()
        defer { t.stop() }
        try t.gateway().writeAll(Array("nonsense\n".utf8) + demoLines(tags: 1, seconds: 1))
        t.waitFor { $0.eventsApplied > 10 }
        let text = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort)
        let pairs = Dictionary(uniqueKeysWithValues: ServiceStats.parse(commentLines: text))
        #expect(pairs["rejected_malformed"] == "1")
        #expect(Int(pairs["lines_in"] ?? "") ?? 0 > 10)
        #expect(text.hasSuffix("# end\n"))
        let lp = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort, lineProtocol: true)
        let line = try #require(try ParsedLine.parse(lp.trimmingCharacters(in: .newlines)))
        #expect(line.measurement == "sextant_stats")
        #expect(line.field("rejected_malformed") == .integer(1))
        #expect(line.timestamp != nil)
    }

    /// Feed lines read back with the project's line-protocol parser (`scripts/feed-check` reads the
    /// live feed with a stock parser, PyPI's `line-protocol-parser`).
    @Test func feedLinesParseAsLineProtocol() throws {
        let t = try TestService { $0.outputInterval = 0 }
        defer { t.stop() }
        let feed = try t.subscribedFeed("")
        try t.gateway().writeAll(demoLines(tags: 2, seconds: 2))
        let lines = feed.lines(timeout: 1).filter { !$0.hasPrefix("#") }
        #expect(!lines.isEmpty)
        for l in lines { #expect((try? ParsedLine.parse(l)) != nil, "\(l)") }
    }
}
