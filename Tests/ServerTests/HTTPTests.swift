import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// Collects `argv[2]` messages (or prints `status N` when the upgrade is refused).
let collectMessages = """
import asyncio, sys, websockets
async def main():
    out = []
    try:
        async with websockets.connect(sys.argv[1], max_size=None) as ws:
            while len(out) < int(sys.argv[2]):
                out.append(await asyncio.wait_for(ws.recv(), 20))
    except websockets.exceptions.InvalidStatusCode as e:
        print("status", e.status_code); return
    for m in out: print(m)
asyncio.run(main())
"""


/// Prints `connected`, then `TAG TIMENS` for each position message, as they come.
let printTagTimes = """
import asyncio, json, sys, websockets
async def main():
    async with websockets.connect(sys.argv[1], max_size=None) as ws:
        print("connected", flush=True)
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if m["type"] == "position": print(m["tag"], m["timeNs"], flush=True)
asyncio.run(main())
"""

/// A complete WebSocket handshake's headers, for curl (which shows a refused upgrade's status and
/// body; lws answers a refused upgrade in HTTP/1.0, which Python's websockets does not read).
let webSocketHandshake = ["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
                          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]

@Suite(.serialized) struct HTTPTests {
    @Test("REST: sites, site JSON and GeoJSON, tags, paged history, zones, anchors, stats, JSON errors")
    func rest() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        try t.ingest(demoLines(tags: 2, seconds: 3), waitForHistoryRows: 40)
        let p = t.httpPort
        let sites = try curl(p, "/api/v1/sites")
        #expect(sites.status == 200 && sites.contentType == "application/json")
        let list = try #require(try sites.json()["sites"] as? [[String: Any]])
        #expect(list.first?["id"] as? String == "demo-warehouse" && list.first?["anchors"] as? Int == Site.demoWarehouse.anchors.count)
        let site = try curl(p, "/api/v1/sites/demo-warehouse").json()
        #expect(site["id"] as? String == "demo-warehouse")
        #expect(try curl(p, "/api/v1/sites/demo-warehouse/geojson").json()["type"] as? String == "FeatureCollection")
        let tags = try #require(try curl(p, "/api/v1/sites/demo-warehouse/tags").json()["tags"] as? [[String: Any]])
        #expect(tags.map { $0["tag"] as? String } == ["T0", "T1"])
        #expect(tags.allSatisfy { ($0["timeNs"] as? String).flatMap(Int64.init) != nil })

        let page1 = try curl(p, "/api/v1/sites/demo-warehouse/tags/T0/history?limit=5").json()
        let rows1 = try #require(page1["positions"] as? [[String: Any]])
        let next = try #require(page1["next"] as? String)
        #expect(rows1.count == 5)
        let page2 = try curl(p, "/api/v1/sites/demo-warehouse/tags/T0/history?limit=5&after=\(next)").json()
        let rows2 = try #require(page2["positions"] as? [[String: Any]])
        let last1 = try #require(Int64(rows1.last?["timeNs"] as? String ?? ""))
        let first2 = try #require(Int64(rows2.first?["timeNs"] as? String ?? ""))
        #expect(first2 > last1, "the second page starts after the first")
        let from = TimeText.iso8601(first2)
        let ranged = try #require(try curl(p, "/api/v1/sites/demo-warehouse/tags/T0/history?from=\(from)&limit=1").json()["positions"] as? [[String: Any]])
        #expect(ranged.first?["timeNs"] as? String == "\(first2)", "from= as ISO 8601 is inclusive")

        #expect(try curl(p, "/api/v1/sites/demo-warehouse/zones/events").json()["events"] is [Any])
        #expect(try curl(p, "/api/v1/sites/demo-warehouse/zones/dwell").json()["dwell"] is [Any])
        let anchors = try #require(try curl(p, "/api/v1/sites/demo-warehouse/anchors").json()["anchors"] as? [[String: Any]])
        #expect(anchors.count == Site.demoWarehouse.anchors.count)
        #expect(anchors.contains { $0["state"] as? String == "ok" && $0["lastHeard"] is String })
        #expect((try curl(p, "/api/v1/stats").json()["lines_in"] as? Int ?? 0) > 0)

