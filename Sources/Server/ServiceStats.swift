import BuildInfo

/// The service's counters at one moment, as `#stats` reports them.
public struct ServiceStats: Sendable, Equatable {
    /// Lines received on all ingest connections (including comments, blank and rejected lines).
    public var linesIn = 0
    /// Events applied to the engine.
    public var eventsApplied = 0
    /// Rejected lines by reason key (every key present, zeros included).
    public var rejected: [String: Int] = [:]
    public var positionsOut = 0
    public var proximityOut = 0
    public var removedOut = 0
    /// Zone enter and exit lines produced (each one goes to the feed and the history).
    public var zoneEventsOut = 0
    /// Partial lines lost because a gateway disconnected mid-line.
    public var partialLinesDropped = 0
    public var ingestConnections = 0
    public var ingestConnectionsTotal = 0
    public var feedClients = 0
    public var feedClientsTotal = 0
    /// Lines queued for feed clients (one per client per line).
    public var feedLinesQueued = 0
    /// Lines dropped from full feed queues.
    public var feedLinesDropped = 0
    /// `#stats` and `#anchors` replies not queued because the client's queue was full (policy drop-oldest).
    public var feedRepliesDropped = 0
    /// Socket writes that sent feed bytes.
    public var feedSends = 0
    /// Tags whose last position is remembered for snapshots, and positions of new tags not remembered
    /// because `maxRememberedTags` were.
    public var positionsRemembered = 0
    public var positionsNotRemembered = 0
    /// Feed clients closed because their queue overflowed (policy `disconnect`).
    public var feedClientsDisconnected = 0
    /// Connections refused by a limit (`maxIngestConnections`, `maxFeedClients`, `maxConnectionsPerAddress`).
    public var connectionsRefused = 0
    /// Connections that did not authenticate (wrong, missing or late `auth` line).
    public var authFailures = 0
    /// Connections refused because their address failed to authenticate too often (`AuthBackoff`).
    public var authBackoffRefused = 0
    /// Tags tracked by the engine now.
    public var tags = 0
    public var sites = 0
    /// Anchors silent now: heard before, but not for `anchorSilence` seconds.
    public var anchorsSilent = 0
    public var historyRowsWritten = 0
    public var historyPending = 0
    public var historyDropped = 0
    public var historyError: String?
    /// History write attempts that failed (each retry counts; the rows of a transient failure are kept).
    public var historyFailures = 0
    public var uptimeSeconds = 0.0
    /// The MQTT counters; nil when MQTT is off.
    public var mqtt: MQTTStats?
    /// The running build's version (`sextant --version`).
    public var version = BuildInfo.version

    public init() {}

    /// All rejections.
    public var rejectedTotal: Int { rejected.values.reduce(0, +) }

    /// The counters as ordered `(key, value)` pairs; rejections as `rejected_<reason>`.
    public var fields: [(String, Int)] {
        var f: [(String, Int)] = [
            ("lines_in", linesIn), ("events_applied", eventsApplied), ("rejected", rejectedTotal),
        ]
        f += rejected.keys.sorted().map { ("rejected_\($0)", rejected[$0]!) }
        f += [
            ("positions_out", positionsOut), ("proximity_out", proximityOut), ("removed_out", removedOut),
            ("zone_events_out", zoneEventsOut),
            ("partial_lines_dropped", partialLinesDropped), ("ingest_connections", ingestConnections),
            ("ingest_connections_total", ingestConnectionsTotal), ("feed_clients", feedClients),
            ("feed_clients_total", feedClientsTotal), ("feed_lines_queued", feedLinesQueued),
            ("feed_lines_dropped", feedLinesDropped), ("feed_replies_dropped", feedRepliesDropped), ("feed_sends", feedSends),
            ("feed_clients_disconnected", feedClientsDisconnected),
            ("positions_remembered", positionsRemembered), ("positions_not_remembered", positionsNotRemembered),
            ("connections_refused", connectionsRefused), ("auth_failures", authFailures),
            ("auth_backoff_refused", authBackoffRefused),
            ("tags", tags), ("sites", sites), ("anchors_silent", anchorsSilent), ("history_rows_written", historyRowsWritten),
            ("history_pending", historyPending), ("history_dropped", historyDropped),
            ("history_failures", historyFailures),
        ]
        if let mqtt { f += mqtt.fields }
        return f
    }

    /// `# key=value` lines (the counters, `uptime_seconds`, `version`), ending with `# end`.
    public var commentLines: String {
        var s = fields.map { "# \($0.0)=\($0.1)\n" }.joined()
        s += "# uptime_seconds=\(Int(uptimeSeconds))\n"
        s += "# version=\(version.replacingOccurrences(of: "\n", with: " "))\n"
        if let e = historyError { s += "# history_error=\(e.replacingOccurrences(of: "\n", with: " "))\n" }
        return s + "# end\n"
    }

    /// One line-protocol line: `sextant_stats,version=0.1.0 lines_in=10i,… <time>`.
    /// - Parameter time: Unix nanoseconds.
    public func lineProtocol(time: Int64) -> String {
        let f = fields.map { "\($0.0)=\($0.1)i" } + ["uptime_seconds=\(uptimeSeconds)"]
        var tag = ""
        for c in version where !c.isNewline {
            if c == "," || c == "=" || c == " " || c == "\\" { tag.append("\\") }
            tag.append(c)
        }
        return "sextant_stats,version=\(tag) " + f.joined(separator: ",") + " \(time)\n"
    }

    /// Reads `# key=value` lines back (as `sextant status` receives them).
    public static func parse(commentLines text: String) -> [(String, String)] {
        text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("# "), let eq = line.firstIndex(of: "=") else { return nil }
            return (String(line[line.index(line.startIndex, offsetBy: 2)..<eq]), String(line[line.index(after: eq)...]))
        }
    }
}
