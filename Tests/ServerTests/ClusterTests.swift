import Foundation
import Testing
import Positioning
import SextantTestSupport
@testable import Store
@testable import Server

/// Cluster mode end to end: one broker, one PostgreSQL, three `sextant serve --cluster` processes,
/// simulated QoS 1 gateways for six sites; one instance is killed (SIGKILL) while it ingests.
extension BrokerLoadTests {
@Suite(.serialized) struct ClusterTests {
    static let siteCount = 6
    /// Seconds of simulated lines per site, and the share of them published before the kill.
    static let seconds = 6.0
    /// The documented window (docs/scaling.md): the longest stretch of measurement time without a
    /// stored position that a takeover may leave in a site's history, seconds. It holds for instances
    /// that keep up with their ingest (what the killed one loses is what it had taken and not yet
    /// positioned); a sanitized build lags by up to `testTimeScale` times as much.
    static let historyWindow = 2.0 * testTimeScale
    /// The takeover bound of the instances (`cluster.takeoverSeconds`).
    static let takeover = 4.0

    @Test("three instances divide six sites; a SIGKILLed one's sites move within the bound, no gap, never two owners")
    func killedInstanceHandsOver() throws {
        let cluster = try ClusterFixture(instances: 3, sites: Self.siteCount, seconds: Self.seconds, takeover: Self.takeover)
        let (broker, url, prefix, sites, batches, processes) = (cluster.broker, cluster.url, cluster.prefix, cluster.sites,
                                                                cluster.batches, cluster.processes)
        let lastLine = cluster.lastLine
        let subscriber = cluster.subscriber
        try cluster.waitBalanced()

        let gateway = try TestMQTTClient(broker)
        let perSite = batches[sites[0]]!.count
        let half = perSite / 2
        func publish(_ range: Range<Int>) throws {
            for k in range { for s in sites { try gateway.publish("\(prefix)/\(s)/ingest", batches[s]![k]) } }
        }
        var positions: [String: [Int64]] = [:]   // site → output times, every copy
        func collect() {
            for m in subscriber.messages.dropFirst(collected) {
                let f = m.topic.split(separator: "/")
                guard f.count == 5, let t = Self.timeNs(m.text) else { continue }
                positions[String(f[1]), default: []].append(t)
            }
            collected = subscriber.messages.count
        }
        var collected = 0
        func reached(_ time: Int64) -> Bool {
            collect()
            return sites.allSatisfy { (positions[$0]?.max() ?? .min) >= time }
        }
        // Phase 1: half the lines, positioned by their owners.
        try publish(0..<half)
        let phase1End = Self.lastTime(batches[sites[0]]![half - 1])
        #expect(subscriber.pump(timeout: 30 * testTimeScale) { _ in reached(phase1End - 500_000_000) },
                "phase 1 positions did not arrive")

        // Phase 2: the next message of every site, then SIGKILL one instance while it ingests them, then the rest.
        let victim = processes[1]
        let victimSites = Set(victim.owned.keys)
        try publish(half..<(half + 1))
        let killed = Date()
        victim.kill()
        try publish((half + 1)..<perSite)
        let survivors = [processes[0], processes[2]]
        let tookOver = subscriber.pump(timeout: 30 * testTimeScale) { _ in
            Set(survivors.flatMap { $0.owned.filter(\.value).keys }).isSuperset(of: victimSites)
        }
        try #require(tookOver, "the killed instance's sites \(victimSites.sorted()) were not taken over")
        let acquiredAt = survivors.flatMap { p in
            p.lines.filter { l in
                let f = ClusterProcess.fields(l.text)
                return f["msg"] == "site acquired" && victimSites.contains(f["site"] ?? "") && l.received >= killed
            }.map(\.received)
        }
        // The new owners started from the learners the killed one saved.
        var restored: Set<String> = []
        for p in survivors {
            for l in p.lines {
                let f = ClusterProcess.fields(l.text)
                if f["msg"] == "site acquired", f["learners_restored"] == "true", let s = f["site"], victimSites.contains(s) {
                    restored.insert(s)
                }
            }
        }
        #expect(restored.isSuperset(of: victimSites), "learners restored only for \(restored.sorted())")
        let takeoverTime = (acquiredAt.max() ?? Date()).timeIntervalSince(killed)
        print("cluster takeover after SIGKILL: \(String(format: "%.2f", takeoverTime)) s for \(victimSites.count) sites")
        #expect(takeoverTime <= Self.takeover * testTimeScale, "takeover took \(takeoverTime) s")
        // Everything published during the hand-over reaches the new owners: positions up to the end.
        #expect(subscriber.pump(timeout: 30 * testTimeScale) { _ in reached(lastLine - 500_000_000) },
                "positions after the takeover did not reach the end of the lines")
        collect()

