import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// The demo warehouse under another id, as a second site.
let otherSite: Site = {
    let d = Site.demoWarehouse
    return Site(id: "other", name: "Other", dimensions: d.dimensions, tagHeight: d.tagHeight, bounds: d.bounds,
                anchors: d.anchors, zones: d.zones)
}()
let otherSiteFile = SiteFile(site: otherSite, json: otherSite.jsonBytes(), path: "test")

let gatewaySecret = "gateway-secret-0123456789"
let dockSecret = "dock-only-secret-0123456789"
let dashboardSecret = "dashboard-secret-0123456789"
let otherOnlySecret = "other-feed-secret-0123456789"

/// A service whose ports both require tokens: `gw` (every site), `dock` (demo-warehouse only),
/// `dash` (feed, every site) and `other-dash` (feed, site `other` only).
func authenticatedService(authTimeout: Double = 5) throws -> TestService {
    try TestService(imports: [demoSiteFile, otherSiteFile]) { c in
        c.ingestTokens = AccessList([AccessToken(name: "gw", secret: gatewaySecret),
                                     AccessToken(name: "dock", secret: dockSecret, sites: ["demo-warehouse"])])
        c.feedTokens = AccessList([AccessToken(name: "dash", secret: dashboardSecret),
                                   AccessToken(name: "other-dash", secret: otherOnlySecret, sites: ["other"])])
        c.authTimeout = authTimeout
    }
}

let oneRange = "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 1700000000000000000\n"

