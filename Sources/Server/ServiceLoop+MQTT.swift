import Positioning
import Wire
import Pipeline

/// MQTT in on the loop: the messages of the inbox are split, decoded and positioned like a gateway
/// connection's chunks; rejected lines are counted by reason and reported on `<prefix>/<site>/rejected`.
extension ServiceLoop {
    /// Positions every message waiting in the MQTT inbox (submitted by the inbox when it fills).
    func drainMQTT() {
        guard let bridge = mqtt else { return }
        let messages = bridge.inbox.take()
        guard !messages.isEmpty else { return }
        for m in messages { ingestMQTT(m, bridge: bridge) }
        if ServiceClock.monotonicNow() - lastFlush >= 500_000 { endOfTurn() }
    }

    /// One ingest message of the topic of `m.site`: its lines may only name that site (others are
    /// rejected as `site_not_allowed`); its timestamps are in the site topic's precision until a
    /// `#precision` line in the message changes it.
    func ingestMQTT(_ m: MQTTInbox.Message, bridge: MQTTBridge) {
        let monotonic = ServiceClock.monotonicNow()
        bridge.messagesIn += 1
        guard pipeline.engine.tracker(m.site) != nil else {
            unknownMQTTSite(m, bridge: bridge, now: monotonic)
            return
        }
        let received = ServiceClock.wallNow()
        let policy = TimestampPolicy.defaultTo(received)
        let window = config.timestampWindow(reference: received)
        let plausible = PlausibleTimestamps(reference: received)
        let limit = config.maxLineLength
        let record = config.recordMeasurements ? history : nil
        let allowed: Set<String> = [m.site]
        var precision = bridge.config.precision[m.site] ?? config.timestampPrecision
        var splitter = LineSplitter(maxLineLength: limit)
        var report: [String] = []
        var rejected = 0
        var applied = false
        func line(_ piece: SplitLine) {
            linesIn += 1
            bridge.linesIn += 1
            var refused: LineRejection?
            if case .line(let n, let bytes) = piece, bytes.first == UInt8(ascii: "#"), let command = PrecisionCommand(bytes) {
                switch command {
                case .set(let p): precision = p
                case .unknown(let text):
                    refused = pipeline.reject(LineRejection(line: n, key: "bad_value",
                        message: "line \(n): '#precision' has unknown value '\(text)' (expected \(TimestampPrecision.names)); "
                            + "the precision stays \(precision.rawValue)"))
                }
            } else {
                refused = pipeline.process(piece, timestamps: policy, maxLineLength: limit, allowedSites: allowed,
                                           window: window, precision: precision, plausible: plausible,
                                           emit: { route($0) }) { event in
                    applied = true
                    if lastEventTime.map({ event.time > $0 }) ?? true { lastEventTime = event.time }
                    if let record, case .line(_, let bytes) = piece {
                        record.append(measurementLine: Self.lineWithTimestamp(bytes, event.time), site: event.site,
                                      time: event.time)
                    }
                }
            }
            if let refused {
                rejected += 1
                if report.count < Self.mqttReportLines { report.append("# rejected \(refused.message) [\(refused.key)]\n") }
            }
        }
        m.payload.withUnsafeBytes { splitter.feed($0, line) }
        splitter.finish(line)
        if applied { lastEventMonotonic = monotonic }
        if rejected > 0 { reportMQTTRejections(site: m.site, lines: report, rejected: rejected, bridge: bridge, now: monotonic) }
    }

    /// Rejection lines one report message lists at most (the rest are counted in it).
    static let mqttReportLines = 20

    /// Publishes a message's rejections on `<prefix>/<site>/rejected` (at most
    /// `rejectionRepliesPerSecond` reports per site a second; the others are counted in the next one),
    /// and logs that a message had rejected lines, at most once a second.
    func reportMQTTRejections(site: String, lines: [String], rejected: Int, bridge: MQTTBridge, now: Int64) {
        var bucket = bridge.reportBuckets[site] ?? ReplyBucket(rate: config.rejectionRepliesPerSecond, now: now)
        if bucket.take(now: now) {
            var text = lines.joined()
            if rejected > lines.count { text += "# \(rejected - lines.count) more rejected lines in this message\n" }
            if bucket.unreported > 0 {
                text += "# \(bucket.unreported) more rejected lines not shown (counted by reason in #stats)\n"
                bucket.unreported = 0
            }
            MQTTBridge.publish(bridge.outClient, MQTTTopic.rejected(prefix: bridge.config.prefix, site: site), text)
            bridge.rejectionReports += 1
        } else {
            bucket.unreported += rejected
        }
        bridge.reportBuckets[site] = bucket
        if now - bridge.lastRejectedLog >= 1_000_000_000 {
            bridge.lastRejectedLog = now
            logger.warning("MQTT in: message with rejected lines", ["site": site, "rejected": rejected,
                                                                   "first": lines.first?.dropLast() ?? ""])
        }
    }

    /// A message on the ingest topic of a site that is not served: counted, logged (at most once a
    /// second) and reported on that site's rejection topic.
    func unknownMQTTSite(_ m: MQTTInbox.Message, bridge: MQTTBridge, now: Int64) {
        bridge.messagesUnknownSite += 1
        let known = pipeline.engine.siteTrackers.map(\.site.id).joined(separator: ", ")
        if now - bridge.lastUnknownSiteLog >= 1_000_000_000 {
            bridge.lastUnknownSiteLog = now
            logger.warning("MQTT in: message for a site not served; dropped", ["site": m.site, "bytes": m.payload.count,
                                                                              "known": known,
                                                                              "total": bridge.messagesUnknownSite])
        }
        var bucket = bridge.reportBuckets[m.site] ?? ReplyBucket(rate: config.rejectionRepliesPerSecond, now: now)
        if bucket.take(now: now) {
            MQTTBridge.publish(bridge.outClient, MQTTTopic.rejected(prefix: bridge.config.prefix, site: m.site),
                               "# rejected message: unknown site '\(m.site)' (served: \(known)) [unknown_site]\n")
            bridge.rejectionReports += 1
        }
        if bridge.reportBuckets.count < Self.maxReportBuckets { bridge.reportBuckets[m.site] = bucket }
    }

    /// Sites whose report rate is remembered (topics of unknown sites must not grow it without bound).
    static let maxReportBuckets = 10_000
}