        for (path, status, words) in [("/api/v1/sites/nowhere/tags", 404, "unknown site 'nowhere'"),
                                      ("/api/v1/sites/demo-warehouse/tags/T0/history?from=yesterday", 400, "ISO 8601"),
                                      ("/api/v1/sites/demo-warehouse/tags/T0/history?limit=0", 400, "limit must be"),
                                      ("/api/v1/sites/demo-warehouse/tags/T0/history?colour=red", 400, "unknown parameter 'colour'"),
                                      ("/api/v2/sites", 404, "no such path")] {
            let r = try curl(p, path)
            #expect(r.status == status, "\(path)")
            let body = try r.json()
            #expect(body["status"] as? Int == status && (body["error"] as? String ?? "").contains(words), "\(path): \(r.body)")
        }
    }

    @Test("/metrics passes promtool check metrics; /healthz and /readyz answer")
    func metricsAndHealth() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        try t.ingest(demoLines(tags: 1, seconds: 1))
        let m = try curl(t.httpPort, "/metrics")
        #expect(m.status == 200 && m.contentType.hasPrefix("text/plain; version=0.0.4"))
        #expect(m.body.contains("\nsextant_lines_in_total ") && m.body.contains("sextant_rejected_lines_total{reason=\"late\"}"))
        HTTPTools.require(HTTPTools.promtool)
        let check = try runTool(HTTPTools.promtool, ["check", "metrics"], stdin: m.body)
        #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)")
        #expect(try curl(t.httpPort, "/healthz").status == 200)
        let ready = try curl(t.httpPort, "/readyz")
        let readyBody = try ready.json()
        #expect(ready.status == 200 && readyBody["status"] as? String == "ready")
    }

    @Test("SSE with curl -N: JSON positions of the chosen kinds, then heartbeats")
    func sse() throws {
        let t = try TestService.withHTTP { $0.httpHeartbeat = 0.2 }
        defer { t.stop() }
        HTTPTools.require(HTTPTools.curl)
        let s = try StreamingProcess(HTTPTools.curl, ["-sN", "--max-time", "30",
                                                     "http://127.0.0.1:\(t.httpPort)/api/v1/feed/sse?site=demo-warehouse&kinds=position,removed"])
        defer { s.stop() }
        #expect(s.read { $0.contains(": heartbeat\n\n") }, "a heartbeat on a quiet stream: \(s.text.prefix(200))")
        try t.ingest(demoLines(tags: 2, seconds: 2))
        #expect(s.read { $0.components(separatedBy: "data: {\"type\":\"position\"").count > 5 })
        let events = s.text.components(separatedBy: "\n\n").filter { $0.hasPrefix("data: ") }
        for e in events {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(e.dropFirst(6).utf8)) as? [String: Any])
            #expect(["position", "removed"].contains(object["type"] as? String ?? ""), "kinds=position,removed only: \(e)")
            #expect((object["timeNs"] as? String).flatMap(Int64.init) != nil)
        }
    }

    @Test("live stream lines are written when the loop hands them over, not after another poll round")
    func streamWritesAtWake() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        HTTPTools.require(HTTPTools.curl)
        let s = try StreamingProcess(HTTPTools.curl, ["-sN", "--max-time", "30",
                                                     "http://127.0.0.1:\(t.httpPort)/api/v1/feed/sse?kinds=position"])
        defer { s.stop() }
        #expect(!t.log.waitFor("http stream subscribed", timeout: 10).isEmpty)
        try t.ingest(demoLines(tags: 2, seconds: 2))
        #expect(s.read { $0.components(separatedBy: "data: {\"type\":\"position\"").count > 5 }, "\(s.text.prefix(200))")
        let n = try metricValue(t.httpPort, "sextant_http_stream_writes_total{at=\"wake\"}")
        #expect((n ?? 0) > 0, "stream writes at the wake: \(n.map(String.init) ?? "none")")
    }

    @Test("WebSocket: one JSON message per output, line protocol on request, filters")
    func webSocket() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        try t.ingest(demoLines(tags: 2, seconds: 2))   // remembered positions: the snapshot
        let base = "ws://127.0.0.1:\(t.httpPort)/api/v1/feed/ws"
        let json = try webSocketClient(base + "?tag=T1", collectMessages, args: ["1"])
        let first = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stderr)")
        #expect(first["tag"] as? String == "T1" && first["type"] as? String == "position")
        let lp = try webSocketClient(base + "?format=lp&tag=T0", collectMessages, args: ["1"])
        #expect(lp.stdout.hasPrefix("position,site=demo-warehouse,tag=T0 "), "\(lp.stdout) \(lp.stderr)")
        let refused = try curl(t.httpPort, "/api/v1/feed/ws?kinds=teleport", headers: webSocketHandshake)
        #expect(refused.status == 400 && refused.body.contains("unknown kind 'teleport'"), "\(refused.body)")
    }

    @Test("rate=N conflates: fewer positions per tag than sent, and always the latest")
    func conflation() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        HTTPTools.require(HTTPTools.python)
        let client = try StreamingProcess(HTTPTools.python, ["-u", "-c", printTagTimes,
                                                            "ws://127.0.0.1:\(t.httpPort)/api/v1/feed/ws?kinds=position&rate=2"])
        defer { client.stop() }
        #expect(client.read { $0.contains("connected\n") })
        #expect(!t.log.waitFor("http stream subscribed", timeout: 10).isEmpty)
        let stream = demoLines(tags: 3, seconds: 6)
        try t.ingest(stream, waitForHistoryRows: 100)
        // Every line positioned and every position stored, so the history's last rows are the last
        // positions the stream can send.
        let lines = stream.filter { $0 == 10 }.count
        t.waitFor(timeout: 20) { $0.linesIn >= lines && $0.historyPending == 0 && $0.historyRowsWritten >= $0.positionsOut }
        // Each tag's last stored position (the tags may have been removed since: their sessions ended).
        var latest: [String] = []
        for tag in ["T0", "T1", "T2"] {
            let rows = try #require(try curl(t.httpPort, "/api/v1/sites/demo-warehouse/tags/\(tag)/history?limit=10000").json()["positions"] as? [[String: Any]])
            latest.append("\(tag) \(rows.last?["timeNs"] as? String ?? "none")\n")
        }
        #expect(client.read { text in latest.allSatisfy { text.contains($0) } }, "each tag's latest position arrives")
        let sent = t.service.stats().positionsOut
        let received = client.text.split(separator: "\n").filter { $0.hasPrefix("T") }.count
        #expect(received < sent / 4, "\(received) of \(sent) positions through rate=2")
    }

    @Test("since=TIME backfills the history in time order, then goes live")
    func since() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        try t.ingest(demoLines(tags: 1, seconds: 3), waitForHistoryRows: 20)
        let stored = try #require(try curl(t.httpPort, "/api/v1/sites/demo-warehouse/tags/T0/history?limit=10000").json()["positions"] as? [[String: Any]])
        let times = stored.compactMap { ($0["timeNs"] as? String).flatMap(Int64.init) }
        let since = times[times.count / 2]
        let expected = times.filter { $0 >= since }
        let r = try webSocketClient("ws://127.0.0.1:\(t.httpPort)/api/v1/feed/ws?kinds=position&since=\(since)",
                                    collectMessages, args: ["\(expected.count)"])
        let got = r.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["timeNs"] as? String
        }.compactMap(Int64.init)
        #expect(got == expected, "the stored positions from since= on, oldest first: \(got.count) of \(expected.count) \(r.stderr)")
    }

    @Test("feed tokens: 401 without or with an unknown one, a site-restricted token sees only its sites")
    func tokens() throws {
        let t = try TestService.withHTTP(imports: [demoSiteFile, otherSiteFile]) { c in
            c.feedTokens = AccessList([AccessToken(name: "dash", secret: dashboardSecret),
                                       AccessToken(name: "other-dash", secret: otherOnlySecret, sites: ["other"])])
        }
        defer { t.stop() }
        let p = t.httpPort
        #expect(try curl(p, "/api/v1/sites").status == 401)
        #expect(try curl(p, "/api/v1/sites", headers: ["Authorization: Bearer not-a-token-0123456789"]).status == 401)
        let all = try curl(p, "/api/v1/sites", headers: ["Authorization: Bearer \(dashboardSecret)"]).json()
        #expect((all["sites"] as? [Any])?.count == 2)
        let restricted = try curl(p, "/api/v1/sites?token=\(otherOnlySecret)").json()
        #expect((restricted["sites"] as? [[String: Any]])?.map { $0["id"] as? String } == ["other"])
        #expect(try curl(p, "/api/v1/sites/demo-warehouse/tags?token=\(otherOnlySecret)").status == 403)
        #expect(try curl(p, "/api/v1/sites/other/tags?token=\(otherOnlySecret)").status == 200)
        #expect(try curl(p, "/metrics?token=\(otherOnlySecret)").status == 403)
        #expect(try curl(p, "/metrics?token=\(dashboardSecret)").status == 200)
        #expect(try curl(p, "/api/v1/feed/sse?site=demo-warehouse&token=\(otherOnlySecret)").status == 403)
        let ws = "ws://127.0.0.1:\(p)/api/v1/feed/ws"
        #expect(try curl(p, "/api/v1/feed/ws", headers: webSocketHandshake).status == 401)
        #expect(try curl(p, "/api/v1/feed/ws?site=demo-warehouse&token=\(otherOnlySecret)", headers: webSocketHandshake).status == 403)
        let allowed = try webSocketClient(ws + "?token=\(otherOnlySecret)&kinds=position", collectMessages, args: ["0"])
        #expect(allowed.status == 0, "the restricted token may stream its own sites: \(allowed.stderr)")
        #expect(try curl(p, "/healthz").status == 200, "probes need no token")
    }
}

