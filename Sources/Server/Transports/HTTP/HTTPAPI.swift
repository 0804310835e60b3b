import Foundation
import Positioning
import Store
import Wire

/// What each HTTP request gets: the live map's files, the REST API under `/api/v1/`, the streams,
/// `/metrics`, `/healthz` and `/readyz` (docs/web.md). Called on the HTTP thread; what needs the engine
/// or the hub runs on the service loop (`loop.submit`), history queries on `queries`, and the answer
/// comes back with `server.deliver`.
///
/// Threading invariant: the stored properties are immutable after `init` except `server`, which is set
/// once before the HTTP thread starts; that is why the class may be `@unchecked Sendable`.
final class HTTPAPI: @unchecked Sendable {
    let loop: ServiceLoop
    /// The streams' side on the loop thread (reached only inside `loop.submit`).
    let transport: HTTPTransport
    let tokens: AccessList
    /// A store connection of its own for history reads (nil: no history, e.g. a test without a store).
    let reader: (any HistoryStorage)?
    unowned var server: HTTPServer!
    /// History queries run here, one at a time, never on the loop or the HTTP thread.
    let queries = DispatchQueue(label: "sextant.http.query")
    /// Rows a page of history may hold, by default and at most.
    static let defaultLimit = 1000
    static let maxLimit = 10_000
    /// Positions a `since=` backfill sends at most.
    static let maxBackfill = 100_000
    /// Longest a request waits for the service loop before `503`.
    static let loopTimeout = 5.0

    init(loop: ServiceLoop, transport: HTTPTransport, tokens: AccessList, reader: (any HistoryStorage)?) {
        self.loop = loop; self.transport = transport; self.tokens = tokens; self.reader = reader
    }

    /// Routes one request (HTTP thread).
    func handle(_ r: HTTPRequest, on c: HTTPConnection) {
        guard r.method != .other else {
            c.respond(.error(405, "only GET is served on this port"))
            return
        }
        let s = r.segments
        // The page and the probes need no token: they hold no data (the page asks the API with one).
        if s.isEmpty || s[0] == "static" || s == ["index.html"] {
            c.respond(Self.staticFile(r.path))
            return
        }
        if s == ["healthz"] { c.respond(.json("{\"status\":\"ok\"}")); return }
        if s == ["readyz"] { ready(c); return }
        let access: AccessToken?
        switch authorize(r) {
        case .success(let a): access = a
        case .failure(let refusal):
            c.respond(refusal.response)
            return
        }
        let allowed = access?.sites
        if s == ["metrics"] {
            guard allowed == nil else {
                c.respond(.error(403, "/metrics holds every site's counters: use a token without a \"sites\" restriction"))
                return
            }
            metrics(c)
            return
        }
        guard s.count >= 3, s[0] == "api", s[1] == "v1" else { c.respond(notFound(r.path)); return }
        let rest = Array(s.dropFirst(2))
        switch (rest.count, rest.first) {
        case (1, "stats"):
            let transport = self.transport
            onLoop(c) { $0.statsJSON(sites: allowed, streams: transport.streams.count) }
        case (1, "sites"): onLoop(c) { $0.sitesJSON(allowed: allowed) }
        case (2, "feed") where rest[1] == "sse": openSSE(r, on: c, access: access)
        case (2, "feed") where rest[1] == "ws":
            c.respond(.error(400, "this path is a WebSocket: connect with 'Upgrade: websocket' (e.g. new WebSocket('ws://HOST/api/v1/feed/ws'))"))
        case (_, "sites") where rest.count >= 2:
            let site = String(rest[1])
            if let allowed, !allowed.contains(site) {
                c.respond(.error(403, "this token may not read site '\(site)' (it may read \(allowed.sorted().joined(separator: ",")))"))
                return
            }
            siteRoute(site, Array(rest.dropFirst(2)), r, on: c)
        default: c.respond(notFound(r.path))
        }
    }

