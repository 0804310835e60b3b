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
        let id = c.id
        let server = self.server!
        loop.submit { [self] l in
            guard let owned = l.engine.ownedSites, !owned.contains(site), l.engine.pipeline.engine.trackers[site] != nil else {
                let r = l.tagsJSON(site)
                server.deliver { $0.respond(id, r) }
                return
            }
            queries.async {
                let response: HTTPResponse
                do { response = HTTPResponse(body: Self.tagsBody(try reader.lastPositions(site: site))) } catch {
                    response = .error(500, "the last positions could not be read: \(error)")
                }
                server.deliver { $0.respond(id, response) }
            }
        }
    }

    /// `GET /api/v1/sites/{site}/anchors`: each anchor's health, from the engine for a site this
    /// instance positions; in cluster mode, for a site another instance owns, from the learners'
    /// snapshot its owner saves every `snapshotSeconds` (the silence counted on this instance's clock).
    func anchors(_ site: String, on c: HTTPConnection) {
        guard let url = loop.config.database, let cluster = loop.config.cluster else {
            onLoop(c) { $0.anchorsJSON(site) }
            return
        }
        let id = c.id
        let server = self.server!
        let silenceLimit = loop.config.anchorSilence
        loop.submit { [self] l in
            guard let owned = l.engine.ownedSites, !owned.contains(site), let idle = l.engine.pipeline.engine.trackers[site] else {
                let r = l.anchorsJSON(site)
                server.deliver { $0.respond(id, r) }
                return
            }
            queries.async {
                var tracker = idle
                let response: HTTPResponse
                do {
                    let saved = try PostgresClusterLedger.snapshot(url: url, site: site)
                    if let saved, let learners = try? JSONDecoder().decode(LearnerSnapshot.self, from: Data(saved.utf8)),
                       tracker.restore(learners: learners) {
                        let now = ServiceClock.wallNow()
                        func silence(_ r: AnchorReport) -> Double? {
                            r.health.lines > 0 ? max(0, Double(now - r.health.lastHeard) / 1e9) : nil
                        }
                        response = ServiceLoop.anchorsJSON(tracker, silence: silence, isSilent: { r in
                            silenceLimit > 0 && (silence(r) ?? 0) >= silenceLimit
                        })
                    } else {
                        response = .error(503, "site '\(site.prefix(200))' is positioned by another instance of the cluster, "
                                          + "which has not saved its anchors' health yet; try again in \(cluster.snapshotSeconds) s")
                    }
                } catch {
                    response = .error(500, "the anchors' health could not be read: \(error)")
                }
                server.deliver { $0.respond(id, response) }
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
