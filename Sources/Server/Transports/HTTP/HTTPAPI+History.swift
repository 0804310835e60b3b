import Positioning
import Store
import Wire

/// History, zone events and dwell from the store, on the query thread.
extension HTTPAPI {
    /// `from`, `to`, `limit`, `after` of a history request.
    struct Range {
        var from: Nanoseconds?
        var to: Nanoseconds?
        var limit: Int
        var after: String?
    }

    func range(_ r: HTTPRequest, keys: Set<String>) -> Result<Range, Refusal> {
        if let unknown = r.query.keys.first(where: { !keys.contains($0) && $0 != "token" }) {
            return .failure(Refusal(status: 400, message: "unknown parameter '\(unknown.prefix(100))' (expected \(keys.sorted().joined(separator: ", ")))"))
        }
        var out = Range(limit: Self.defaultLimit)
        for key in ["from", "to"] {
            guard let v = r.query[key] else { continue }
            guard let t = TimeText.parse(v) else { return .failure(Self.badTime(key, v)) }
            if key == "from" { out.from = t } else { out.to = t }
        }
        if let v = r.query["limit"] {
            guard let n = Int(v), n >= 1, n <= Self.maxLimit else {
                return .failure(Refusal(status: 400, message: "limit must be 1 to \(Self.maxLimit); got '\(v.prefix(100))'"))
            }
            out.limit = n
        }
        out.after = r.query["after"]
        return .success(out)
    }

    /// Checks the site on the loop, then runs `body` on the query thread and sends its answer.
    private func query(_ c: HTTPConnection, site: String, _ body: @escaping @Sendable (any HistoryStorage) throws -> HTTPResponse) {
        let id = c.id
        let server = self.server!
        guard let reader else {
            c.respond(.error(503, "this service keeps no history"))
            return
        }
        loop.submit { [self] l in
            guard l.engine.pipeline.engine.trackers[site] != nil else {
                let r = l.unknownSite(site)
                server.deliver { $0.respond(id, r) }
                return
            }
            queries.async {
                let response: HTTPResponse
                do { response = try body(reader) } catch {
                    response = .error(500, "the history could not be read: \(error)")
                }
                server.deliver { $0.respond(id, response) }
            }
        }
    }

    func history(site: String, tag: String, _ r: HTTPRequest, on c: HTTPConnection) {
        guard case let .success(q) = range(r, keys: ["from", "to", "limit", "after"]) else {
            if case .failure(let e) = range(r, keys: ["from", "to", "limit", "after"]) { c.respond(e.response) }
            return
        }
        var from = q.from
        if let a = q.after {
            guard let t = Int64(a) else {
                c.respond(.error(400, "'after' must be the 'next' cursor of the previous page; got '\(a.prefix(100))'"))
                return
            }
            from = max(from ?? .min, t)
        }
        let f = from
        query(c, site: site) { reader in
            let rows = try reader.positions(site: site, tag: tag, from: f, to: q.to, limit: q.limit)
            var body = Array("{\"positions\":[".utf8)
            for (i, p) in rows.enumerated() {
                if i > 0 { body.append(UInt8(ascii: ",")) }
                _ = OutputJSON.append(.position(p), to: &body)
            }
            let next = rows.count == q.limit ? rows.last.map { "\"\($0.time.saturatingAdd(1))\"" } ?? "null" : "null"
            body += Array("],\"next\":\(next)}".utf8)
            return HTTPResponse(body: body)
        }
    }

    func zoneEvents(site: String, _ r: HTTPRequest, on c: HTTPConnection) {
        let q: Range
        switch range(r, keys: ["from", "to", "limit", "after"]) {
        case .failure(let e): c.respond(e.response); return
        case .success(let v): q = v
        }
        var skip = 0
        if let a = q.after {
            guard let n = Int(a), n >= 0 else {
                c.respond(.error(400, "'after' must be the 'next' cursor of the previous page; got '\(a.prefix(100))'"))
                return
            }
            skip = n
        }
        let first = skip
        query(c, site: site) { reader in
            let events = try reader.zoneEvents(site: site, from: q.from, to: q.to)
            let page = events.dropFirst(first).prefix(q.limit)
            let items = page.map { e in
                "{\"site\":\(JSONText.quoted(e.site)),\"tag\":\(JSONText.quoted(e.tag)),\"zone\":\(JSONText.quoted(e.zone)),"
                    + "\"event\":\"\(e.event.rawValue)\",\"time\":\"\(TimeText.iso8601(e.time))\",\"timeNs\":\"\(e.time)\"}"
            }
            let end = first + page.count
            let next = end < events.count ? "\"\(end)\"" : "null"
            return .json("{\"events\":[\(items.joined(separator: ","))],\"next\":\(next)}")
        }
    }

    func zoneDwell(site: String, _ r: HTTPRequest, on c: HTTPConnection) {
        let q: Range
        switch range(r, keys: ["from", "to"]) {
        case .failure(let e): c.respond(e.response); return
        case .success(let v): q = v
        }
        query(c, site: site) { reader in
            let events = try reader.zoneEvents(site: site, from: q.from, to: q.to)
            let rows = ZoneDwell.summarize(events, from: q.from, to: q.to).map { d in
                "{\"tag\":\(JSONText.quoted(d.tag)),\"zone\":\(JSONText.quoted(d.zone)),\"entries\":\(d.entries),"
                    + "\"exits\":\(d.exits),\"dwellSeconds\":\(Double(d.dwell) / 1e9),\"inside\":\(d.inside)}"
            }
            return .json("{\"dwell\":[\(rows.joined(separator: ","))]}")
        }
    }
}