    private func siteRoute(_ site: String, _ rest: [Substring], _ r: HTTPRequest, on c: HTTPConnection) {
        switch rest.count {
        case 0: onLoop(c) { $0.siteJSON(site, geo: false) }
        case 1 where rest[0] == "geojson": onLoop(c) { $0.siteJSON(site, geo: true) }
        case 1 where rest[0] == "tags": tags(site, on: c)
        case 1 where rest[0] == "anchors": anchors(site, on: c)
        case 3 where rest[0] == "tags" && rest[2] == "history": history(site: site, tag: String(rest[1]), r, on: c)
        case 2 where rest[0] == "zones" && rest[1] == "events": zoneEvents(site: site, r, on: c)
        case 2 where rest[0] == "zones" && rest[1] == "dwell": zoneDwell(site: site, r, on: c)
        default: c.respond(notFound(r.path))
        }
    }

    func notFound(_ path: String) -> HTTPResponse {
        .error(404, "no such path '\(path.prefix(200))': the API is /api/v1/sites, /api/v1/sites/{site}[/geojson|/tags|/anchors|"
               + "/tags/{tag}/history|/zones/events|/zones/dwell], /api/v1/stats, /api/v1/feed/sse, /api/v1/feed/ws, "
               + "/metrics, /healthz, /readyz (docs/web.md)")
    }

    struct Refusal: Error {
        var status: Int
        var message: String
        var response: HTTPResponse { .error(status, message) }
    }

    /// The feed tokens apply: a request needs one of them when any is configured.
    func authorize(_ r: HTTPRequest) -> Result<AccessToken?, Refusal> {
        guard tokens.isRequired else { return .success(nil) }
        guard let token = r.token, !token.isEmpty else {
            return .failure(Refusal(status: 401, message: "this port needs a feed token: send 'Authorization: Bearer TOKEN' "
                                    + "(or add ?token=TOKEN from a browser)"))
        }
        if case .accepted(let a) = tokens.check(line: Array("auth ".utf8) + Array(token.utf8)) { return .success(a) }
        server.counts.authFailures += 1
        return .failure(Refusal(status: 401, message: "unknown token: use one of the service's feed tokens (config key feedTokens)"))
    }

    /// Runs `body` on the loop and sends its answer; 503 when the loop does not answer in time.
    func onLoop(_ c: HTTPConnection, _ body: @escaping @Sendable (ServiceLoop) -> HTTPResponse) {
        let id = c.id
        let server = self.server!
        let answered = Answered()
        loop.submit { l in
            let response = body(l)
            if answered.claim() { server.deliver { $0.respond(id, response) } }
        }
        queries.asyncAfter(deadline: .now() + Self.loopTimeout) {
            if answered.claim() {
                server.deliver { $0.respond(id, .error(503, "the service loop did not answer within \(Int(Self.loopTimeout)) s; see the log")) }
            }
        }
    }

    /// `/readyz`: 200 once the loop answers and the history has no error, else 503 with the reason.
    private func ready(_ c: HTTPConnection) {
        onLoop(c) { l in
            let s = l.stats()
            if let e = s.historyError {
                return .error(503, "the history cannot be written: \(e)")
            }
            return .json("{\"status\":\"ready\",\"sites\":\(s.sites),\"tags\":\(s.tags)}")
        }
    }

    private func metrics(_ c: HTTPConnection) {
        let id = c.id
        let server = self.server!
        let transport = self.transport
        loop.submit { l in
            let stats = l.stats()
            let streams = transport.streams.count, disconnected = transport.disconnected
            server.deliver { s in
                s.respond(id, .text(PrometheusText.render(stats, http: s.counts, streams: streams,
                                                          streamsDisconnected: disconnected),
                                    contentType: "text/plain; version=0.0.4; charset=utf-8"))
            }
        }
    }

    /// The live map's files (from the binary).
    static func staticFile(_ path: String) -> HTTPResponse {
        let name = path == "/" ? "index.html" : String(path.drop(while: { $0 == "/" }))
        guard let f = StaticFiles.file(at: name) else {
            return .error(404, "no such file '\(path.prefix(200))': the live map is at /")
        }
        return HTTPResponse(contentType: f.contentType, body: f.bytes)
    }
}

/// True once for the first of two racing answers (the loop's, the timeout's). Guarded by its lock.
final class Answered: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func claim() -> Bool { lock.withLock { defer { done = true }; return !done } }
}
