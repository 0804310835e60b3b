import Positioning
import Store
import Wire

/// The feed as SSE and WebSocket streams: query parameters, subscription, backfill.
extension HTTPAPI {
    /// The parameters of a stream request.
    struct StreamRequest {
        var subscription: Subscription
        var since: Nanoseconds?
    }

    static let streamKeys: Set<String> = ["site", "sites", "tag", "tags", "kinds", "kind", "format", "rate", "since", "token"]
    /// Most conflated updates per tag per second a client may ask for.
    static let maxRate = 1000

    /// Reads `site=`, `tag=`, `kinds=`, `format=`, `rate=`, `since=`; applies the token's sites.
    func streamRequest(_ r: HTTPRequest, access: AccessToken?) -> Result<StreamRequest, Refusal> {
        if let unknown = r.query.keys.first(where: { !Self.streamKeys.contains($0) }) {
            return .failure(Refusal(status: 400, message: "unknown parameter '\(unknown.prefix(100))' (expected site, tag, kinds, format, rate, since, token)"))
        }
        var s = Subscription()
        func list(_ a: String, _ b: String) -> Set<String>? {
            (r.query[a] ?? r.query[b]).map { Set($0.split(separator: ",").map(String.init)) }
        }
        s.sites = list("site", "sites")
        s.tags = list("tag", "tags")
        if let k = r.query["kinds"] ?? r.query["kind"] {
            var kinds = Set<Subscription.Kind>()
            for v in k.split(separator: ",") {
                guard let kind = Subscription.Kind(rawValue: String(v)) else {
                    return .failure(Refusal(status: 400, message: "unknown kind '\(v.prefix(100))' (expected position, proximity, removed, zone)"))
                }
                kinds.insert(kind)
            }
            s.kinds = kinds
        }
        let items = (s.sites?.count ?? 0) + (s.tags?.count ?? 0)
        if items > loop.config.maxSubscriptionItems {
            return .failure(Refusal(status: 400, message: "the subscription names \(items) sites and tags, above the limit of \(loop.config.maxSubscriptionItems)"))
        }
        switch r.query["format"] ?? "json" {
        case "json": s.format = .json
        case "lp": s.format = .lineProtocol
        case let f: return .failure(Refusal(status: 400, message: "format must be json or lp, got '\(f.prefix(100))'"))
        }
        if let v = r.query["rate"] {
            guard let n = Int(v), n >= 1, n <= Self.maxRate else {
                return .failure(Refusal(status: 400, message: "rate must be a whole number of updates per tag per second, 1 to \(Self.maxRate); got '\(v.prefix(100))'"))
            }
            s.rate = n
        }
        var since: Nanoseconds?
        if let v = r.query["since"] {
            guard let t = TimeText.parse(v) else { return .failure(Self.badTime("since", v)) }
            since = t
        }
        if let allowed = access?.sites {
            if let asked = s.sites {
                let denied = asked.subtracting(allowed)
                guard denied.isEmpty else {
                    return .failure(Refusal(status: 403, message: "this token may not read site(s) \(denied.sorted().joined(separator: ","))"))
                }
            } else {
                s.sites = allowed
            }
        }
        return .success(StreamRequest(subscription: s, since: since))
    }

    static func badTime(_ key: String, _ v: String) -> Refusal {
        Refusal(status: 400, message: "'\(key)' must be ISO 8601 with an offset (2026-12-02T03:04:05Z) or Unix nanoseconds; got '\(v.prefix(100))'")
    }

    func openSSE(_ r: HTTPRequest, on c: HTTPConnection, access: AccessToken?) {
        switch streamRequest(r, access: access) {
        case .failure(let refusal): c.respond(refusal.response)
        case .success(let s):
            server.counts.sseOpened += 1
            open(s, on: c, kind: .sse)
        }
    }

    /// A WebSocket upgrade request's refusal (its path, token or parameters), or nil to accept it.
    func webSocketRefusal(_ r: HTTPRequest) -> Refusal? {
        guard r.path == "/api/v1/feed/ws" else {
            return Refusal(status: 404, message: "WebSocket upgrades are served at /api/v1/feed/ws only")
        }
        switch authorize(r) {
        case .failure(let refusal): return refusal
        case .success(let access):
            if case .failure(let refusal) = streamRequest(r, access: access) { return refusal }
            return nil
        }
    }

    func openWebSocket(_ r: HTTPRequest, on c: HTTPConnection) {
        guard case .success(let access) = authorize(r), case .success(let s) = streamRequest(r, access: access) else {
            return   // checked before the upgrade
        }
        server.counts.webSocketsOpened += 1
        open(s, on: c, kind: .webSocket)
    }

    /// Starts a stream: subscribes it on the loop; with `since`, reads the history first.
    private func open(_ s: StreamRequest, on c: HTTPConnection, kind: HTTPConnection.Kind) {
        let outbox = StreamOutbox()
        c.startStream(kind, format: s.subscription.format, outbox: outbox)
        let id = c.id
        let backfill = s.since != nil && reader != nil && (s.subscription.kinds?.contains(.position) ?? true)
        let transport = self.transport
        loop.submit { [self] l in
            transport.open(id: id, subscription: s.subscription, outbox: outbox, backfilling: backfill)
            guard backfill, let since = s.since else { return }
            let until = l.engine.engineNow ?? ServiceClock.wallNow()
            let sites = s.subscription.sites ?? Set(l.engine.pipeline.engine.trackers.keys)
            queries.async { [self] in
                self.backfill(outbox, subscription: s.subscription, sites: sites, from: since, to: until)
                loop.submit { _ in transport.endBackfill(id: id) }
                server.wake()
            }
        }
    }

    /// Puts the stored positions of the selected tags with `from <= time < to` in the outbox, oldest
    /// first, at most `maxBackfill` (query thread).
    private func backfill(_ outbox: StreamOutbox, subscription: Subscription, sites: Set<String>, from: Nanoseconds, to: Nanoseconds) {
        guard let reader else { return }
        var rows: [PositionEstimate] = []
        do {
            for site in sites.sorted() {
                for (_, tag) in try reader.tags(site: site) where subscription.tags?.contains(tag) ?? true {
                    rows += try reader.positions(site: site, tag: tag, from: from, to: to, limit: Self.maxBackfill)
                }
            }
        } catch {
            outbox.append(ArraySlice(("# backfill failed: \(error)\n").utf8))
            return
        }
        rows.sort { $0.time < $1.time }
        var bytes: [UInt8] = []
        for p in rows.prefix(Self.maxBackfill) { _ = subscription.format.append(.position(p), to: &bytes) }
        if rows.count > Self.maxBackfill {
            bytes += Array("# backfill truncated to the oldest \(Self.maxBackfill) positions\n".utf8)
        }
        outbox.append(bytes[...])
    }

    /// The HTTP thread saw a stream's client go.
    func streamClosed(id: UInt64, outbox: StreamOutbox) {
        outbox.markGone()
        let transport = self.transport
        loop.submit { _ in transport.close(id: id) }
    }

    /// The HTTP thread took a full outbox's bytes.
    func resumeStream(id: UInt64) {
        let transport = self.transport
        loop.submit { _ in transport.resume(id: id) }
    }
}