@Suite(.serialized) struct AuthenticationTests {
    @Test("a gateway without an auth line, or with a wrong token, is told why, closed and counted")
    func ingestRefused() throws {
        let t = try authenticatedService()
        defer { t.stop() }
        for (first, expected) in [(oneRange, "authentication required"), ("auth not-the-token-0123456789\n" + oneRange,
                                                                              "authentication failed: unknown token")] {
            let g = try t.gateway()
            try g.writeAll(Array(first.utf8))
            let reader = LineReader(g)
            let lines = reader.lines(timeout: 3)
            #expect(lines == ["# error: \(expected)" + (expected.hasPrefix("authentication required")
                                                        ? ": send 'auth TOKEN' as the first line" : "")])
            #expect(reader.closed)
        }
        let s = t.waitFor { $0.authFailures >= 2 && $0.ingestConnections == 0 }
        #expect(s.authFailures == 2)
        #expect(s.eventsApplied == 0)
    }

    @Test("a gateway with a valid token is served")
    func ingestAccepted() throws {
        let t = try authenticatedService()
        defer { t.stop() }
        let g = try t.gateway()
        let lines = demoLines(tags: 1, seconds: 1)
        try g.writeAll(Array("auth \(gatewaySecret)\r\n".utf8) + lines)
        let expected = lines.filter { $0 == 10 }.count
        let s = t.waitFor { $0.eventsApplied >= expected }
        #expect(s.eventsApplied == expected)
        #expect(s.authFailures == 0)
        #expect(s.rejectedTotal == 0)
    }

    @Test("a gateway token restricted to a site cannot write another site's lines")
    func ingestSiteRestriction() throws {
        let t = try authenticatedService()
        defer { t.stop() }
        let g = try t.gateway()
        let text = "auth \(dockSecret)\n" + oneRange + "ranging,site=other,anchor=U1,tag=T1 distance=3 1700000000000000000\n"
        try g.writeAll(Array(text.utf8))
        let s = t.waitFor { $0.linesIn >= 3 }
        #expect(s.eventsApplied == 1)
        #expect(s.rejected["site_not_allowed"] == 1)
        let replies = LineReader(g).lines(timeout: 3) { $0.contains("site_not_allowed") }
        #expect(replies == ["# rejected line 3: this connection's token may not write site 'other' [site_not_allowed]"])
    }

    @Test("a gateway that does not authenticate in time is closed")
    func ingestTimeout() throws {
        let t = try authenticatedService(authTimeout: 0.2)
        defer { t.stop() }
        let g = try t.gateway()
        let reader = LineReader(g)
        let lines = reader.lines(timeout: 4)
        #expect(lines.first?.hasPrefix("# error: authentication timed out") == true)
        #expect(reader.closed)
        #expect(t.waitFor { $0.authFailures == 1 }.authFailures == 1)
    }

    @Test("#anchors needs a feed token, and a site-restricted token gets its sites' anchors only")
    func anchorsWithTokens() throws {
        let t = try authenticatedService()
        defer { t.stop() }
        let refused = try t.feed("#anchors")
        #expect(refused.lines(timeout: 3) == ["# error: authentication required: send 'auth TOKEN' as the first line"])
        func sites(_ token: String) throws -> Set<String> {
            let text = try StatsClient.request("#anchors", host: "127.0.0.1", port: t.service.feedPort, token: token)
            return Set(text.split(separator: "\n").compactMap { try? ParsedLine.parse(String($0))?.tag("site") })
        }
        #expect(try sites(dashboardSecret) == ["demo-warehouse", "other"])
        #expect(try sites(otherOnlySecret) == ["other"])
    }

    @Test("the feed needs a token for live lines and for #stats; a site-restricted token reads its sites only")
    func feed() throws {
        let t = try authenticatedService()
        defer { t.stop() }
        // No token: #stats is refused.
        let refused = try t.feed("#stats")
        #expect(refused.lines(timeout: 3) == ["# error: authentication required: send 'auth TOKEN' as the first line"])
        #expect(refused.closed)
        // The stats client with the token gets the counters; with a wrong one, the error.
        let text = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort, token: dashboardSecret)
        #expect(text.contains("# auth_failures=1\n"))
        let wrong = try StatsClient.request(host: "127.0.0.1", port: t.service.feedPort, token: "wrong-token-0123456789")
        #expect(wrong == "# error: authentication failed: unknown token\n")
        // A token for `other` cannot subscribe to demo-warehouse, and without sites= gets only `other`.
        let denied = try t.feed("auth \(otherOnlySecret)\nsubscribe sites=demo-warehouse")
        #expect(denied.lines(timeout: 3) == ["# error: this token may not read site(s) demo-warehouse"])
        let restricted = try t.subscribedFeed("auth \(otherOnlySecret)\nsubscribe")
        let everything = try t.subscribedFeed("auth \(dashboardSecret)\nsubscribe kinds=position")
        let g = try t.gateway()
        try g.writeAll(Array("auth \(gatewaySecret)\n".utf8) + demoLines(tags: 1, seconds: 2))
        let all = positionLines(everything.lines(timeout: 3))
        #expect(!all.isEmpty)
        #expect(all.allSatisfy { $0.tag("site") == "demo-warehouse" })
        #expect(positionLines(restricted.lines(timeout: 0.5)).isEmpty)
        #expect(t.waitFor { $0.authFailures == 2 }.authFailures == 2)
    }

    @Test("tokens in the JSON config: read, and refused when short, repeated or malformed")
    func config() throws {
        var c = ServiceConfig()
        try c.apply(json: Array("""
            {"ingestTokens": [{"name": "gw", "token": "\(gatewaySecret)", "sites": ["demo-warehouse"]}],
             "feedTokens": [{"name": "dash", "token": "\(dashboardSecret)"}], "authTimeout": 2}
            """.utf8))
        #expect(c.ingestTokens == AccessList([AccessToken(name: "gw", secret: gatewaySecret, sites: ["demo-warehouse"])]))
        #expect(c.feedTokens.tokens.map(\.name) == ["dash"])
        #expect(c.authTimeout == 2)
        let bad: [(String, String)] = [
            (#"{"ingestTokens": [{"name": "gw", "token": "short"}]}"#, "ingestTokens[0]"),
            (#"{"feedTokens": [{"name": "a", "token": "0123456789abcdefg"}, {"name": "b", "token": "0123456789abcdefg"}]}"#,
             "feedTokens[1]"),
            (#"{"feedTokens": [{"name": "a", "token": "0123456789abcdefg", "site": ["x"]}]}"#, "feedTokens[0]"),
            (#"{"ingestTokens": {"name": "a"}}"#, "ingestTokens"),
            (#"{"ingestTokens": [{"name": "a", "token": "0123456789 abcdefg"}]}"#, "ingestTokens[0]"),
            (#"{"ingestTokens": [{"name": "a", "token": "0123456789abcdefg", "sites": []}]}"#, "ingestTokens[0]"),
        ]
        for (json, key) in bad {
            var c = ServiceConfig()
            #expect(throws: ConfigError.self, "\(json)") { try c.apply(json: Array(json.utf8)) }
            do { try c.apply(json: Array(json.utf8)) } catch { #expect(error.key == key, "\(json): \(error)") }
        }
    }

    @Test("the secret comparison reads every byte and needs equal lengths")
    func comparison() {
        #expect(AccessList.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AccessList.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!AccessList.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!AccessList.constantTimeEqual([], Array("a".utf8)))
        let list = AccessList([AccessToken(name: "x", secret: gatewaySecret)])
        #expect(list.check(line: Array("auth \(gatewaySecret)".utf8)) == .accepted(list.tokens[0]))
        #expect(list.check(line: Array("auth  \(gatewaySecret) \r".utf8)) == .accepted(list.tokens[0]))
        #expect(list.check(line: Array("auth".utf8)) == .notAnAuthLine)
        #expect(list.check(line: Array("auth a b".utf8)) == .notAnAuthLine)
        #expect(list.check(line: Array("auth \(gatewaySecret)x".utf8)) == .unknownSecret)
    }
}
