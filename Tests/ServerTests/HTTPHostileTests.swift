import Foundation
import Testing
import SextantTestSupport
@testable import Server

/// Sends raw bytes to the HTTP port and returns what comes back before the peer closes (or `timeout`).
func rawHTTP(_ port: UInt16, _ bytes: [UInt8], timeout: Double = 5) throws -> String {
    let s = try Socket.connect(host: "127.0.0.1", port: port)
    defer { s.close() }
    try? s.writeAll(bytes)
    let r = LineReader(s)
    return r.lines(timeout: timeout).joined(separator: "\n")
}

/// Hostile HTTP: each a clear 4xx (or, beyond lws's header buffer, a close: see
/// `HTTPServer.maxHeaderBytes`), never a crash, never a stall.
@Suite(.serialized) struct HTTPHostileTests {
    @Test("oversized headers 431, a huge query 414, beyond lws's header buffer a close without a status; the port still answers")
    func oversized() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        let p = t.httpPort
        let big = try rawHTTP(p, Array(("GET /api/v1/sites HTTP/1.1\r\nHost: x\r\nUser-Agent: " + String(repeating: "a", count: 20_000) + "\r\n\r\n").utf8))
        #expect(big.hasPrefix("HTTP/1.1 431"), "\(big.prefix(200))")
        let query = try rawHTTP(p, Array(("GET /api/v1/feed/sse?tag=" + String(repeating: "T,", count: 6000) + " HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
        #expect(query.hasPrefix("HTTP/1.1 414"), "\(query.prefix(200))")
        let huge = try rawHTTP(p, Array(("GET /?" + String(repeating: "a=b&", count: 50_000) + " HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
        #expect(huge.isEmpty, "lws drops a request beyond its header buffer without a status: \(huge.prefix(200))")
        #expect(try curl(p, "/healthz").status == 200)
    }

    @Test("invalid upgrades get 400, a POST 405, path traversal in static paths 404")
    func invalidRequests() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        let p = t.httpPort
        let noKey = try curl(p, "/api/v1/feed/ws", headers: ["Connection: Upgrade", "Upgrade: websocket"])
        #expect(noKey.status == 400 && noKey.body.contains("Sec-WebSocket-Key"), "\(noKey.body)")
        // In the request's HTTP version (lws would say HTTP/1.0 of a refused upgrade).
        let raw = try rawHTTP(p, Array("GET /api/v1/feed/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n".utf8))
        #expect(raw.hasPrefix("HTTP/1.1 400"), "\(raw.prefix(200))")
        let wrongPath = try rawHTTP(p, Array("GET /static/map.js HTTP/1.1\r\nHost: x\r\n\(webSocketHandshake.joined(separator: "\r\n"))\r\n\r\n".utf8))
        #expect(wrongPath.hasPrefix("HTTP/1.1 404"), "\(wrongPath.prefix(200))")
        let h2c = try curl(p, "/api/v1/sites", headers: ["Connection: Upgrade", "Upgrade: h2c"])
        #expect(h2c.status == 400, "\(h2c.body)")
        let elsewhere = try curl(p, "/static/map.js", headers: webSocketHandshake)
        #expect(elsewhere.status == 404, "\(elsewhere.body)")
        #expect(try curl(p, "/api/v1/sites", method: "POST", data: "x=1").status == 405)
        for path in ["/static/../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2fetc%2fpasswd",
                     "/static//etc/passwd"] {
            let r = try curl(p, path)
            #expect(r.status == 404 && !r.body.contains("root:"), "\(path): \(r.status) \(r.body.prefix(100))")
        }
    }

    @Test("slow headers neither stall the loop nor the other HTTP clients, and get a 408 and a close")
    func slowHeaders() throws {
        let t = try TestService.withHTTP()
        defer { t.stop() }
        let p = t.httpPort
        var slow: [Socket] = []
        for _ in 0..<20 {
            let s = try Socket.connect(host: "127.0.0.1", port: p)
            try s.writeAll(Array("GET /api/v1/sites HTTP/1.1\r\nHost: x\r\n".utf8))   // and never the blank line
            slow.append(s)
        }
        defer { for s in slow { s.close() } }
        let start = Date()
        try t.ingest(demoLines(tags: 1, seconds: 1))
        #expect(try curl(p, "/api/v1/stats").status == 200)
        #expect(Date().timeIntervalSince(start) < 10 * testTimeScale, "the loop and the port kept serving")
        // A request whose headers do not end within the timeout gets a 408, then the close.
        let r = LineReader(slow[0])
        let answer = r.lines(timeout: Double(HTTPServer.lwsTimeoutSeconds) + 5)
        #expect(answer.first?.hasPrefix("HTTP/1.1 408") == true, "\(answer.prefix(3))")
        #expect(answer.contains("content-type: application/json\r"), "\(answer.prefix(4))")
        #expect(r.closed, "a slow client is closed after \(HTTPServer.timeoutSeconds) s")
    }
}
