import Positioning
import Wire

/// The REST answers that read the engine and the hub, computed on the loop thread.
extension ServiceLoop {
    func unknownSite(_ site: String) -> HTTPResponse {
        .error(404, "unknown site '\(site.prefix(200))': the sites are \(engine.pipeline.engine.trackers.keys.sorted().joined(separator: ", ")) (GET /api/v1/sites)")
    }

    func sitesJSON(allowed: Set<String>?) -> HTTPResponse {
        let items = engine.pipeline.engine.trackers.keys.sorted().filter { allowed?.contains($0) ?? true }.compactMap { id -> String? in
            guard let t = engine.pipeline.engine.trackers[id] else { return nil }
            let s = t.site
            return "{\"id\":\(JSONText.quoted(s.id)),\"name\":\(JSONText.quoted(s.name)),\"dimensions\":\(s.dimensions),"
                + "\"anchors\":\(s.anchors.count),\"zones\":\(s.zones.count),\"tags\":\(t.tagCount)}"
        }
        return .json("{\"sites\":[\(items.joined(separator: ","))]}")
    }

    func siteJSON(_ id: String, geo: Bool) -> HTTPResponse {
        guard let s = engine.pipeline.engine.trackers[id]?.site else { return unknownSite(id) }
        return HTTPResponse(contentType: geo ? "application/geo+json" : "application/json",
                            body: geo ? s.geoJSONBytes() : s.jsonBytes())
    }

    /// The last position of every tag of the site, by tag.
    func tagsJSON(_ site: String) -> HTTPResponse {
        guard engine.pipeline.engine.trackers[site] != nil else { return unknownSite(site) }
        var body = Array("{\"tags\":[".utf8)
        var first = true
        for key in engine.hub.lastPositions.sortedKeys() where key.site == site {
            guard let e = engine.hub.lastPositions.entries[key] else { continue }
            if !first { body.append(UInt8(ascii: ",")) }
            if OutputJSON.append(.position(e.estimate), to: &body) { first = false } else if !first { body.removeLast() }
        }
        body += Array("]}".utf8)
        return HTTPResponse(body: body)
    }

    /// Innovation RMS above this, and above `misplacedRatio` times the site's median, marks an anchor
    /// misplaced (its ranges disagree with every tag's filter; see `AnchorHealth`).
    static let misplacedRMS = 3.0
    static let misplacedRatio = 3.0

    /// Each anchor's health: `ok`, `silent` (heard, then not for `anchorSilence`), `unheard` (never),
    /// or `misplaced`.
    func anchorsJSON(_ site: String) -> HTTPResponse {
        guard let tracker = engine.pipeline.engine.trackers[site] else { return unknownSite(site) }
        let now = engine.engineNow
        return Self.anchorsJSON(tracker, silence: { ServiceEngine.silence(of: $0, now: now) },
                                isSilent: { engine.silentAnchors.contains(AnchorKey(site: site, anchor: $0.anchor)) })
    }

    /// The `/anchors` body of one tracker's anchor reports.
    /// - Parameters:
    ///   - silence: seconds since the anchor's latest line (nil: never heard, or no clock yet).
    ///   - isSilent: whether the anchor counts as silent (heard, then not for `anchorSilence`).
    static func anchorsJSON(_ tracker: SiteTracker, silence: (AnchorReport) -> Double?,
                            isSilent: (AnchorReport) -> Bool) -> HTTPResponse {
        let reports = tracker.anchorReports()
        let rms = reports.compactMap(\.health.innovationRMS).sorted()
        let median = rms.isEmpty ? 0 : rms[rms.count / 2]
        let items = reports.map { r -> String in
            let a = tracker.site.anchor(r.anchor)
            let h = r.health
            let state: String
            if isSilent(r) { state = h.lines > 0 ? "silent" : "unheard" }
            else if h.lines == 0 { state = "unheard" }
            else if let e = h.innovationRMS, e > misplacedRMS, e > misplacedRatio * median { state = "misplaced" }
            else { state = "ok" }
            func n(_ v: Double?) -> String { v.map { $0.isFinite ? "\(($0 * 1e4).rounded() / 1e4)" : "null" } ?? "null" }
            let techs = a?.technologies.map { "\"\($0.rawValue)\"" } ?? []
            return "{\"id\":\(JSONText.quoted(r.anchor)),\"technology\":\(techs.first ?? "null"),\"technologies\":[\(techs.joined(separator: ","))],"
                + "\"x\":\(n(a?.position.x)),\"y\":\(n(a?.position.y)),\"z\":\(n(a?.position.z)),\"state\":\"\(state)\","
                + "\"lastHeard\":\(h.lines > 0 ? "\"\(TimeText.iso8601(h.lastHeard))\"" : "null"),"
                + "\"silentSeconds\":\(n(silence(r))),\"lines\":\(h.lines),\"ranges\":\(h.ranges),"
                + "\"rejected\":\(h.rejected),\"blocked\":\(h.blocked),\"innovationRMS\":\(n(h.innovationRMS)),"
                + "\"learnedBias\":\(n(r.learnedBias))}"
        }
        return .json("{\"anchors\":[\(items.joined(separator: ","))]}")
    }

    /// The counters as one JSON object; a token restricted to sites gets only those sites' counts.
    func statsJSON(sites allowed: Set<String>?, streams: Int) -> HTTPResponse {
        if let allowed {
            let trackers = engine.pipeline.engine.trackers.filter { allowed.contains($0.key) }
            return .json("{\"sites\":\(trackers.count),\"tags\":\(trackers.values.reduce(0) { $0 + $1.tagCount }),"
                         + "\"anchors_silent\":\(engine.silentAnchors.filter { allowed.contains($0.site) }.count),"
                         + "\"positions_remembered\":\(engine.hub.lastPositions.entries.keys.filter { allowed.contains($0.site) }.count)}")
        }
        let s = stats()
        var parts = s.fields.map { "\"\($0.0)\":\($0.1)" }
        parts.append("\"http_streams\":\(streams)")
        parts.append("\"uptime_seconds\":\(s.uptimeSeconds)")
        parts.append("\"version\":\(JSONText.quoted(s.version))")
        if let e = s.historyError { parts.append("\"history_error\":\(JSONText.quoted(e))") }
        return .json("{" + parts.joined(separator: ",") + "}")
    }
}
