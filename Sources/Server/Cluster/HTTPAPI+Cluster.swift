import Foundation
import Positioning
import Store
import Wire

extension HTTPAPI {
    /// `GET /api/v1/sites/{site}/tags`: the last position of each of the site's tags, from the engine
    /// for a site this instance positions; in cluster mode, for a site another instance owns, from the
    /// database's last positions (which its owner writes with its history).
    func tags(_ site: String, on c: HTTPConnection) {
        guard let reader, loop.config.cluster != nil else { onLoop(c) { $0.tagsJSON(site) }; return }
        answer(site, on: c, local: { $0.tagsJSON(site) }, elsewhere: { _ in
            do { return HTTPResponse(body: Self.tagsBody(try reader.lastPositions(site: site))) } catch {
                return .error(500, "the last positions could not be read: \(error)")
            }
        })
    }

    /// `GET /api/v1/sites/{site}/anchors`: each anchor's health, from the engine for a site this
    /// instance positions; in cluster mode, for a site another instance owns, from the learners'
    /// snapshot its owner saves every `snapshotSeconds` (the silence counted on this instance's clock).
    func anchors(_ site: String, on c: HTTPConnection) {
        guard let url = loop.config.database, let cluster = loop.config.cluster else {
            onLoop(c) { $0.anchorsJSON(site) }
            return
        }
        let silenceLimit = loop.config.anchorSilence
        answer(site, on: c, local: { $0.anchorsJSON(site) }, elsewhere: { idle in
            var tracker = idle
            do {
                guard let saved = try PostgresClusterLedger.snapshot(url: url, site: site),
                      let learners = try? JSONDecoder().decode(LearnerSnapshot.self, from: Data(saved.utf8)),
                      tracker.restore(learners: learners) else {
                    return .error(503, "site '\(site.prefix(200))' is positioned by another instance of the cluster, "
                                  + "which has not saved its anchors' health yet; try again in \(cluster.snapshotSeconds) s")
                }
                let now = ServiceClock.wallNow()
                let silence = { (r: AnchorReport) in ServiceEngine.silence(of: r, now: now) }
                return ServiceLoop.anchorsJSON(tracker, silence: silence, isSilent: { r in
                    silenceLimit > 0 && (silence(r) ?? 0) >= silenceLimit
                })
            } catch {
                return .error(500, "the anchors' health could not be read: \(error)")
            }
        })
    }

    /// Answers a request about `site`: with `local` on the loop when this instance positions the site
    /// (or does not know it: `local` then says so), otherwise with `elsewhere` on the query thread,
    /// given the site's idle tracker (its plan, without this instance's state).
    private func answer(_ site: String, on c: HTTPConnection, local: @escaping @Sendable (ServiceLoop) -> HTTPResponse,
                        elsewhere: @escaping @Sendable (SiteTracker) -> HTTPResponse) {
        let id = c.id
        let server = self.server!
        loop.submit { [self] l in
            guard let owned = l.engine.ownedSites, !owned.contains(site), let idle = l.engine.pipeline.engine.trackers[site] else {
                let r = local(l)
                server.deliver { $0.respond(id, r) }
                return
            }
            queries.async {
                let r = elsewhere(idle)
                server.deliver { $0.respond(id, r) }
            }
        }
    }

    /// `{"tags":[…]}` with one position object per estimate, as `ServiceLoop.tagsJSON` writes them.
    static func tagsBody(_ positions: [PositionEstimate]) -> [UInt8] {
        var body = Array("{\"tags\":[".utf8)
        var first = true
        for p in positions {
            if !first { body.append(UInt8(ascii: ",")) }
            if OutputJSON.append(.position(p), to: &body) { first = false } else if !first { body.removeLast() }
        }
        body += Array("]}".utf8)
        return body
    }
}
