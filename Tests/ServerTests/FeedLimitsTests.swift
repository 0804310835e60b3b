import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// What a feed client can make the service hold or do, against the real service: every reply it causes
/// stays inside its queue limit, tag names are forgotten, a snapshot of many tags is sent lazily, and
/// the smaller feed defects (a half-closed client, a late subscription, a site-restricted `#stats`).
@Suite(.serialized) struct FeedLimitsTests {
    /// A subscriber that never reads and sends 10,000 `#anchors`: its queue stays at the limit and the
    /// replies beyond it are counted as dropped.
    @Test func anchorsFloodStaysInsideTheQueue() throws {
        let limit = 1_000
        let t = try TestService { $0.feedQueueLines = limit }
        defer { t.stop() }
        let flooder = try Socket.connect(host: "127.0.0.1", port: t.service.feedPort)
        flooder.setReceiveBufferSize(4096)
        try flooder.writeAll(Array("subscribe kinds=removed\n".utf8))
        let requests = 10_000
        try flooder.writeAll(Array(String(repeating: "#anchors\n", count: requests).utf8))
        // The kernel's buffers take a few megabytes of replies; the rest must be refused, not queued.
        let s = t.waitFor(timeout: 60 * testTimeScale) { $0.feedRepliesDropped >= requests / 4 }
        #expect(s.feedRepliesDropped >= requests / 4)
        #expect(s.feedLinesDropped >= s.feedRepliesDropped)
        let queued = t.service.feedQueuedLines()
        #expect(queued.count == 1)
        #expect(queued.allSatisfy { $0 <= limit }, "\(queued)")
        withExtendedLifetime(flooder) {}
    }

    /// 30,000 remembered tags (more than the kernel buffers of a socket hold) and five subscribe-all
    /// clients that never read: each holds one snapshot chunk, inside its queue limit, and `#stats`
    /// is answered.
    @Test func snapshotOfManyTagsStaysInsideTheQueue() throws {
        var config = ServiceConfig()
        config.ingestPort = 0
        config.feedPort = 0
        config.feedQueueLines = 1_000
        config.subscriptionWait = 0.05
        let positions = (0..<30_000).map { n in
            PositionEstimate(site: "demo-warehouse", tag: "tag-\(n)", position: .init(1, 2, 0), velocity: .init(0, 0, 0),
                             covXX: 0.01, covXY: 0, covYY: 0.01, anchors: 4, motion: .stationary,
                             time: 1_700_000_000_000_000_000)
        }
        let log = LogLines()
        let service = try Service(config: config, sites: [.demoWarehouse], lastPositions: positions, logger: log.logger())
        try service.start()
        defer { service.shutdown() }
        var stalled: [Socket] = []
        for _ in 0..<5 {
            let s = try Socket.connect(host: "127.0.0.1", port: service.feedPort)
            s.setReceiveBufferSize(4096)
            try s.writeAll(Array("subscribe\n".utf8))
            stalled.append(s)
        }
        // A debug build encodes each subscriber's first chunks (until its socket's buffers are full) at
        // about 0.5 ms a line: seconds on a loaded machine.
        #expect(log.waitFor(TestService.subscribed, count: 5, timeout: 30).count == 5)
        let text = try StatsClient.request(host: "127.0.0.1", port: service.feedPort, timeout: 30 * testTimeScale)
        #expect(text.contains("# positions_remembered=30000\n"))
        let queued = service.feedQueuedLines()
        #expect(queued.count == 5)
        #expect(queued.allSatisfy { $0 <= config.feedQueueLines }, "\(queued)")
        withExtendedLifetime(stalled) {}
    }

    /// Tags that time out are forgotten: the map of last positions empties, and a new subscriber's
    /// snapshot is empty. At most `maxRememberedTags` are remembered.
    @Test func removedTagsAreForgotten() throws {
        let t = try TestService { $0.tagTimeout = 0.2; $0.outputInterval = 0; $0.maxRememberedTags = 2 }
        defer { t.stop() }
        try t.gateway().writeAll(demoLines(tags: 3, seconds: 1))
        let live = t.waitFor { $0.positionsOut > 0 && $0.tags == 3 }
        #expect(live.positionsRemembered == 2)
        #expect(live.positionsNotRemembered > 0)
        let s = t.waitFor { $0.removedOut >= 3 }
        #expect(s.removedOut == 3)
        #expect(s.positionsRemembered == 0)
        #expect(t.service.lastPositions().isEmpty)
        #expect(positionLines(try t.feed("subscribe").lines(timeout: 0.5)).isEmpty)
    }

