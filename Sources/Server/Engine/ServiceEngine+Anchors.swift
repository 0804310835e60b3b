import Positioning
import Wire

/// An anchor of a site, as the silence watch keys it.
struct AnchorKey: Hashable {
    var site: String
    var anchor: String
}

/// The anchors' health: the `#anchors` reply and the silence watch.
extension ServiceEngine {
    /// The `#anchors` reply: an `anchor_health` line per anchor of the sites `allowed` (nil: all).
    func anchorHealthLines(sites allowed: Set<String>?) -> String {
        let now = engineNow
        var bytes: [UInt8] = []
        for r in pipeline.engine.anchorReports() where allowed?.contains(r.site) ?? true {
            OutputEncoder.appendAnchorHealth(r, silentSeconds: Self.silence(of: r, now: now),
                                             time: now ?? ServiceClock.wallNow(), to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Seconds since the anchor's latest line, nil for an anchor never heard (or without a clock).
    static func silence(of r: AnchorReport, now: Nanoseconds?) -> Double? {
        guard let now, r.health.lines > 0 else { return nil }
        return max(0, now.seconds(since: r.health.lastHeard))
    }

    /// Once a second: warns when an anchor has been silent for `anchorSilence` seconds (a gateway or
    /// an anchor lost power or network), and logs when it is heard again. An anchor never heard counts
    /// as silent since its site's first line: a site with no line at all is not watched.
    func watchAnchors() {
        guard config.anchorSilence > 0, let now = engineNow else { return }
        let reports = pipeline.engine.anchorReports()
        var siteStart: [String: Nanoseconds] = [:]
        for r in reports where r.health.lines > 0 { siteStart[r.site] = min(siteStart[r.site] ?? .max, r.health.firstHeard) }
        for r in reports {
            guard let start = siteStart[r.site] else { continue }
            let s = Self.silence(of: r, now: now) ?? max(0, now.seconds(since: start))
            let key = AnchorKey(site: r.site, anchor: r.anchor)
            if s >= config.anchorSilence {
                if silentAnchors.insert(key).inserted {
                    logger.warning(r.health.lines > 0
                                   ? "anchor silent: no ranging line from it; check its power and network"
                                   : "anchor never heard: no ranging line from it since its site's first; check it",
                                   ["site": r.site, "anchor": r.anchor, "silent_s": (s * 10).rounded() / 10])
                }
            } else if silentAnchors.remove(key) != nil {
                logger.info("anchor heard again", ["site": r.site, "anchor": r.anchor])
            }
        }
    }
}
