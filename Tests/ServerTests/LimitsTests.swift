import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

@Suite(.serialized) struct LimitsTests {
    @Test("connections over the per-address limit of a port are refused with a reason, and admitted again once one closes")
    func perAddress() throws {
        let t = try TestService { $0.maxConnectionsPerAddress = 2 }
        defer { t.stop() }
        let a = try t.gateway()
        let a2 = try t.gateway()
        let b = try t.feed("subscribe")
        #expect(t.waitFor { $0.ingestConnections == 2 && $0.feedClients == 1 }.feedClients == 1)
        let c = LineReader(try t.gateway())
        #expect(c.lines(timeout: 3) == ["# error: 127.0.0.1 has its maximum of 2 connections to the ingest port; try later"])
        #expect(c.closed)
        #expect(t.waitFor { $0.connectionsRefused == 1 }.connectionsRefused == 1)
        a.close()
        #expect(t.waitFor { $0.ingestConnections == 1 }.ingestConnections == 1)
        let d = try t.gateway()
        try d.writeAll(Array(oneRange.utf8))
        let s = t.waitFor { $0.eventsApplied == 1 }
        #expect(s.eventsApplied == 1)
        #expect(s.connectionsRefused == 1)
        withExtendedLifetime((a2, b)) {}
    }

    @Test("gateways at the per-address limit do not lock the feed port and `status` out of that address")
    func perAddressBudgetsArePerPort() throws {
        let t = try TestService { $0.maxConnectionsPerAddress = 2 }
        defer { t.stop() }
        let gateways = [try t.gateway(), try t.gateway()]
        #expect(t.waitFor { $0.ingestConnections == 2 }.ingestConnections == 2)
        let text = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort)
        #expect(text.contains("# ingest_connections=2\n"))
        let feed = try t.feed("subscribe")
        #expect(t.waitFor { $0.feedClients == 1 }.feedClients == 1)
        #expect(t.service.stats().connectionsRefused == 0)
        withExtendedLifetime((gateways, feed)) {}
    }

    @Test("the ingest and feed ports each refuse connections over their total")
    func perPort() throws {
        let t = try TestService { $0.maxIngestConnections = 1; $0.maxFeedClients = 1 }
        defer { t.stop() }
        let first = try t.gateway()
        #expect(t.waitFor { $0.ingestConnections == 1 }.ingestConnections == 1)
        let second = LineReader(try t.gateway())
        #expect(second.lines(timeout: 3) == ["# error: the ingest port has its maximum of 1 connections; try later"])
        let feed = try t.feed("subscribe")
        #expect(t.waitFor { $0.feedClients == 1 }.feedClients == 1)
        let feed2 = try t.feed("subscribe")
        #expect(feed2.lines(timeout: 3) == ["# error: the feed port has its maximum of 1 connections; try later"])
        #expect(t.waitFor { $0.connectionsRefused == 2 }.connectionsRefused == 2)
        withExtendedLifetime((first, feed)) {}
    }

    @Test("lines over a connection's rate are rejected as rate_limited; the burst is one second's worth")
    func lineRate() throws {
        let t = try TestService { $0.maxLinesPerSecond = 50 }
        defer { t.stop() }
        let lines = demoLines(tags: 3, seconds: 3)
        let count = lines.filter { $0 == 10 }.count
        #expect(count > 200)
        let g = try t.gateway()
        try g.writeAll(lines)
        let s = t.waitFor { $0.linesIn >= count }
        let limited = s.rejected["rate_limited"] ?? 0
        // 50 lines of burst, plus at most a few tokens refilled while the chunks were read.
        #expect(s.eventsApplied >= 50 && s.eventsApplied <= 60, "\(s.eventsApplied)")
        #expect(limited == count - s.eventsApplied)
        let reply = LineReader(g).lines(timeout: 2) { $0.contains("rate_limited") }
        #expect(reply.last?.hasSuffix("over this connection's limit of 50.0 lines per second; dropped [rate_limited]") == true)
    }

    @Test("a site refuses new tags beyond its limit, and admits them again once tags are removed")
    func tagsPerSite() throws {
        let t = try TestService { $0.maxTagsPerSite = 2 }
        defer { t.stop() }
        let g = try t.gateway()
        var text = ""
        for tag in ["A", "B", "C"] {
            text += "motion,site=demo-warehouse,tag=\(tag) state=\"moving\" 1700000000000000000\n"
        }
        text += "ranging,site=demo-warehouse,anchor=U1,tag=D distance=3 1700000000000000000\n"
        text += "ranging,site=demo-warehouse,anchor=U1,tag=A distance=3 1700000000000000000\n"
        text += "removed,site=demo-warehouse,anchor=U1,tag=A reason=\"peerEnded\" 1700000000000000000\n"
        text += "ranging,site=demo-warehouse,anchor=U1,tag=D distance=3 1700000000100000000\n"
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= 7 }
        #expect(s.rejected["too_many_tags"] == 2)
        #expect(s.eventsApplied == 5)
        let replies = LineReader(g).lines(timeout: 2) { $0.hasPrefix("# rejected line 4") }
        #expect(replies.first == "# rejected line 3: site 'demo-warehouse' already tracks 2 tags, its limit; new tags are refused [too_many_tags]")
    }

    @Test("a subscription naming too many sites and tags is refused")
    func subscriptionSize() throws {
        let t = try TestService { $0.maxSubscriptionItems = 3; $0.maxSubscriptionLength = 100 }
        defer { t.stop() }
        let many = try t.feed("subscribe sites=demo-warehouse tags=a,b,c")
        #expect(many.lines(timeout: 3) == ["# error: the subscription names 4 sites and tags, above the limit of 3"])
        let long = try t.feed("subscribe tags=" + String(repeating: "x", count: 200))
        #expect(long.lines(timeout: 3) == ["# error: request line longer than 100 bytes"])
        let ok = try t.feed("subscribe tags=a,b,c")
        #expect(ok.lines(timeout: 0.5).isEmpty)
        #expect(!ok.closed)
    }
}