    /// `nc -N`: a dashboard that closes its write side after subscribing keeps receiving.
    @Test func halfClosedDashboardKeepsReceiving() throws {
        let t = try TestService { $0.outputInterval = 0 }
        defer { t.stop() }
        let socket = try Socket.connect(host: "127.0.0.1", port: t.service.feedPort)
        try socket.writeAll(Array("subscribe kinds=position\n".utf8))
        Syscall.shutdownWrite(socket.fd)
        let reader = LineReader(socket)
        #expect(t.waitFor { $0.feedClients == 1 }.feedClients == 1)
        try t.gateway().writeAll(demoLines(tags: 2, seconds: 2))
        let lines = reader.lines(timeout: 5) { $0.hasPrefix("position,") }
        #expect(lines.contains { $0.hasPrefix("position,") })
        #expect(!reader.closed)
    }

    /// A subscription line sent after the wait replaces the everything the client got meanwhile; a
    /// line that is not one is answered with an error.
    @Test func lateSubscriptionIsHonoured() throws {
        let t = try TestService { $0.outputInterval = 0; $0.subscriptionWait = 0.05 }
        defer { t.stop() }
        let first = demoLines(tags: 2, seconds: 1, prefix: "A")
        try t.gateway().writeAll(first)
        t.waitFor { $0.positionsOut > 0 && $0.positionsRemembered == 2 }
        let late = try t.feed()
        // The snapshot shows that the wait is over and the client has everything.
        #expect(late.lines(timeout: 5) { $0.hasPrefix("position,") }.contains { $0.hasPrefix("position,") })
        try late.socket.writeAll(Array("subscribe kinds=removed\n#stats\n".utf8))
        #expect(late.lines(timeout: 5) { $0 == "# end" }.last == "# end")
        let second = demoLines(tags: 2, seconds: 1, prefix: "B")
        let total = t.service.stats().linesIn + second.filter { $0 == 10 }.count
        try t.gateway().writeAll(second)
        t.waitFor { $0.linesIn >= total }
        let after = late.lines(timeout: 0.5)
        #expect(positionLines(after).isEmpty, "\(after.prefix(2))")
        // A late line that is not a subscription is answered with the error, and the client closed.
        let bad = try t.feed()
        #expect(bad.lines(timeout: 5) { $0.hasPrefix("position,") }.contains { $0.hasPrefix("position,") })
        try bad.socket.writeAll(Array("subscribe colour=red\n".utf8))
        let reply = bad.lines(timeout: 5)
        #expect(reply.last?.hasPrefix("# error: unknown key 'colour'") == true, "\(reply.suffix(2))")
        #expect(bad.closed)
    }

    /// A token restricted to some sites gets only those sites' counters from `#stats`.
    @Test func siteRestrictedStats() throws {
        let t = try authenticatedService()
        defer { t.stop() }
        let g = try t.gateway()
        try g.writeAll(Array("auth \(gatewaySecret)\n".utf8) + demoLines(tags: 2, seconds: 1))
        t.waitFor { $0.tags == 2 }
        let full = Dictionary(uniqueKeysWithValues: ServiceStats.parse(commentLines:
            try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort, token: dashboardSecret)))
        #expect(full["tags"] == "2")
        #expect(full["lines_in"] != nil)
        let text = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort, token: otherOnlySecret)
        let restricted = Dictionary(uniqueKeysWithValues: ServiceStats.parse(commentLines: text))
        #expect(restricted["sites"] == "1")
        #expect(restricted["tags"] == "0")
        #expect(restricted["lines_in"] == nil)
        #expect(restricted["positions_out"] == nil)
        #expect(text.hasSuffix("# end\n"))
        let lp = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort, lineProtocol: true, token: otherOnlySecret)
        let line = try #require(try ParsedLine.parse(lp.trimmingCharacters(in: .newlines)))
        #expect(line.field("tags") == .integer(0))
        #expect(line.field("lines_in") == nil)
        withExtendedLifetime(g) {}
    }

    /// Control bytes a client sends (ESC, NUL) reach the log escaped, never raw.
    @Test func controlBytesAreEscapedInTheLog() throws {
        let t = try TestService()
        let lines = t.log
        defer { t.stop() }
        let feed = try t.feed("subscribe tags=\u{1b}[2J\u{1b}]0;pwned\u{07},T\u{0}1")
        lines.waitFor("feed client subscribed")
        let subscribed = lines.all.filter { $0.contains("feed client subscribed") }
        #expect(subscribed.count == 1)
        #expect(subscribed.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } })
        #expect(subscribed.first?.contains("\\x1b[2J\\x1b]0;pwned\\x07") == true)
        #expect(Logger.quoted("a\u{1b}b", always: false) == "\"a\\x1bb\"")
        withExtendedLifetime(feed) {}
    }
}