        // Nothing published after the kill is lost: each of those messages of the killed instance's
        // sites (queued by the broker in the site's session until the new owner resumed it) gave a
        // position within its lines' times. (The message published just before the kill may have been
        // acknowledged by the killed instance and not positioned: the documented loss.)
        for s in victimSites {
            let times = Set(positions[s] ?? [])
            for k in (half + 1)..<perSite {
                let (first, last) = (Self.firstTime(batches[s]![k]), Self.lastTime(batches[s]![k]))
                #expect(times.contains { $0 >= first && $0 <= last }, "site \(s): message \(k) of \(perSite), published during the hand-over, gave no position")
            }
        }
        // Never two owners: no (site, tag, time) was output twice (one tag per site).
        for s in sites {
            let times = positions[s] ?? []
            #expect(Set(times).count == times.count, "site \(s): \(times.count - Set(times).count) positions output twice")
        }
        // `sextant status --instances` lists the survivors with the sites each owns and the killed one offline
        // (after a heartbeat that follows the takeover: the survivors send one each round).
        var table = ""
        let listed = subscriber.pump(timeout: 10 * testTimeScale) { _ in
            table = (try? ClusterProcess.run(["status", "--instances", "--database", url])) ?? ""
            let rows = table.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            return survivors.allSatisfy { p in
                rows.contains { $0.count == 4 && $0[0] == p.name && $0[1] == "live" && Set($0[3].split(separator: ",").map(String.init)) == Set(p.owned.keys) }
            } && rows.contains { $0.first == victim.name && $0.dropFirst().first == "offline" }
        }
        #expect(listed, "sextant status --instances printed:\n\(table)")
        // REST on one survivor answers for a site the other owns, from the database's last positions.
        let (asked, owner) = (survivors[0], survivors[1])
        let port = asked.lines.compactMap { ClusterProcess.fields($0.text)["http"] }.first.flatMap { $0.split(separator: ":").last }
            .flatMap { UInt16($0) }
        let elsewhere = try #require(owner.owned.keys.sorted().first)
        let reply = try curl(try #require(port), "/api/v1/sites/\(elsewhere)/tags").json()
        let tags = reply["tags"] as? [[String: Any]] ?? []
        let newest = tags.compactMap { ($0["timeNs"] as? String).flatMap { Int64($0) } }.max() ?? 0
        #expect(tags.count == 1 && Double(lastLine - newest) / 1e9 <= Self.historyWindow,
                "\(asked.name) on \(elsewhere), owned by \(owner.name): \(reply)")
        // And for the anchors' health of that site, from the owner's saved learners: its anchors were heard.
        let anchors = try curl(try #require(port), "/api/v1/sites/\(elsewhere)/anchors").json()["anchors"] as? [[String: Any]] ?? []
        #expect(!anchors.isEmpty && anchors.contains { ($0["lines"] as? Int ?? 0) > 0 && $0["lastHeard"] is String },
                "\(asked.name) on the anchors of \(elsewhere), owned by \(owner.name): \(anchors)")
        // History: every site covered, without a gap beyond the window (survivors flush on SIGTERM).
        for p in survivors { p.terminate() }
        let store = try PostgresHistoryStore(url: url)
        for s in sites {
            let stored = try store.positions(site: s, tag: "T0", from: nil, to: nil, limit: nil).map(\.time)
            try #require(stored.count > 10, "site \(s): \(stored.count) positions stored")
            let gap = zip(stored.dropFirst(), stored).map { $0 - $1 }.max() ?? 0
            if victimSites.contains(s) { print("cluster history gap on \(s) (taken over): \(Double(gap) / 1e9) s") }
            #expect(Double(gap) / 1e9 <= Self.historyWindow, "site \(s): a gap of \(Double(gap) / 1e9) s in the history")
            #expect(Double(lastLine - stored.last!) / 1e9 <= Self.historyWindow, "site \(s): history ends early")
        }
    }

    @Test("an instance whose database connection is ended gives its sites up; they carry on elsewhere, none positioned twice")
    func lostDatabaseConnectionGivesSitesUp() throws {
        let cluster = try ClusterFixture(instances: 2, sites: 4, seconds: 4, takeover: Self.takeover)
        try cluster.waitBalanced()
        let gateway = try TestMQTTClient(cluster.broker)
        let (victim, other) = (cluster.processes[0], cluster.processes[1])
        let perSite = cluster.batches[cluster.sites[0]]!.count
        func publish(_ range: Range<Int>) throws {
            for k in range { for s in cluster.sites { try gateway.publish("\(cluster.prefix)/\(s)/ingest", cluster.batches[s]![k]) } }
        }
        try publish(0..<(perSite / 2))
        // The server ends the victim's cluster connection (as a restart of the server, or an operator, would).
        let admin = try PostgresConnection(url: cluster.url)
        try admin.query("SELECT pg_terminate_backend(backend_pid) FROM cluster_instances WHERE id = $1", [victim.name])
        try publish((perSite / 2)..<perSite)
        var positions: [String: [Int64]] = [:]
        var collected = 0
        let done = cluster.subscriber.pump(timeout: 30 * testTimeScale) { c in
            for m in c.messages.dropFirst(collected) {
                let f = m.topic.split(separator: "/")
                if f.count == 5, let t = Self.timeNs(m.text) { positions[String(f[1]), default: []].append(t) }
            }
            collected = c.messages.count
            let gaveUp = victim.lines.contains { $0.text.contains("lost the database; gave up every site") }
            let owned = Set(victim.owned.filter(\.value).keys).union(other.owned.filter(\.value).keys)
            return gaveUp && owned.count == cluster.sites.count
                && cluster.sites.allSatisfy { (positions[$0]?.max() ?? .min) >= cluster.lastLine - 500_000_000 }
        }
        let log = victim.lines.suffix(15).map(\.text).joined(separator: "\n")
        #expect(done, "after the connection ended: \(victim.name) \(victim.owned), \(other.name) \(other.owned); \(log)")
        for s in cluster.sites {
            let times = positions[s] ?? []
            #expect(Set(times).count == times.count, "site \(s): \(times.count - Set(times).count) positions output twice")
        }
    }

    /// The `timeNs` of a position's JSON.
    static func timeNs(_ json: String) -> Int64? {
        guard let r = json.range(of: "\"timeNs\":\"") else { return nil }
        return Int64(json[r.upperBound...].prefix { $0 != "\"" })
    }

    /// The timestamp of a message's first line.
    static func firstTime(_ message: [UInt8]) -> Int64 {
        String(decoding: message, as: UTF8.self).split(separator: "\n").first.flatMap { $0.split(separator: " ").last }
            .flatMap { Int64($0) } ?? 0
    }

    /// The timestamp of a message's last line.
    static func lastTime(_ message: [UInt8]) -> Int64 {
        String(decoding: message, as: UTF8.self).split(separator: "\n").last.flatMap { $0.split(separator: " ").last }
            .flatMap { Int64($0) } ?? 0
    }
}
}
