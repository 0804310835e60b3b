import Positioning
import Wire

/// MQTT in on the loop: the messages of the bridge's inbox go through the ingest admission like a
/// gateway connection's chunks, one `IngestSession` per site topic. A session's token covers its topic's
/// site only (a line for another site is rejected as `site_not_allowed`); its precision is the site's
/// (`MQTTConfig.precision`, else `timestampPrecision`) at the start of each message, which a
/// `#precision` line changes for the rest of that message; its line numbers count from 1 in each
/// message. Its rejection replies (rate-limited like the TCP port's) are published on
/// `<prefix>/<site>/rejected`. The broker authenticates gateways: the sessions need no `auth` line.
///
/// Touched only on the loop thread.
final class MQTTIngest: LoopTransport {
    private unowned let loop: ServiceLoop
    private let admission: IngestAdmission
    let bridge: MQTTBridge
    private var sessions: [String: IngestSession] = [:]
    /// Sites whose sessions are kept at most (topics of unknown sites make none).
    private static let maxSessions = 10_000
    /// Counters: messages positioned and their lines, messages for sites not served, reports sent.
    private(set) var messagesIn = 0
    private(set) var linesIn = 0
    private(set) var messagesUnknownSite = 0
    private(set) var rejectionReports = 0
    /// Cluster mode: messages of sites this instance no longer owns when they reached the loop.
    private(set) var messagesNotOwned = 0
    private var lastUnknownSiteLog: Int64 = 0
    private var lastRejectedLog: Int64 = 0

    init(loop: ServiceLoop, admission: IngestAdmission, bridge: MQTTBridge) {
        self.loop = loop
        self.admission = admission
        self.bridge = bridge
    }

    /// Positions every message waiting in the inbox (the inbox submits this when it fills).
    func drainInbox() {
        let messages = bridge.inbox.take()
        guard !messages.isEmpty else { return }
        for m in messages { ingest(m) }
        loop.flushIfDue()
    }

    private func ingest(_ m: MQTTInbox.Message) {
        messagesIn += 1
        guard loop.engine.pipeline.engine.serves(site: m.site) else {
            unknownSite(m)
            return
        }
        if let owned = loop.engine.ownedSites, !owned.contains(m.site) {
            notOwned(m)
            return
        }
        let s = session(for: m.site)
        s.splitter = LineSplitter(maxLineLength: loop.config.maxLineLength)
        s.precision = bridge.config.precision[m.site] ?? loop.config.timestampPrecision
        let rejectedBefore = s.rejections.total
        m.payload.withUnsafeBytes { admission.ingest($0, from: s) }
        if m.payload.last != 10 {   // the last line needs no newline: a message is whole lines
            let newline: [UInt8] = [10]
            newline.withUnsafeBytes { admission.ingest($0, from: s) }
        }
        linesIn += s.linesIn
        let rejected = s.rejections.total - rejectedBefore
        if s.hasReply {
            let text = String(decoding: s.pendingReply, as: UTF8.self)
            s.repliesSent(s.pendingReply.count)
            MQTTBridge.publish(bridge.outClient, MQTTTopic.rejected(prefix: bridge.config.prefix, site: m.site), text)
            rejectionReports += 1
        }
        if rejected > 0 {
            let now = ServiceClock.monotonicNow()
            if now - lastRejectedLog >= 1_000_000_000 {
                lastRejectedLog = now
                loop.logger.warning("MQTT in: message with rejected lines", ["site": m.site, "rejected": rejected,
                                                                            "lines": s.linesIn])
            }
        }
    }

    private func session(for site: String) -> IngestSession {
        if let s = sessions[site] { return s }
        let s = admission.makeSession(id: loop.newToken(), peer: "mqtt \(bridge.config.prefix)/\(site)/ingest",
                                      authenticate: false)
        s.access = AccessToken(name: "mqtt topic \(site)", secret: "", sites: [site])
        if sessions.count < Self.maxSessions { sessions[site] = s }
        return s
    }

    /// A message on the ingest topic of a site that is not served: counted; logged and reported on
    /// that site's rejection topic at most once a second (for all unknown sites together).
    private func unknownSite(_ m: MQTTInbox.Message) {
        messagesUnknownSite += 1
        let now = ServiceClock.monotonicNow()
        guard now - lastUnknownSiteLog >= 1_000_000_000 else { return }
        lastUnknownSiteLog = now
        let known = loop.engine.pipeline.engine.siteTrackers.map(\.site.id).joined(separator: ", ")
        loop.logger.warning("MQTT in: message for a site not served; dropped", ["site": m.site, "bytes": m.payload.count,
                                                                               "served": known, "total": messagesUnknownSite])
        MQTTBridge.publish(bridge.outClient, MQTTTopic.rejected(prefix: bridge.config.prefix, site: m.site),
                           "# rejected message: unknown site '\(m.site)' (served: \(known)) [unknown_site]\n")
        rejectionReports += 1
    }

    /// Cluster mode: a message of a site given up (released, or fenced off) while it waited in the
    /// inbox: dropped, since the site's new owner positions from there on; counted and logged at most
    /// once a second.
    private func notOwned(_ m: MQTTInbox.Message) {
        messagesNotOwned += 1
        let now = ServiceClock.monotonicNow()
        guard now - lastUnknownSiteLog >= 1_000_000_000 else { return }
        lastUnknownSiteLog = now
        loop.logger.warning("MQTT in: message for a site this instance does not own; dropped",
                            ["site": m.site, "bytes": m.payload.count, "total": messagesNotOwned])
    }

    /// The MQTT counters now.
    func stats() -> MQTTStats {
        var s = bridge.stats()
        s.messagesIn = messagesIn
        s.linesIn = linesIn
        s.messagesUnknownSite = messagesUnknownSite
        s.rejectionReports = rejectionReports
        return s
    }

    // MARK: LoopTransport

    func handle(token: UInt64, events: UInt32) {}
    /// The ingest client is stopped before the loop (`MQTTBridge.stopIngest`); what it received was
    /// drained by then.
    func stopAccepting() { drainInbox() }
    func closeAll() {
        for s in sessions.values { admission.ended(s) }
        sessions.removeAll()
    }
    var openConnections: Int { 0 }
}
