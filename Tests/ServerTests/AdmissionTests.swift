import Testing
import Positioning
import SextantTestSupport
@testable import Server

@Suite struct AdmissionTests {
    /// A source that is not a socket (as an MQTT topic is) goes through the same admission: its
    /// token's site restriction, the decoder's and the engine's refusals, the rejection replies that
    /// its transport sends wherever it likes, and the service's counters, each rejection counted once.
    @Test func aSourceWithoutASocketUsesTheOneAdmission() throws {
        let loop = try ServiceLoop(config: ServiceConfig(), sites: [.demoWarehouse], lastPositions: [], history: nil,
                                   logger: .silent)
        let session = loop.admission.makeSession(id: loop.newToken(), peer: "mqtt sextant/demo-warehouse/ingest",
                                                 authenticate: false)
        session.access = AccessToken(name: "broker", secret: "broker-secret-0123456789", sites: ["demo-warehouse"])
        let now = ServiceClock.wallNow()
        let text = "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(now)\n"
            + "ranging,site=other,anchor=U1,tag=T1 distance=3 \(now)\n"
            + "ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=-1 \(now)\n"
        Array(text.utf8).withUnsafeBytes { loop.admission.ingest($0, from: session) }
        let s = loop.stats()
        #expect(s.linesIn == 3)
        #expect(s.eventsApplied == 1)
        #expect(s.rejected["site_not_allowed"] == 1)
        #expect(s.rejected["negative_distance"] == 1)
        #expect(s.rejectedTotal == 2)
        #expect(session.closeReason == nil)
        let replies = String(decoding: session.pendingReply, as: UTF8.self)
        #expect(replies == "# rejected line 2: this connection's token may not write site 'other' [site_not_allowed]\n"
                + "# rejected line 3: field 'distance' is negative (-1.0) [negative_distance]\n")
        session.repliesSent(session.pendingReply.count)
        #expect(!session.hasReply)
    }

    /// The site restriction as checked per line: one site, several, any; and it follows the session's
    /// token when that changes (an `auth` line, a reloaded token) between chunks.
    @Test func aTokensSitesAreCheckedForEveryLineAndFollowTheToken() throws {
        #expect(SiteFilter(nil) == .any)
        #expect(SiteFilter(["hall"]) == .one("hall"))
        #expect(SiteFilter(["hall", "yard"]) == .some(["hall", "yard"]))
        #expect(SiteFilter(["hall"]).allows("hall") && !SiteFilter(["hall"]).allows("hall2"))
        #expect(SiteFilter(["hall", "yard"]).allows("yard") && !SiteFilter(["hall", "yard"]).allows("dock"))
        #expect(SiteFilter(nil).allows("anything"))

        let loop = try ServiceLoop(config: ServiceConfig(), sites: [.demoWarehouse], lastPositions: [], history: nil,
                                   logger: .silent)
        let session = loop.admission.makeSession(id: loop.newToken(), peer: "test", authenticate: false)
        let now = ServiceClock.wallNow()
        let line = Array("ranging,site=demo-warehouse,anchor=U1,tag=T1 distance=3 \(now)\n".utf8)
        func send() { line.withUnsafeBytes { loop.admission.ingest($0, from: session) } }
        session.access = AccessToken(name: "two", secret: "two-secret-0123456789", sites: ["yard", "demo-warehouse"])
        send()
        #expect(loop.stats().rejected["site_not_allowed"] == 0)
        session.access = AccessToken(name: "yard", secret: "yard-secret-0123456789", sites: ["yard"])
        send()
        #expect(loop.stats().rejected["site_not_allowed"] == 1)
        session.access = nil
        send()
        #expect(loop.stats().rejected["site_not_allowed"] == 1)
        #expect(loop.stats().linesIn == 3)
    }
}
